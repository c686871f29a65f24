/**
 * The sandbox (spec §1 "Sandbox"): a complete second instance of the service, on its own
 * storage (its own SQLite file, stream namespace, MongoDB database), served by the same
 * process under /sandbox/v1 and /sandbox/v2 with the very same routes, auth and behaviour.
 *
 * Each reset builds a new generation beside the current one (fresh storage, the baseline
 * seeded through the same commands the API uses) and then swaps it in: a request is served
 * by whichever generation was current when it arrived, start to finish, so it sees either the
 * old state or the new one, never a half-reset one, and none fails because of the reset. The
 * old generation is closed once its last request has finished.
 */
import { Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Config } from '../platform/config.js';
import type { ErrorResponse } from '../platform/http/exception.filter.js';
import { sandboxBodyText, unroutedBy } from '../platform/http/http-setup.js';
import { EventStore } from '../platform/event-store/event-store.js';
import { ReadStore } from '../platform/read-store/read-store.js';
import { createReadStore, SANDBOX_STREAMS, StorageNames } from '../platform/storage.js';
import { createServiceEventStore } from '../operations/service-storage.js';
import { LOGGED_ELSEWHERE } from '../operations/request-telemetry.js';
import { REQUEST_ID_HEADER } from '../operations/request-id.js';
import { OptOutJobProcessor } from '../email-opt-outs/commands/opt-out-commands.js';
import { ReminderScheduler } from '../shares/commands/share-commands.js';
import { Baseline, SAMPLE_MERCHANT, seedBaseline } from './sample-data.js';
import { SeedSources } from './seed-sources.js';

export const SANDBOX_PREFIX = 'sandbox';

export interface GenerationAppOptions {
  config: Config;
  clock: SeedSources['clock'];
  ids: SeedSources['ids'];
  codes: SeedSources['codes'];
  eventStore: EventStore;
  readStore: ReadStore;
}

export type GenerationAppFactory = (options: GenerationAppOptions) => Promise<NestFastifyApplication>;

interface Generation {
  number: number;
  app: NestFastifyApplication;
  baseline: Baseline;
  inFlight: number;
  retired: boolean;
  drained: Promise<void>;
  markDrained: () => void;
}

const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

export class SandboxHost {
  private readonly logger = new Logger('Sandbox');
  private current: Generation | undefined;
  private timer: NodeJS.Timeout | undefined;
  private resetting: Promise<void> | undefined;
  private next = 0;
  private resetAt = 0;
  private closed = false;
  private readonly runId = Date.now().toString(36);

  constructor(
    private readonly live: Config,
    private readonly resetIntervalMs: number,
    private readonly factory: GenerationAppFactory,
  ) {}

  private get dir(): string {
    return join(this.live.dataDir, 'sandbox');
  }

  /** Names of a generation's storage; the run id keeps a restarted process off an earlier run's streams. */
  private names(n: number): StorageNames {
    return {
      sqliteFile: join('sandbox', `generation-${n}.sqlite`),
      // Inside the live namespace, under the beginning the live store excludes (SANDBOX_STREAMS).
      streamNamespace: `${this.live.eventStoreNamespace}${SANDBOX_STREAMS}${this.runId}-${n}-`,
      mongoDatabase: `${this.live.mongoDatabase}_sandbox_${this.runId}_${n}`,
      ephemeral: true,
    };
  }

  /** Starts the first generation (a restart begins from the baseline) and the reset timer. */
  async start(): Promise<void> {
    this.removeFiles(() => true);
    await this.reset();
  }

  get nextResetAt(): Date {
    return new Date(this.resetAt);
  }

  get generation(): number {
    return this.current?.number ?? 0;
  }

  get sampleMerchant(): { id: number; accessKey: string; secretKey: string } {
    return { id: this.current?.baseline.merchantId ?? 0, accessKey: SAMPLE_MERCHANT.accessKey, secretKey: SAMPLE_MERCHANT.secretKey };
  }

  /** Builds the next generation from the baseline and swaps it in. */
  reset(): Promise<void> {
    this.resetting ??= this.build()
      .catch((error: Error) => this.logger.error(`sandbox reset failed, the current generation stays: ${error.stack ?? error.message}`))
      .finally(() => {
        this.resetting = undefined;
        this.schedule();
      });
    return this.resetting;
  }

