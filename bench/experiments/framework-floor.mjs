/**
 * Experiment (not part of `npm run bench`): the floor a NestJS application on the Fastify adapter
 * stands on, before any of the service's own work. Servers, each in a process of its own, are
 * driven alternately at 16 connections on the same requests as the bench's scenarios:
 *
 *   fastify         the bench's own baseline (bench/baseline-server.mjs): plain Fastify, hand checks, Maps
 *   nest            NestFactory + FastifyAdapter, one controller with the same handlers (the same
 *                   Bearer check and Maps), no guard, pipe, interceptor, filter or hook of any kind,
 *                   no body check: what the framework costs by itself
 *   nest-validated  the same, with each query and body checked as the architecture has them checked:
 *                   Nest's ValidationPipe (class-transformer, then class-validator) on DTOs holding
 *                   the rules the baseline checks by hand
 *   service         with --service <path/to/main.js>: a build of the service (embedded default),
 *                   seeded as the bench seeds it (1,000 advocates, each with a personal link)
 *
 *   GET  /health
 *   GET  /v2/customers?account_id=adv-N   a lookup among 1,000 customers
 *   POST /v2/purchases                    a new order_id each, with a referral code (the bench's write body)
 *
 *   node bench/experiments/framework-floor.mjs [--seconds 8] [--rounds 2] [--service dist/main.js] [--routes health,lookup,write]
 *
 * Prints one JSON line per round, route and server: req/s, p50/p99, and the server's CPU per request
 * (every thread, from /proc), which the load generator sharing the cores distorts far less than req/s.
 */
import 'reflect-metadata';
import autocannon from 'autocannon';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTimeOf, freePort, installCleanupHandlers, makeTempDir, serviceNodeFlags, startNode, waitForHttp } from '../lib/children.mjs';
import { benchPurchase, call, lookupRequest, pool, seedAdvocates, seedMerchant } from '../lib/http.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOKEN = 'floor-token';
const ACCOUNTS = [...Array(1000).keys()].map((i) => `adv-${i}`);

async function serveNest(port, validated) {
  const { Body, Controller, Get, Headers, Module, Post, Query, Res, ValidationPipe } = await import('@nestjs/common');
  const { IsEmail, IsIn, IsInt, IsIP, IsNumber, IsOptional, IsString, Length, MaxLength, Min, IsArray, IsDefined } = await import('class-validator');
  const { NestFactory } = await import('@nestjs/core');
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  const expected = `Bearer ${TOKEN}`;
  const customers = new Map();
  const purchases = new Map();
  let nextId = 1;

  /** Applies property decorators to a DTO class, as TypeScript would. */
  const dto = (name, rules) => {
    const Dto = { [name]: class {} }[name];
    for (const [property, decorators] of Object.entries(rules)) for (const decorator of decorators) decorator(Dto.prototype, property);
    return Dto;
  };
  const optionalString = (max) => [IsOptional(), IsString(), MaxLength(max)];
  const LookupQuery = dto('LookupQuery', { account_id: optionalString(255) });
  const CustomerBody = dto('CustomerBody', { account_id: [IsDefined(), IsString(), Length(1, 255)], email_address: [IsOptional(), IsEmail()] });
  const PurchaseBody = dto('PurchaseBody', {
    order_id: [IsDefined(), IsString(), Length(1, 255)],
    referral_code: optionalString(64),
    coupon_code: optionalString(100),
    payment_amount: [IsOptional(), IsNumber({ allowNaN: false, allowInfinity: false }), Min(0)],
    new_customer: [IsOptional(), IsIn(['yes', 'no', 'unknown'])],
    email_address: [IsOptional(), IsEmail()],
    ip_address: [IsOptional(), IsIP(4)],
    referrer: optionalString(2000),
    customer_id: [IsOptional(), IsInt()],
    widget_id: [IsOptional(), IsInt()],
    products: [IsOptional(), IsArray()],
  });

  class FloorController {
    health() {
      return { status: 'ok' };
    }
    lookup(query, authorization, reply) {
      if (authorization !== expected) return reply.code(401).send({ errors: ['unauthorized'] });
      const found = customers.get(validated ? query.account_id : query);
      return reply.send({ next_page: null, results_count: found ? 1 : 0, results: found ? [found] : [] });
    }
    upsertCustomer(body, authorization, reply) {
      if (authorization !== expected) return reply.code(401).send({ errors: ['unauthorized'] });
      const customer = { id: nextId++, account_id: body.account_id, email_address: body.email_address ?? null, created_at: new Date().toISOString() };
      customers.set(customer.account_id, customer);
      return reply.code(201).send({ customer });
    }
    purchase(body, authorization, reply) {
      if (authorization !== expected) return reply.code(401).send({ errors: ['unauthorized'] });
      if (purchases.has(body.order_id)) return reply.code(409).send({ errors: [`order_id ${body.order_id} is already used`] });
      const purchase = {
        id: nextId++,
        order_id: body.order_id,
        payment_amount: body.payment_amount ?? null,
        referral_code: body.referral_code ?? null,
        email_address: body.email_address ?? null,
        created_at: new Date().toISOString(),
      };
      purchases.set(purchase.order_id, purchase);
      return reply.code(201).send({ purchase });
    }
  }
  const proto = FloorController.prototype;
  const route = (method, path, name, input, Dto) => {
    Reflect.defineMetadata('design:paramtypes', [validated ? Dto : Object, String, Object], proto, name);
    input(proto, name, 0);
    Headers('authorization')(proto, name, 1);
    Res()(proto, name, 2);
    method(path)(proto, name, Object.getOwnPropertyDescriptor(proto, name));
  };
  Get('health')(proto, 'health', Object.getOwnPropertyDescriptor(proto, 'health'));
  route(Get, 'v2/customers', 'lookup', validated ? Query() : Query('account_id'), LookupQuery);
  route(Post, 'v2/customers', 'upsertCustomer', Body(), CustomerBody);
  route(Post, 'v2/purchases', 'purchase', Body(), PurchaseBody);
  Controller()(FloorController);
  class FloorModule {}
  Module({ controllers: [FloorController] })(FloorModule);
  const app = await NestFactory.create(FloorModule, new FastifyAdapter(), { logger: false });
  if (validated) app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }));
  await app.listen(port, '127.0.0.1');
}

