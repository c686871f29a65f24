import { loggedPath } from './request-telemetry.js';

describe('the access log path', () => {
  it.each([
    ['/v1/email_opt_outs/opt@b.example', '/v1/email_opt_outs/:email'],
    ['/v2/email_opt_outs/opt%40b.example?x=1', '/v2/email_opt_outs/:email'],
    ['/sandbox/v2/email_opt_outs/A%40B.EXAMPLE', '/sandbox/v2/email_opt_outs/:email'],
    ['/v2/customers/42', '/v2/customers/42'],
    ['/v2/customers?email=ann@example.com', '/v2/customers'],
  ])('logs %s as %s', (url, logged) => {
    expect(loggedPath(url)).toBe(logged);
  });
});