  /**
   * The next timed reset, a whole interval after this one (a reset asked for by hand included: an
   * interval timer kept its own beat, and a manual reset at minute 29 was undone a minute later).
   */
  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.closed) return;
    this.resetAt = Date.now() + this.resetIntervalMs;
    this.timer = setTimeout(() => void this.reset(), this.resetIntervalMs);
    this.timer.unref();
    this.logger.log(`next sandbox reset at ${this.nextResetAt.toISOString()}`);
  }

  private async build(): Promise<void> {
    if (this.closed) return;
    const number = ++this.next;
    const names = this.names(number);
    const sources = new SeedSources();
    // Anyone may write to the sandbox with its published keys, so nothing it does leaves the
    // machine through the live settings: its emails stay in its own outbox (no SMTP), and its
    // trackable links are its own /sandbox/l, not the live PUBLIC_LINK_BASE, which does not know its codes.
    // Every generation rebuilds the sample merchant with the same id, keys and token generation:
    // tokens are signed in a context of the generation's own, so that a reset ends the tokens issued
    // before it (a revoked one would otherwise open the next generation), in this process or an earlier one.
    const config: Config = {
      ...this.live,
      adminToken: undefined,
      smtpUrl: undefined,
      publicLinkBase: undefined,
      mountPath: '/sandbox',
      tokenKeyContext: `sandbox/${randomBytes(16).toString('base64url')}`,
    };
    const eventStore = await createServiceEventStore(config, sources.clock, names);
    const readStore = await createReadStore(config, names);
    const app = await this.factory({ config, clock: sources.clock, ids: sources.ids, codes: sources.codes, eventStore, readStore });
    await app.init();
    const baseline = await seedBaseline({
      commands: app.get(CommandBus),
      sources,
      reminders: app.get(ReminderScheduler),
      optOutJobs: app.get(OptOutJobProcessor),
    });
    sources.goLive();
    let markDrained!: () => void;
    const drained = new Promise<void>((resolve) => (markDrained = resolve));
    const previous = this.current;
    this.current = { number, app, baseline, inFlight: 0, retired: false, drained, markDrained };
    if (previous) void this.retire(previous, names);
    this.logger.log(`sandbox generation ${number} is live`);
  }

  private async retire(generation: Generation, _next: StorageNames): Promise<void> {
    generation.retired = true;
    if (generation.inFlight === 0) generation.markDrained();
    await generation.drained;
    await generation.app.close();
    const old = this.names(generation.number);
    this.removeFiles((file) => file.startsWith(`generation-${generation.number}.`));
    void old;
  }

  private removeFiles(match: (file: string) => boolean): void {
    let files: string[] = [];
    try {
      files = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const file of files) if (match(file)) rmSync(join(this.dir, file), { force: true });
  }

  /**
   * The 404 or 405 the current generation answers to a method and path none of its routes takes,
   * found before the request's body is read (as the live API does); undefined when a route takes
   * it, or while the sandbox is starting (`handle` answers that).
   */
  unrouted(method: string, path: string): ErrorResponse | undefined {
    return this.current && unroutedBy(this.current.app.getHttpAdapter().getInstance(), method, path);
  }

  /** Serves one /sandbox request from the generation current when it arrived. */
  async handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const generation = this.current;
    if (!generation) {
      reply.code(503).header('retry-after', '5').send({ errors: ['the sandbox is starting; try again in a few seconds'] });
      return;
    }
    generation.inFlight += 1;
    try {
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_HEADERS.has(name))) as Record<string, string>;
      // The same request id on both sides: the sandbox's access-log line is this request's.
      headers[REQUEST_ID_HEADER] = request.id;
      const response = await generation.app.getHttpAdapter().getInstance().inject({
        method: request.method as 'GET',
        url: request.url,
        headers,
        // The body as sent: a re-encoding would change it (1e400 parses to Infinity, which encodes as null).
        payload: request.body === undefined ? undefined : (sandboxBodyText(request) ?? JSON.stringify(request.body)),
        remoteAddress: request.ip,
      });
      LOGGED_ELSEWHERE.add(request);
      reply.code(response.statusCode);
      for (const [name, value] of Object.entries(response.headers)) {
        if (!HOP_HEADERS.has(name) && value !== undefined) reply.header(name, value);
      }
      // No body (a redirect): none sent, so no content type is added (a Buffer is sent as octet-stream).
      if (response.rawPayload.length === 0) reply.send();
      else reply.send(response.rawPayload);
    } finally {
      generation.inFlight -= 1;
      if (generation.retired && generation.inFlight === 0) generation.markDrained();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.resetting;
    const generation = this.current;
    this.current = undefined;
    if (generation) await this.retire(generation, this.names(generation.number));
  }
}
