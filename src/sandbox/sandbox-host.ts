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
import { CommandRunner } from '../platform/command-runner.js';
import { Config } from '../platform/config.js';
import { ErrorResponse, toErrorResponse } from '../platform/http/exception.filter.js';
import { sandboxBodyText, unroutedBy } from '../platform/http/http-setup.js';
import { EventStore } from '../platform/event-store/event-store.js';
import { ReadStore } from '../platform/read-store/read-store.js';
import { createReadStore, SANDBOX_STREAMS, StorageNames } from '../platform/storage.js';
import { createServiceEventStore } from '../operations/index.js';
import { LOGGED_ELSEWHERE } from '../platform/observability/request-telemetry.js';
import { sandboxLogScope } from '../platform/observability/logging.js';
import { REQUEST_ID_HEADER } from '../platform/observability/request-id.js';
import { OptOutJobProcessor } from '../email-opt-outs/index.js';
import { ReminderScheduler } from '../shares/index.js';
import { RevokeMerchantTokensCommand } from '../merchants/index.js';
import { MERCHANT_LOOKUP, type MerchantLookup } from '../platform/auth/principal.js';
import { Baseline, SAMPLE_MERCHANT, seedBaseline } from './sample-data.js';
import { SeedSources } from './seed-sources.js';
import { credentialKey, GenerationQuota, isWrite, SandboxWriteLimits, withQuota } from './sandbox-quota.js';

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
  quota: GenerationQuota;
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
  /**
   * The key context sandbox tokens are signed in, this process's own: the sample merchant is rebuilt
   * with the same published keys by every process, so a token issued by an earlier run (revoked there,
   * perhaps) must not open this one; within the process, tokens outlive resets (carryRevocations).
   */
  private readonly tokenKeyContext = `sandbox/${randomBytes(16).toString('base64url')}`;

  private readonly writes: SandboxWriteLimits;

  constructor(
    private readonly live: Config,
    private readonly resetIntervalMs: number,
    private readonly factory: GenerationAppFactory,
  ) {
    this.writes = new SandboxWriteLimits(live.sandboxWritesPerMinutePerAddress, live.sandboxWritesPerMinutePerKey, (request) =>
      credentialKey(request, this.sampleMerchant),
    );
  }

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

  get sampleMerchant(): { id: number; accessKey: string; secretKey: string; publishableKey: string } {
    return {
      id: this.current?.baseline.merchantId ?? 0,
      accessKey: SAMPLE_MERCHANT.accessKey,
      secretKey: SAMPLE_MERCHANT.secretKey,
      publishableKey: SAMPLE_MERCHANT.publishableKey,
    };
  }

  /** Builds the next generation from the baseline and swaps it in. */
  reset(): Promise<void> {
    this.resetting ??= sandboxLogScope
      .run(true, () => this.build())
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
    // Tokens are signed in this process's sandbox context, so that they outlive a reset but not a restart.
    const config: Config = {
      ...this.live,
      adminToken: undefined,
      smtpUrl: undefined,
      publicLinkBase: undefined,
      mountPath: '/sandbox',
      tokenKeyContext: this.tokenKeyContext,
    };
    const quota = new GenerationQuota(this.live.sandboxMaxEvents, this.live.sandboxMaxBytes, () => this.resetAt);
    const eventStore = withQuota(await createServiceEventStore(config, sources.clock, names), quota);
    const readStore = await createReadStore(config, names);
    const app = await this.factory({ config, clock: sources.clock, ids: sources.ids, codes: sources.codes, eventStore, readStore });
    let baseline: Baseline;
    try {
      await app.init();
      baseline = await seedBaseline({
        commands: app.get(CommandBus),
        sources,
        reminders: app.get(ReminderScheduler),
        optOutJobs: app.get(OptOutJobProcessor),
        runner: app.get(CommandRunner),
      });
      sources.goLive();
      // A revocation outlives the reset: the new sample merchant starts at the old one's token generation.
      if (this.current) await this.carryRevocations(this.current, app, baseline);
      quota.start();
    } catch (error) {
      // A generation that never went live is closed here: nothing else would.
      await app.close().catch(() => undefined);
      this.removeFiles((file) => file.startsWith(`generation-${number}.`));
      throw error;
    }
    let markDrained!: () => void;
    const drained = new Promise<void>((resolve) => (markDrained = resolve));
    const previous = this.current;
    this.current = { number, app, baseline, quota, inFlight: 0, retired: false, drained, markDrained };
    if (previous) void this.retire(previous);
    this.logger.log(`sandbox generation ${number} is live`);
  }

  private async retire(generation: Generation): Promise<void> {
    generation.retired = true;
    if (generation.inFlight === 0) generation.markDrained();
    await generation.drained;
    // A DELETE /tokens/merchant the old generation answered after the new one was built.
    const current = this.current;
    if (current && current !== generation)
      await this.carryRevocations(generation, current.app, current.baseline).catch((error: Error) =>
        this.logger.error(`sandbox token revocations not carried over: ${error.message}`),
      );
    await generation.app.close();
    this.removeFiles((file) => file.startsWith(`generation-${generation.number}.`));
  }

  /** Revokes the sample merchant's tokens in `app` until its token generation is the one `from` had. */
  private async carryRevocations(from: Generation, app: NestFastifyApplication, baseline: Baseline): Promise<void> {
    const previous = await from.app.get<MerchantLookup>(MERCHANT_LOOKUP).byId(from.baseline.merchantId);
    const merchants = app.get<MerchantLookup>(MERCHANT_LOOKUP);
    const commands = app.get(CommandBus);
    const target = previous?.token_generation ?? 0;
    for (;;) {
      const generation = (await merchants.byId(baseline.merchantId))?.token_generation ?? target;
      if (generation >= target) return;
      await commands.execute(new RevokeMerchantTokensCommand({ merchantId: baseline.merchantId, generation }));
    }
  }

  private removeFiles(match: (file: string) => boolean): void {
    let files: string[];
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

  /**
   * The 429 a write gets before its body is read: when the current generation is nearly full (until
   * the next reset), or its address or key has had its writes this minute; undefined to go on.
   */
  async refuseWrite(request: FastifyRequest): Promise<ErrorResponse | undefined> {
    if (!isWrite(request.method)) return undefined;
    const quota = this.current?.quota;
    if (quota?.nearlyFull) return toErrorResponse(quota.full());
    return this.writes.admit(request);
  }

  /** Serves one /sandbox request from the generation current when it arrived. */
  async handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const generation = this.current;
    if (!generation) {
      reply
        .code(503)
        .header('retry-after', '5')
        .send({ errors: ['the sandbox is starting; try again in a few seconds'] });
      return;
    }
    generation.inFlight += 1;
    try {
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_HEADERS.has(name))) as Record<string, string>;
      // The same request id on both sides: the sandbox's access-log line is this request's.
      headers[REQUEST_ID_HEADER] = request.id;
      const response = await generation.app
        .getHttpAdapter()
        .getInstance()
        .inject({
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
    if (generation) await sandboxLogScope.run(true, () => this.retire(generation));
  }
}
