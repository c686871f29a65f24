import type { FastifyRequest } from 'fastify';
import { encodePosition } from '../event-store/eventstoredb-event-store.js';
import { encodeCursor, parseV2Paging } from './paging.js';

const list = (path: string) => ({ url: `${path}?limit=2` }) as FastifyRequest;
const cursorAt = (through: string, path = '/v2/purchases') => encodeCursor({ at: '2026-05-01T08:00:00.000Z', _id: '0001', through }, path);

describe('v2 cursors', () => {
  it('take back the log positions they were issued with, EventStoreDB-sized ones (above 2^64) included', () => {
    const esdb = encodePosition({ commit: 21544n, prepare: 21288n }).toString();
    for (const through of ['0', '125', '397416654323998580036648', esdb, (2n ** 128n - 1n).toString()]) {
      expect(parseV2Paging({ cursor: cursorAt(through) }, list('/v2/purchases')).after).toEqual({
        at: '2026-05-01T08:00:00.000Z',
        _id: '0001',
        through,
      });
    }
  });

  it('refuse a position no log has (2^128 and above, a leading zero, a sign), and a cursor of another list', () => {
    for (const through of [(2n ** 128n).toString(), '9'.repeat(40), '0125', '-1', '1e3']) {
      expect(() => parseV2Paging({ cursor: cursorAt(through) }, list('/v2/purchases'))).toThrow('cursor is not valid for this list');
    }
    expect(() => parseV2Paging({ cursor: cursorAt('125', '/v2/customers') }, list('/v2/purchases'))).toThrow('cursor is not valid for this list');
  });
});
