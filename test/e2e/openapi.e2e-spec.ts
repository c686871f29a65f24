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
    const served = [...registeredRoutes(service.app.getHttpAdapter().getInstance())].filter(
      (r) => /^(GET|POST|PUT|PATCH|DELETE) \/(v1|v2|admin)\//.test(r),
    );
    expect(served.length).toBeGreaterThan(15);
    expect(served.filter((r) => !documented.has(r))).toEqual([]);
    expect(doc.body.components.securitySchemes).toHaveProperty('basic');
    expect(doc.body.components.securitySchemes).toHaveProperty('token');
    expect(JSON.stringify(doc.body)).not.toMatch(/sk_[A-Za-z0-9]{20,}/);
  });

  it('serves the interactive documentation at /docs', async () => {
    const page = await service.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
  });
});
