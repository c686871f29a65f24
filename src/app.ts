/**
 * Builds the Nest application (Fastify adapter) with everything the API promises on every
 * route; main.ts and the end-to-end tests both start the service through here.
 */
import 'reflect-metadata';
import { Logger, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module.js';
import { PointInTimeReadStore } from './audit/index.js';
import { requestIdFor } from './platform/observability/request-id.js';
import { serviceProjectionsFor, createServiceEventStore, servicePersonalData } from './operations/index.js';
import { PersonalDataEventStore, personalDataOf, SqliteKeyStore } from './platform/personal-data/index.js';
import { Clock, systemClock } from './platform/clock.js';
import { Config } from './platform/config.js';
import { EventStore } from './platform/event-store/event-store.js';
import { documentNotAcceptable, documentThrottling } from './platform/http/error.schemas.js';
import { claimStorage, StorageClaim } from './platform/instance/storage-claim.js';
import { AllExceptionsFilter, sendError, toErrorResponse } from './platform/http/exception.filter.js';
import {
  API_PREFIXES,
  BODY_LIMIT,
  clientErrorHandler,
  installHttpBehaviour,
  installRequestDeadline,
  installServerAnswers,
  MAX_PARAM_LENGTH,
  normaliseUrl,
} from './platform/http/http-setup.js';
import { constraintsFromValidation } from './platform/http/openapi-constraints.js';
import { routeParameterTypes, typesFromValidation } from './platform/http/openapi-types.js';
import { QueryParamsGuard } from './platform/http/query-params.guard.js';
import { StrictValidationPipe } from './platform/http/validation.js';
import { CodeSource, IdSource, RandomCodes, TimeOrderedIds } from './platform/ids.js';
import { CODE_ALPHABET, CODE_LENGTH } from './referral-links/index.js';
import { ReadStore } from './platform/read-store/read-store.js';
import { createReadStore } from './platform/storage.js';
import { SANDBOX_PREFIX, SandboxHost } from './sandbox/index.js';

export interface AppOptions {
  config: Config;
  clock?: Clock;
  ids?: IdSource;
  codes?: CodeSource;
  eventStore?: EventStore;
  readStore?: ReadStore;
  /** Nest's log output: false for none (tests), a logger (main.ts: JSON lines), or Nest's default. */
  logger?: false | LoggerService | undefined;
  /** Builds one sandbox generation: served under /sandbox, with no sandbox, OpenAPI page or signal handling of its own. */
  sandboxGeneration?: boolean;
}

/** Server mode's lease lapsed: another instance may be writing to the same store by now, so this one stops at once. */
function stopOnLostLease(reason: string): void {
  Logger.error(`${reason}; stopping: another instance may now be writing to the same store`, 'InstanceLease');
  process.exit(1);
}

export async function createApp(options: AppOptions): Promise<NestFastifyApplication> {
  const clock = options.clock ?? systemClock;
  // Before anything opens a store: a second process on the same data is refused, naming the first
  // (docs/operations.md, "A second process is refused"). A sandbox generation runs under its live app's.
  // On real time, not the app's clock: other processes judge the lease's expiry by theirs.
  const claim = options.sandboxGeneration ? undefined : await claimStorage(options.config, systemClock, stopOnLostLease);
  try {
    return await createClaimedApp(options, clock, claim);
  } catch (error) {
    await claim?.release();
    throw error;
  }
}

async function createClaimedApp(options: AppOptions, clock: Clock, claim: StorageClaim | undefined): Promise<NestFastifyApplication> {
  const opened = options.eventStore ?? (await createServiceEventStore(options.config, clock));
  // A store handed in bare (a test's) gets the personal-data layer too, with keys kept in memory.
  const eventStore = personalDataOf(opened) ? opened : await PersonalDataEventStore.open(opened, new SqliteKeyStore(':memory:'), servicePersonalData);
  // Wrapped so that point-in-time reads can answer ordinary routes from a throw-away store.
  const readStore = new PointInTimeReadStore(options.readStore ?? (await createReadStore(options.config)));
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    // Fastify's own 503 once it is closing (its body, no X-Request-Id, no Retry-After) would answer
    // the requests that reach the listener or a kept-alive connection after the drain, while the
    // connections end: they go on to RequestTelemetry's onRequest hook instead, which answers every
    // request from SIGTERM until the listener is closed with the API's 503 (docs/operations.md).
    return503OnClosing: false,
    // Node's own answer to an HTTP/1.1 request without Host is a 400 with no body: checked in an
    // onRequest hook instead (installHttpBehaviour), with the API's error body.
    http: { requireHostHeader: false },
    // Headers and whole requests end with a 408 past REQUEST_TIMEOUT_MS (bodies: installRequestDeadline),
    // silent sockets are closed past CONNECTION_TIMEOUT_MS (docs/operations.md).
    requestTimeout: options.config.requestTimeoutMs,
    connectionTimeout: options.config.connectionTimeoutMs,
    // The client address from X-Forwarded-For only behind proxies named by TRUST_PROXY. A sandbox
    // generation is handed the address the live app resolved (SandboxHost.handle), not the header.
    trustProxy: options.sandboxGeneration ? false : (options.config.trustProxy ?? false),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    rewriteUrl: (request: { url?: string }) => normaliseUrl(request.url ?? '/'),
    genReqId: requestIdFor,
    clientErrorHandler,
    // Bad URLs and over-long path parameters are refused by the router itself: same error body.
    frameworkErrors: (error: Error, _request: FastifyRequest, reply: FastifyReply) => sendError(reply, toErrorResponse(error)),
  });
  installHttpBehaviour(adapter.getInstance(), { hostRequired: options.config.publicBaseUrl === undefined });
  const server = adapter.getInstance().server;
  installServerAnswers(server);
  if (!options.sandboxGeneration) installRequestDeadline(adapter.getInstance(), options.config.requestTimeoutMs);
  // Connections past the cap are closed as they arrive: a flood ends before file descriptors do.
  server.maxConnections = options.config.maxConnections;
  // The holder record names the port once it is bound (PORT=0 lets the OS pick).
  if (claim) server.once('listening', () => claim.listening((server.address() as { port: number }).port));
  const sandbox =
    options.config.sandboxEnabled && !options.sandboxGeneration
      ? new SandboxHost(options.config, options.config.sandboxResetIntervalMs, (generation) =>
          createApp({ ...generation, logger: options.logger, sandboxGeneration: true }),
        )
      : undefined;
  if (sandbox) {
    adapter.getInstance().route({
      // Every method Fastify routes (HEAD comes with GET): the sandbox app answers 404 and 405 itself.
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'],
      url: `/${SANDBOX_PREFIX}/*`,
      // An unknown sandbox route is a 404 (or 405) before its body is read, as on the live API.
      // Then a write the sandbox's quota or write limits refuse is a 429, also before its body is read.
      onRequest: (request, reply, done) => {
        const refusal = sandbox.unrouted(request.method, request.url.split('?', 1)[0]);
        if (refusal) return sendError(reply, refusal);
        sandbox.refuseWrite(request).then(
          (refused) => (refused ? sendError(reply, refused) : done()),
          (error: unknown) => sendError(reply, toErrorResponse(error)),
        );
      },
      handler: (request, reply) => sandbox.handle(request, reply),
      // Anyone may write to the sandbox: its documents are kept smaller than the live API's.
      bodyLimit: options.config.sandboxBodyLimit,
      // Registered before Nest: Fastify's own errors on this route (body parsing, 415, 413) get the
      // live API's error body too, not Fastify's default one.
      errorHandler: (error, _request, reply) =>
        sendError(
          reply,
          (error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? { status: 413, errors: [`sandbox request bodies are at most ${options.config.sandboxBodyLimit} bytes (SANDBOX_BODY_LIMIT)`] }
            : toErrorResponse(error),
        ),
    });
  }
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(
      {
        config: options.config,
        clock,
        ids: options.ids ?? new TimeOrderedIds(() => clock.now().getTime(), (await eventStore.lastEventTime())?.getTime()),
        codes: options.codes ?? new RandomCodes(CODE_LENGTH, CODE_ALPHABET),
        eventStore,
        readStore,
        projections: serviceProjectionsFor(eventStore),
        storageClaim: claim,
      },
      sandbox,
    ),
    adapter,
    // bodyParser off: only Fastify's own JSON parser, so form and text bodies get 415.
    { logger: options.logger ?? undefined, abortOnError: false, bodyParser: false },
  );
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(new StrictValidationPipe());
  app.useGlobalGuards(new QueryParamsGuard());
  if (options.sandboxGeneration) {
    // The live app forwards /sandbox/* here unchanged, and closes this app on reset.
    app.setGlobalPrefix(SANDBOX_PREFIX);
    return app;
  }
  // SIGTERM/SIGINT: drain requests, stop projections, close stores (see operations/graceful-shutdown.ts), then exit 0.
  app.enableShutdownHooks([], { useProcessExit: true });

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Referral program service')
      .setDescription(
        'REST API v1 (Basic auth, offset paging) and v2 (tokens, cursor paging), plus the admin API. See docs/ for webhooks and design decisions.',
      )
      .setVersion('1.0')
      .setLicense('MIT', 'https://opensource.org/licenses/MIT')
      // Relative: the document is served by the service it describes, at whatever origin that has.
      .addServer('/', 'This service')
      .addBasicAuth({ type: 'http', scheme: 'basic', description: 'v1: access key as user name, secret key as password' }, 'basic')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'mt_…', description: 'v2: a merchant token (POST /v2/tokens/merchant)' }, 'token')
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'ct_…',
          description: 'v2: a customer token (POST /v2/tokens/customer), on the routes that list this scheme only (spec §5.2 rule 4)',
        },
        'customer_token',
      )
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'admin: ADMIN_TOKEN' }, 'admin')
      .addApiKey(
        {
          type: 'apiKey',
          in: 'header',
          name: 'X-Publishable-Key',
          description: "browser routes: the merchant's publishable key (pk_…), from a page on one of its allowed origins (docs/embedding.md)",
        },
        'publishable_key',
      )
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'GET /metrics: METRICS_TOKEN, when the service has one set' },
        'metrics',
      )
      .build(),
  );
  // Body property types from the validation rules (@nestjs/swagger reads unions as "object").
  typesFromValidation(document, routeParameterTypes(app));
  constraintsFromValidation(document, routeParameterTypes(app));
  documentThrottling(document);
  documentNotAcceptable(document, API_PREFIXES);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  if (!options.config.adminToken) Logger.warn('ADMIN_TOKEN is not set: the admin API is off', 'Bootstrap');
  return app;
}
