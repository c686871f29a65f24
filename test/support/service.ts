/**
 * Starts the real Nest application on the embedded stores (SQLite in a temporary DATA_DIR),
 * listening on 127.0.0.1 with a port the OS picks, and talks to it over HTTP.
 * With E2E_MONGO_URL set (opt-in, .ci/run sets it), the read models live on that MongoDB-protocol server instead;
 * with E2E_EVENTSTORE_URL set, the events live on that EventStoreDB server (a stream namespace per data directory).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { LoggerService } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MongoClient } from 'mongodb';
import { createApp } from '../../src/app.js';
import { Clock } from '../../src/platform/clock.js';
import { Config, loadConfig } from '../../src/platform/config.js';

export { eventually } from './eventually.js';

export const ADMIN_TOKEN = 'test-admin-token';

/** The MongoDB-protocol server the e2e suites run their read models on, when set; else in-memory read models. */
export const E2E_MONGO_URL = process.env.E2E_MONGO_URL || undefined;
/** The EventStoreDB server the e2e suites keep their events on, when set; else the embedded SQLite log. */
export const E2E_EVENTSTORE_URL = process.env.E2E_EVENTSTORE_URL || undefined;

/** One database per data directory: a restart on the same directory finds its read models and checkpoints again. */
export function e2eDatabase(dataDir: string): string {
  return `e2e_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;
}

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface StartOptions {
  dataDir?: string;
  clock?: Clock;
  env?: Record<string, string>;
  sandbox?: boolean;
  logger?: LoggerService;
  mongoUrl?: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (for malformed bodies). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  auth?: string;
  /** A Host header as sent (fetch would replace it): the request goes through node:http instead. */
  host?: string;
}

export class Service {
  private constructor(
    readonly app: NestFastifyApplication,
    readonly url: string,
    readonly dataDir: string,
    private readonly ownsDir: boolean,
    private readonly mongoUrl?: string,
  ) {}

  /** `mongoUrl`: read models (and the storage lease) on that server, as E2E_MONGO_URL does for every start. */
  static async start(options: StartOptions = {}): Promise<Service> {
    const mongoUrl = options.mongoUrl ?? E2E_MONGO_URL;
    const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'referral-e2e-'));
    const config: Config = {
      // The sandbox seeds a whole sample merchant at start-up: only the tests about it pay for that.
      ...loadConfig({ ADMIN_TOKEN, SANDBOX_ENABLED: options.sandbox ? 'true' : 'false', ...options.env }),
      dataDir,
      eventStoreUrl: E2E_EVENTSTORE_URL,
      // A namespace per data directory, as the database: a restart on the same directory reads its own streams again.
      ...(E2E_EVENTSTORE_URL ? { eventStoreNamespace: `${e2eDatabase(dataDir).replace(/_/g, '-')}-` } : {}),
      mongoUrl,
      ...(mongoUrl ? { mongoDatabase: e2eDatabase(dataDir) } : {}),
    };
    const app = await createApp({ config, clock: options.clock, logger: options.logger ?? (process.env.E2E_LOGS ? undefined : false) });
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    return new Service(app, `http://127.0.0.1:${address.port}`, dataDir, !options.dataDir, mongoUrl);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Buffer | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    if (options.auth) headers.authorization = options.auth;
    if (options.host !== undefined) headers.host = options.host;
    // Never follow redirects: a test must not leave 127.0.0.1 (trackable links point elsewhere).
    const response =
      options.host === undefined
        ? await fetch(this.url + path, { method, headers, body, redirect: 'manual' })
        : await rawRequest(this.url + path, method, headers, body);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed as T, headers: response.headers, text };
  }

  get = <T = any>(path: string, options?: RequestOptions) => this.request<T>('GET', path, options);
  post = <T = any>(path: string, body?: unknown, options?: RequestOptions) => this.request<T>('POST', path, { ...options, body });
  patch = <T = any>(path: string, body?: unknown, options?: RequestOptions) => this.request<T>('PATCH', path, { ...options, body });
  put = <T = any>(path: string, body?: unknown, options?: RequestOptions) => this.request<T>('PUT', path, { ...options, body });
  delete = <T = any>(path: string, body?: unknown, options?: RequestOptions) => this.request<T>('DELETE', path, { ...options, body });

  admin = { auth: `Bearer ${ADMIN_TOKEN}` };

  /** Stops the server; the data directory stays unless this service created it and `keep` is false. */
  async stop(keep = false): Promise<void> {
    await this.app.close();
    if (!this.ownsDir || keep) return;
    rmSync(this.dataDir, { recursive: true, force: true });
    if (this.mongoUrl) {
      const client = await MongoClient.connect(this.mongoUrl);
      await client
        .db(e2eDatabase(this.dataDir))
        .dropDatabase()
        .finally(() => client.close());
    }
  }
}

export interface TestMerchant {
  id: number;
  accessKey: string;
  secretKey: string;
  basic: string;
  token: string;
  bearer: string;
}

/** A merchant with its v1 Basic header and a v2 merchant token. */
export async function createMerchant(service: Service, name = 'Test shop'): Promise<TestMerchant> {
  const created = await service.post('/admin/merchants', { name }, service.admin);
  expect(created.status).toBe(201);
  const { id, access_key, secret_key } = created.body.merchant;
  const token = await service.post('/v2/tokens/merchant', { access_key, secret_key });
  expect(token.status).toBe(200);
  return {
    id,
    accessKey: access_key,
    secretKey: secret_key,
    basic: `Basic ${Buffer.from(`${access_key}:${secret_key}`).toString('base64')}`,
    token: token.body.token,
    bearer: `Bearer ${token.body.token}`,
  };
}

export async function createWidget(service: Service, merchant: TestMerchant, body: Record<string, unknown> = {}) {
  const created = await service.post(
    `/admin/merchants/${merchant.id}/widgets`,
    { name: 'Give $10', reward_type: 'fixed_cash', reward_amount: 10, destination_url: 'https://shop.example/welcome', ...body },
    service.admin,
  );
  expect(created.status).toBe(201);
  return created.body.widget;
}

/** The routes a customer token may call (spec §5.2 rule 4); every other v2 route refuses it with 403. */
export const CUSTOMER_TOKEN_ROUTES: ReadonlySet<string> = new Set([
  'POST /v2/personal_referral_links',
  'GET /v2/personal_referral_links',
  'POST /v2/shares',
  'GET /v2/shares',
  'GET /v2/conversions',
  'GET /v2/rewards',
  'GET /v2/coupons',
]);

/** One request through node:http, whose headers go out as given (Host included), read into a fetch Response. */
function rawRequest(url: string, method: string, headers: Record<string, string>, body?: string | Buffer): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) if (value !== undefined) answer.set(name, String(value));
        resolve(new Response(Buffer.concat(chunks).toString('utf8'), { status: incoming.statusCode, headers: answer }));
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** A service started before the describe block's tests and stopped after them; the getter gives it to the tests. */
export function serviceForSuite(options: StartOptions = {}): () => Service {
  let service: Service | undefined;
  beforeAll(async () => {
    service = await Service.start(options);
  }, 30_000);
  afterAll(async () => {
    await service?.stop();
  });
  return () => service!;
}