async function start(kind, logDir) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = join(logDir, `${kind}.log`);
  if (kind === 'service') {
    const main = resolve(process.argv[process.argv.indexOf('--service') + 1]);
    const env = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: makeTempDir('bench-framework-floor-data-'),
      ADMIN_TOKEN: 'bench-admin',
      LOG_LEVEL: 'warn',
    };
    for (const k of ['EVENTSTORE_URL', 'MONGO_URL', 'PUBLIC_BASE_URL']) delete env[k];
    const handle = startNode({ name: kind, args: [...serviceNodeFlags(ROOT), main], cwd: ROOT, env, logFile });
    await waitForHttp(`${url}/health`, { handle });
    const { widget, auth } = await seedMerchant(url, 'Bearer bench-admin', { name: 'Framework floor shop' });
    const codes = (await seedAdvocates(url, auth, widget.id, ACCOUNTS)).map((a) => a.code);
    return { kind, url, handle, auth, codes };
  }
  const args = kind === 'fastify' ? [join(ROOT, 'bench', 'baseline-server.mjs')] : [fileURLToPath(import.meta.url), '--serve', kind, String(port)];
  const handle = startNode({ name: kind, args, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', BASELINE_TOKEN: TOKEN }, logFile });
  await waitForHttp(`${url}/health`, { handle });
  const auth = `Bearer ${TOKEN}`;
  await pool(ACCOUNTS, 8, (account_id) =>
    call(url, 'POST', '/v2/customers', { body: { account_id, email_address: `${account_id}@example.com` }, auth, expect: 201 }),
  );
  return { kind, url, handle, auth, codes: ACCOUNTS.map((a) => `code-${a}`) };
}

let orders = 0;
const ROUTES = {
  health: () => ({ method: 'GET', path: '/health' }),
  lookup: ({ auth }) => lookupRequest(auth, ACCOUNTS),
  write: ({ auth, codes }) => {
    const prefix = `floor-${orders++}`;
    let n = 0;
    return {
      method: 'POST',
      path: '/v2/purchases',
      headers: { 'content-type': 'application/json', authorization: auth },
      setupRequest(req) {
        req.body = JSON.stringify(benchPurchase(`${prefix}-${n++}`, codes));
        return req;
      },
    };
  },
};

const serving = process.argv.indexOf('--serve');
if (serving >= 0) {
  await serveNest(Number(process.argv[serving + 2]), process.argv[serving + 1] === 'nest-validated');
} else {
  installCleanupHandlers();
  const option = (name, fallback) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : fallback);
  const seconds = Number(option('seconds', 8));
  const rounds = Number(option('rounds', 2));
  const routes = option('routes', 'health,lookup,write').split(',');
  const logDir = makeTempDir('bench-framework-floor-');
  const servers = [];
  for (const kind of ['fastify', 'nest', 'nest-validated', ...(process.argv.includes('--service') ? ['service'] : [])]) servers.push(await start(kind, logDir));
  for (let round = 1; round <= rounds; round += 1) {
    for (const route of routes) {
      for (const server of servers) {
        const url = server.url;
        await autocannon({ url, connections: 16, duration: 2, requests: [ROUTES[route](server)] });
        const before = cpuTimeOf(server.handle.pid);
        const result = await autocannon({ url, connections: 16, duration: seconds, requests: [ROUTES[route](server)] });
        const cpuMs = cpuTimeOf(server.handle.pid) - before;
        const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, c]) => [code, c.count]));
        process.stdout.write(
          `${JSON.stringify({ round, route, server: server.kind, rps: Math.round(result.requests.total / result.duration), p50: result.latency.p50, p99: result.latency.p99, cpuUsPerRequest: Math.round((cpuMs * 1000) / result.requests.total), statuses })}\n`,
        );
      }
    }
  }
  for (const { handle } of servers) await handle.stop();
}
