import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { registeredRoutes } from '../../src/platform/http/http-setup.js';
import { Service } from '../support/service.js';

describe('OpenAPI document', () => {
  let service: Service;
  beforeAll(async () => {
    service = await Service.start();
  });
  afterAll(async () => {
    await service.stop();
  });

  it('covers every route the service registers, with its auth', async () => {
    const doc = await service.get('/docs-json');
    expect(doc.status).toBe(200);
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.body.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`);
    }
    const served = [...registeredRoutes(service.app.getHttpAdapter().getInstance())].filter((r) =>
      /^(GET|POST|PUT|PATCH|DELETE) \/(v1|v2|admin|browser)\//.test(r),
    );
    expect(served.length).toBeGreaterThan(15);
    expect(served.filter((r) => !documented.has(r))).toEqual([]);
    expect(doc.body.components.securitySchemes).toHaveProperty('basic');
    expect(doc.body.components.securitySchemes).toHaveProperty('token');
    // The browser routes take the publishable key, and only they do.
    expect(doc.body.components.securitySchemes.publishable_key).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Publishable-Key' });
    const withPublishableKey = Object.entries(doc.body.paths as Record<string, Record<string, { security?: Record<string, unknown>[] }>>).flatMap(
      ([path, ops]) =>
        Object.entries(ops)
          .filter(([, op]) => op.security?.some((s) => 'publishable_key' in s))
          .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(withPublishableKey.sort()).toEqual([
      'GET /browser/v1/referral_codes/{code}',
      'GET /browser/v1/widgets',
      'GET /browser/v1/widgets/{id}/variant',
      'POST /browser/v1/email_captures',
      'POST /browser/v1/purchases',
      'POST /browser/v1/referral_links',
      'POST /browser/v1/shares',
    ]);
    expect(served.filter((r) => r.includes(' /browser/')).length).toBe(7);
    // The routes that act for a signed-in customer document the header it comes in.
    const customerHeader = (path: string) =>
      ((doc.body.paths[path].post.parameters ?? []) as { in: string; name: string; required?: boolean }[]).find(
        (p) => p.in === 'header' && p.name === 'X-Customer-Token',
      );
    expect(['/browser/v1/referral_links', '/browser/v1/shares'].map((path) => customerHeader(path)?.required)).toEqual([true, true]);
    expect(customerHeader('/browser/v1/purchases')).toBeUndefined();
    expect(JSON.stringify(doc.body)).not.toMatch(/sk_[A-Za-z0-9]{20,}/);
  });

  it('types each body property as its validation does: ids as integer or digits, names as strings, integers as integers', async () => {
    const { components, paths } = (await service.get('/docs-json')).body as {
      components: {
        schemas: Record<
          string,
          { properties?: Record<string, { type?: string; oneOf?: { type: string }[]; items?: unknown; $ref?: string; allOf?: unknown }> }
        >;
      };
      paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    };
    const property = (schema: string, name: string) => components.schemas[schema].properties![name];
    expect(property('CreatePurchaseDto', 'customer_id').oneOf?.map((s) => s.type)).toEqual(['integer', 'string']);
    expect(property('CreatePurchaseDto', 'customer_id').type).toBeUndefined();
    expect(property('UpsertCustomerDto', 'first_name').type).toBe('string');
    expect(property('ProductDto', 'quantity').type).toBe('integer');
    // No property is an object unless an object rule checks it (the unions @nestjs/swagger read as "object").
    const objects = Object.entries(components.schemas).flatMap(([schema, s]) =>
      Object.entries(s.properties ?? {})
        .filter(([, p]) => p.type === 'object')
        .map(([name]) => `${schema}.${name}`),
    );
    expect(objects.filter((name) => !/(link_parameters|parameters|headers)$/.test(name))).toEqual([]);
    // Rules across properties, said where a reader of the schema looks.
    const described = components.schemas as unknown as Record<string, { description?: string }>;
    expect(described.CreateConversionDto.description).toMatch(/referral_code or coupon_code/);
    expect(described.VanityLinkDto.description).toMatch(/exactly one of customer_id and email_address/);
    expect(described.CreateWidgetDto.description).toMatch(/reward_type and reward_amount are set together/);
    // The fraud checks as the evaluation applies them (rejectionReasons): same_email ignores case and
    // surrounding spaces only; dots matter outside Gmail.
    const fraudCheck = (name: string) => (property('FraudChecksDto', name) as { description?: string }).description ?? '';
    expect(fraudCheck('same_email')).toMatch(/ignoring letter case and surrounding spaces/);
    expect(fraudCheck('similar_email')).toMatch(/\+tag at common providers .*for Gmail, dots/);
    expect(fraudCheck('similar_email')).not.toMatch(/\(case, dots, \+tags\)/);
    // The statuses a client dispatches on.
    const responses = (path: string, method: string) =>
      Object.keys((paths[path][method] as unknown as { responses: Record<string, unknown> }).responses).sort();
    expect(responses('/v2/customers', 'post')).toEqual(['200', '201', '400', '401', '403', '406', '429', '503']);
    expect(responses('/l/{code}', 'get')).toEqual(['302', '400', '404', 'default']);
    // A customer token is listed only where spec §5.2 rule 4 allows one.
    const withCustomerToken = Object.entries(paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.security?.some((s) => 'customer_token' in s))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(withCustomerToken.sort()).toEqual(
      [
        'GET /v2/conversions',
        'GET /v2/coupons',
        'GET /v2/personal_referral_links',
        'GET /v2/rewards',
        'GET /v2/shares',
        'POST /v2/personal_referral_links',
        'POST /v2/shares',
      ].sort(),
    );
  });

  it('serves the interactive documentation at /docs', async () => {
    const page = await service.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
  });

  it("passes Redocly's recommended lint rules with no error or warning", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, (await service.get('/docs-json')).text);
    // The CLI exits 1 on a problem: its JSON report is read either way.
    const run = await promisify(execFile)(
      process.execPath,
      [resolve('node_modules/@redocly/cli/bin/cli.js'), 'lint', '--config', resolve('redocly.yaml'), '--format', 'json', file],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout: string }) => error);
    const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; location: { pointer: string }[] }[] };
    expect(report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('documents 429 with Retry-After on every operation that takes credentials', async () => {
    const paths = (await service.get('/docs-json')).body.paths as Record<
      string,
      Record<string, { security?: unknown[]; responses: Record<string, { headers?: object }> }>
    >;
    const credentialed = Object.entries(paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.security?.length)
        .map(([method, op]) => ({ at: `${method} ${path}`, op })),
    );
    expect(credentialed.length).toBeGreaterThan(80);
    expect(credentialed.filter(({ op }) => !Object.hasOwn(op.responses['429']?.headers ?? {}, 'Retry-After')).map(({ at }) => at)).toEqual([]);
    expect(paths['/v2/tokens/merchant'].post.responses['429'].headers).toHaveProperty('Retry-After');
    for (const [path, method] of [
      ['/health', 'get'],
      ['/ready', 'get'],
      ['/v2/tokens/merchant', 'post'],
      ['/l/{code}', 'get'],
    ])
      expect(paths[path][method].security).toEqual([]);
  });
});
