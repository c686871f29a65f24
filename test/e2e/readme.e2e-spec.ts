/**
 * The README's "Trying it" runs as written: its first terminal's settings start the service,
 * and its second terminal's blocks run in bash, in order, with only the ports changed to ones
 * this test opened (the service's and the webhook receiver's).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { Service } from '../support/service.js';

const readme = readFileSync('README.md', 'utf8');
const section = readme.slice(readme.indexOf('## Trying it'), readme.indexOf('### Stopping it'));
const [first, ...steps] = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);

/** A port nobody listens on, found by opening and closing a server on port 0. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('README: Trying it', () => {
  let service: Service;
  afterAll(async () => service?.stop());

  it('takes a merchant from a widget to a rewarded conversion and a delivered webhook, as the README shows', async () => {
    expect(first.trim()).toMatch(/ npm start$/);
    const env = Object.fromEntries(
      first
        .trim()
        .replace(/ npm start$/, '')
        .split(' ')
        .map((pair) => pair.split('=') as [string, string]),
    );
    expect(env).toHaveProperty('ADMIN_TOKEN');
    service = await Service.start({ env });
    const port = new URL(service.url).port;
    const receiver = await freePort();
    const script = steps
      .join('\n')
      .replaceAll('localhost:3000', `127.0.0.1:${port}`)
      .replaceAll('127.0.0.1:4000', `127.0.0.1:${receiver}`)
      .replace('.listen(4000, ', `.listen(${receiver}, `);
    // Job control on, as in the terminal the README speaks of (`&`, then `kill %1`).
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', `set -m\n${script}`], { timeout: 60_000 });
    expect(stderr).toBe('');
    expect(stdout).toMatch(/"merchant":\{"id":\d+,"name":"My shop","access_key":"ak_/);
    expect(stdout).toMatch(/"published":true/);
    expect(stdout).toMatch(/^302 https:\/\/shop\.example\/\?referral_code=[a-z0-9]+$/m);
    expect(stdout).toMatch(/"purchase":\{"id":\d+,"order_id":"ORDER-1"/);
    expect(stdout).toMatch(/"advocate_email_address":"ada@example\.com","reward_type":"fixed_cash","amount":10,"status":"approved"/);
    expect(stdout).toMatch(/"total_results_count":1,"results":\[\{"id":\d+,"reward_type":"fixed_cash","amount":10,"status":"approved"/);
    // The receiver prints from the background: its line may fall between two of curl's.
    expect(stdout).toMatch(/webhook: \{"id":"[^"]+","type":"conversion\.created"/);
    expect(stdout).toMatch(/"kind":"conversion\.created"/);
  });
});
