import type { FastifyRequest } from 'fastify';
import { issueToken } from '../platform/auth/tokens.js';
import { TooManyRequestsError } from '../platform/errors.js';
import { SqliteEventStore } from '../platform/event-store/sqlite-event-store.js';
import { credentialKey, EDGE_SHARE, GenerationQuota, withQuota } from './sandbox-quota.js';

const event = (text: string) => ({ type: 'Noted', data: { text } });
const RESET_AT = Date.parse('2030-01-01T00:00:00.000Z');

describe('a sandbox generation quota', () => {
  it('counts only after the baseline, and refuses the append that would pass a ceiling, leaving the log as it was', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const quota = new GenerationQuota(3, 1_000_000, () => RESET_AT);
    const counted = withQuota(store, quota);
    try {
      await counted.append('baseline', [event('a'), event('b'), event('c')], 'no_stream');
      expect(quota.events).toBe(0);
      quota.start();
      await counted.append('s-1', [event('one'), event('two')], 'no_stream');
      expect(quota.events).toBe(2);
      const refused = counted.append('s-2', [event('three'), event('four')], 'no_stream');
      await expect(refused).rejects.toBeInstanceOf(TooManyRequestsError);
      await expect(refused).rejects.toMatchObject({ kind: 'too_many', advice: { 'retry-after': expect.stringMatching(/^\d+$/) } });
      expect((await store.readStream('s-2')).length).toBe(0);
      // One more fits exactly; the reads go through the wrapper untouched.
      await counted.append('s-2', [event('three')], 'no_stream');
      expect((await counted.readAll()).length).toBe(6);
      expect(quota.events).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('counts bytes, gives back what a refused append reserved, and is nearly full from EDGE_SHARE of a ceiling', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const quota = new GenerationQuota(1000, 1000, () => RESET_AT);
    const counted = withQuota(store, quota);
    try {
      quota.start();
      await counted.append('s-1', [event('x'.repeat(400))], 'no_stream');
      const used = quota.bytes;
      expect(used).toBeGreaterThan(400);
      expect(quota.nearlyFull).toBe(false);
      // A wrong expected revision: nothing appended, nothing counted.
      await expect(counted.append('s-1', [event('y')], 'no_stream')).rejects.toThrow(/expected/);
      expect([quota.events, quota.bytes]).toEqual([1, used]);
      await expect(counted.append('s-2', [event('x'.repeat(700))], 'no_stream')).rejects.toBeInstanceOf(TooManyRequestsError);
      await counted.append('s-2', [event('x'.repeat(Math.ceil(1000 * EDGE_SHARE) - used))], 'no_stream');
      expect(quota.nearlyFull).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('the key sandbox writes are counted against', () => {
  const sample = { id: 1001, accessKey: 'ak_sample' };
  const request = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as FastifyRequest;

  it('is the sample merchant for its Basic keys and its tokens alike, another key as sent, nothing without credentials', () => {
    const basic = (user: string) => `Basic ${Buffer.from(`${user}:secret`).toString('base64')}`;
    expect(credentialKey(request(basic('ak_sample')), sample)).toBe('merchant:1001');
    expect(credentialKey(request(`Bearer ${issueToken({ kind: 'merchant', merchantId: 1001, generation: 0 }, 'sk', 'ctx')}`), sample)).toBe('merchant:1001');
    expect(credentialKey(request(basic('ak_other')), sample)).toBe('key:ak_other');
    expect(credentialKey(request(), sample)).toBeUndefined();
  });
});
