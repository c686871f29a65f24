import { MaxAppendSizeExceededError, NotLeaderError, StreamDeletedError, UnavailableError } from '@eventstore/db-client';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { toErrorResponse } from '../http/exception.filter.js';
import net from 'node:net';
import { encodePosition, EventStoreDbEventStore, refusesAppendFailures, streamOwnership } from './eventstoredb-event-store.js';

/** What the server-side filter lets through, read the way the server reads it (a regex or prefixes on the stream name). */
function passes(filter: ReturnType<typeof streamOwnership>['filter'], streamId: string): boolean {
  return 'regex' in filter ? new RegExp(filter.regex).test(streamId) : filter.prefixes.some((prefix) => streamId.startsWith(prefix));
}

describe('EventStoreDB stream ownership', () => {
  const cases: { namespace: string; foreign: string[]; mine: string[]; notMine: string[] }[] = [
    {
      // The live service with the default namespace: every stream but system ones and the sandbox's.
      namespace: '',
      foreign: ['sandbox-'],
      mine: ['merchant-1', 'purchase-1-b3JkZXI', 'referral-code-sandbox', 's-1'],
      notMine: ['sandbox-lx2k-1-merchant-1', '$et-PurchaseRecorded', '$projections-$all'],
    },
    {
      // A live namespace: its own streams, not another deployment's nor its sandbox's.
      namespace: 'shop-1.a-',
      foreign: ['sandbox-'],
      mine: ['shop-1.a-merchant-1', 'shop-1.a-referral-code-x'],
      notMine: ['shop-1.a-sandbox-lx2k-1-merchant-1', 'shop-1xa-merchant-1', 'shop-2-merchant-1', 'merchant-1', 'sandbox-lx2k-1-merchant-1', '$et-x'],
    },
    {
      // The live service as liveStorage names it: the storage lease's stream is not one of its streams either.
      namespace: 'shop-',
      foreign: ['sandbox-', 'instance-lease'],
      mine: ['shop-merchant-1', 'shop-instance-1'],
      notMine: ['shop-instance-lease', 'shop-sandbox-lx2k-1-merchant-1', 'instance-lease'],
    },
    {
      // A sandbox generation (or a contract test's store): its prefix only.
      namespace: 'sandbox-lx2k-1-',
      foreign: [],
      mine: ['sandbox-lx2k-1-merchant-1'],
      notMine: ['sandbox-lx2k-10-merchant-1', 'sandbox-lx2k-2-merchant-1', 'merchant-1', '$et-x'],
    },
  ];

  it.each(cases)('namespace "$namespace" excluding $foreign: owns its streams, and the server filter lets exactly those through', ({ namespace, foreign, mine, notMine }) => {
    const ownership = streamOwnership(namespace, foreign);
    for (const streamId of mine) {
      expect([streamId, ownership.owns(streamId, 'PurchaseRecorded')]).toEqual([streamId, true]);
      expect([streamId, passes(ownership.filter, streamId)]).toEqual([streamId, true]);
    }
    for (const streamId of notMine) {
      expect([streamId, ownership.owns(streamId, 'PurchaseRecorded')]).toEqual([streamId, false]);
      expect([streamId, passes(ownership.filter, streamId)]).toEqual([streamId, false]);
    }
  });

  it('never owns system event types, whatever the stream', () => {
    expect(streamOwnership('', ['sandbox-']).owns('merchant-1', '$metadata')).toBe(false);
    expect(streamOwnership('shop-', []).owns('shop-merchant-1', '$>')).toBe(false);
  });
});

describe('EventStoreDB adapter without a server', () => {
  /** A port on 127.0.0.1 nobody listens on (opened, then closed). */
  const closedPort = async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  };

  it('a subscription not iterated yet holds a connection error for its iteration instead of ending the process', async () => {
    const store = await EventStoreDbEventStore.connect(`esdb://127.0.0.1:${await closedPort()}?tls=false`);
    const uncaught: Error[] = [];
    const listen = (error: Error) => uncaught.push(error);
    process.on('uncaughtException', listen);
    try {
      const subscription = store.subscribe();
      // The call fails while nobody iterates.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(uncaught).toEqual([]);
      await expect(subscription[Symbol.asyncIterator]().next()).rejects.toThrow();
    } finally {
      process.off('uncaughtException', listen);
      await store.close();
    }
  }, 15_000);

  it('ping rejects when the server cannot be reached', async () => {
    const store = await EventStoreDbEventStore.connect(`esdb://127.0.0.1:${await closedPort()}?tls=false`);
    try {
      await expect(store.ping()).rejects.toThrow();
    } finally {
      await store.close();
    }
  });

  it('refuses a connection string that turns refused appends into results, however it spells the option', async () => {
    await expect(EventStoreDbEventStore.connect('esdb://127.0.0.1:2113?tls=false&throwOnAppendFailure=false')).rejects.toThrow(/throwOnAppendFailure/);
    // The client reads option names in any case, with or without _ and -.
    for (const spelling of ['throw_on_append_failure=false', 'THROW-ON-APPEND-FAILURE=false', ' throwonappendfailure =false']) {
      expect([spelling, refusesAppendFailures(`esdb://h:2113?tls=false&${spelling}`)]).toEqual([spelling, true]);
      await expect(EventStoreDbEventStore.connect(`esdb://127.0.0.1:2113?tls=false&${spelling}`)).rejects.toThrow(/throwOnAppendFailure/);
    }
    expect(refusesAppendFailures('esdb://h:2113?tls=false&throwOnAppendFailure=true')).toBe(false);
    expect(refusesAppendFailures('esdb://h:2113?tls=false')).toBe(false);
  });
});

describe('EventStoreDB adapter: appends', () => {
  interface Stored {
    id: string;
    type: string;
    data: unknown;
    metadata: unknown;
  }
  /**
   * A client that appends like a server (ids back in lower case with hyphens, as the server gives
   * them) and reads a stream back, failing the first `failReads` reads as a node that lost the
   * leadership does.
   */
  function fakeClient(failReads = 0) {
    const streams = new Map<string, Stored[]>();
    let position = 100n;
    const client = {
      appends: 0,
      reads: 0,
      async appendToStream(stream: string, events: { id: string; type: string; data: unknown; metadata: unknown }[]) {
        client.appends += 1;
        const list = streams.get(stream) ?? [];
        for (const e of events) list.push({ id: e.id.toLowerCase(), type: e.type, data: e.data, metadata: e.metadata });
        streams.set(stream, list);
        return { success: true, nextExpectedRevision: BigInt(list.length - 1), position: { commit: position, prepare: position } };
      },
      readStream(stream: string, options: { fromRevision: bigint; maxCount: number }) {
        client.reads += 1;
        const failing = client.reads <= failReads;
        const list = (streams.get(stream) ?? []).slice(Number(options.fromRevision), Number(options.fromRevision) + options.maxCount);
        return {
          async *[Symbol.asyncIterator]() {
            if (failing) throw new NotLeaderError({ metadata: { getMap: () => ({ 'leader-endpoint-host': '10.0.0.2', 'leader-endpoint-port': '2113' }) } } as never);
            for (const [i, e] of list.entries()) {
              position += 10n;
              yield { event: { ...e, isJson: true, streamId: stream, revision: options.fromRevision + BigInt(i), position: { commit: position, prepare: position }, created: new Date(0) } };
            }
          },
        };
      },
    };
    return client;
  }

  it('reads a committed append back again when the node it asked lost the leadership, instead of reporting it failed', async () => {
    const client = fakeClient(2);
    const store = EventStoreDbEventStore.withClient(client as never);
    const result = await store.append('s-1', [{ type: 'A', data: { n: 1 } }, { type: 'B', data: { n: 2 } }], 'no_stream');
    expect(result.events.map((e) => e.type)).toEqual(['A', 'B']);
    expect(result.revision).toBe(1);
    expect(client.appends).toBe(1);
    expect(client.reads).toBe(3);
  });

  it('answers 503 with Retry-After, not 500, when the server cannot be reached', async () => {
    const client = fakeClient();
    client.appendToStream = async () => {
      throw new UnavailableError(undefined, 'connect ECONNREFUSED 10.0.0.9:2113');
    };
    const store = EventStoreDbEventStore.withClient(client as never);
    const error = await store.append('s-4', [{ type: 'A', data: {} }], 'no_stream').catch((e: unknown) => e);
    // The driver's text (hosts, addresses) stays out of the answer.
    expect(toErrorResponse(error)).toEqual({ status: 503, errors: ['the event store cannot be reached; retry shortly'], headers: { 'retry-after': '5' } });
    // A read that fails the same way after all its retries: the append is not reported as committed or lost to a 503.
    const reads = fakeClient(10);
    const stuck = await EventStoreDbEventStore.withClient(reads as never).append('s-5', [{ type: 'A', data: {} }], 'no_stream').catch((e: unknown) => e);
    // A 500 is logged with its stack: held here, so a passing run prints no ERROR line.
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      expect(toErrorResponse(stuck).status).toBe(500);
      expect(logged).toHaveBeenCalledWith(expect.stringContaining('stream s-5: appended from revision 0, but not read back'));
    } finally {
      logged.mockRestore();
    }
  });

  it("answers a deleted stream's append 409 and an oversized append 413, with the service's error body", async () => {
    const client = fakeClient();
    const store = EventStoreDbEventStore.withClient(client as never);
    client.appendToStream = async () => {
      throw StreamDeletedError.fromStreamName('s-6');
    };
    expect(toErrorResponse(await store.append('s-6', [{ type: 'A', data: {} }], 'any').catch((e: unknown) => e))).toEqual({
      status: 409,
      errors: ['this record was deleted from the event store and takes no more changes'],
    });
    client.appendToStream = async () => {
      throw MaxAppendSizeExceededError.fromMaxAppendSize(1048576);
    };
    expect(toErrorResponse(await store.append('s-7', [{ type: 'A', data: {} }], 'any').catch((e: unknown) => e))).toEqual({
      status: 413,
      errors: ['the change is larger than the event store accepts in one write (1048576 bytes)'],
    });
  });

  it('answers 503 from every read of the log when the server cannot be reached: $all pages, the head, the last time, a subscription', async () => {
    const down = () => new UnavailableError(undefined, 'connect ECONNREFUSED 10.0.0.9:2113');
    const failing = { async *[Symbol.asyncIterator]() { throw down(); }, cancel: async () => undefined };
    const client = {
      readAll: () => failing,
      subscribeToAll: () => Object.assign(failing, { on: () => undefined, destroyed: false, unsubscribe: async () => undefined, destroy: () => undefined }),
    };
    const store = EventStoreDbEventStore.withClient(client as never);
    const unavailable = { status: 503, errors: ['the event store cannot be reached; retry shortly'], headers: { 'retry-after': '5' } };
    expect(toErrorResponse(await store.readAll({ after: 0n }).catch((e: unknown) => e))).toEqual(unavailable);
    expect(toErrorResponse(await store.headPosition().catch((e: unknown) => e))).toEqual(unavailable);
    expect(toErrorResponse(await store.lastEventTime().catch((e: unknown) => e))).toEqual(unavailable);
    const subscription = store.subscribe(0n)[Symbol.asyncIterator]();
    expect(toErrorResponse(await subscription.next().catch((e: unknown) => e))).toEqual(unavailable);
  });

  it('takes ids back in the form the server gives them (lower case)', async () => {
    const store = EventStoreDbEventStore.withClient(fakeClient() as never);
    const id = 'A0B1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D';
    const result = await store.append('s-2', [{ id, type: 'A', data: {} }], 'no_stream');
    expect(result.events[0].id).toBe(id.toLowerCase());
  });

  it('refuses data that is not JSON and expected revisions that are not revisions before the client sees them', async () => {
    const client = fakeClient();
    const store = EventStoreDbEventStore.withClient(client as never);
    // The client would turn these into JSON in a promise of its own: an unhandled rejection, the process ended.
    await expect(store.append('s-3', [{ type: 'A', data: { n: 1n } }], 'no_stream')).rejects.toThrow(TypeError);
    await expect(store.append('s-3', [{ type: 'A', data: undefined }], 'no_stream')).rejects.toThrow(TypeError);
    // The client would send these on the connection every append shares, and fail them all.
    for (const expected of [-1, 1.5, Number.MAX_SAFE_INTEGER + 2]) await expect(store.append('s-3', [{ type: 'A', data: {} }], expected)).rejects.toThrow(RangeError);
    expect(client.appends).toBe(0);
  });
});

describe('EventStoreDB adapter: the head of its namespace', () => {
  interface LogEvent {
    streamId: string;
    type: string;
    position: { commit: bigint; prepare: bigint };
    created: Date;
  }
  /** A client whose readAll answers backward reads like a server does (other calls are not needed here), counting the events it sends. */
  function fakeClient(log: LogEvent[]) {
    const client = {
      sent: 0,
      subscribedFrom: [] as unknown[],
      subscribeToAll(options: { fromPosition: unknown }) {
        client.subscribedFrom.push(options.fromPosition);
        return { on: () => undefined, destroyed: false };
      },
      readAll(options: { direction: string; fromPosition: unknown; maxCount: number }) {
        expect(options.direction).toBe('backwards');
        const from = options.fromPosition;
        const below = typeof from === 'object' && from !== null ? (from as { commit: bigint }).commit : undefined;
        const events = [...log].reverse().filter((e) => below === undefined || e.position.commit < below).slice(0, options.maxCount);
        let cancelled = false;
        return {
          async *[Symbol.asyncIterator]() {
            for (const event of events) {
              if (cancelled) return;
              client.sent += 1;
              yield { event };
            }
          },
          async cancel() {
            cancelled = true;
          },
        };
      },
    };
    return client;
  }
  let next = 1n;
  const event = (streamId: string): LogEvent => {
    const at = next++;
    return { streamId, type: 'Something', position: { commit: at * 10n, prepare: at * 10n }, created: new Date(Date.UTC(2026, 0, 1) + Number(at) * 1000) };
  };
  const others = (n: number) => Array.from({ length: n }, () => event('other-app-1'));

  it("finds its newest event, then reads only what was written since (not the whole log) while it is idle or empty", async () => {
    const log = [...others(1200)];
    const client = fakeClient(log);
    const store = EventStoreDbEventStore.withClient(client as never, { namespace: 'shop-' });
    // Empty namespace: the first scan reads everything once.
    expect(await store.headPosition()).toBe(0n);
    expect(client.sent).toBe(1200);
    expect(await store.lastEventTime()).toBeUndefined();
    expect(client.sent).toBe(1201);
    // Nothing of ours up to there: a subscription from the start begins there, not at the log's start.
    store.subscribe(0n);
    expect(client.subscribedFrom).toEqual([log[log.length - 1].position]);
    log.push(...others(30));
    client.sent = 0;
    expect(await store.headPosition()).toBe(0n);
    expect(client.sent).toBe(31);
    const mine = event('shop-merchant-1');
    log.push(mine, ...others(700));
    client.sent = 0;
    expect(await store.headPosition()).toBe(encodePosition(mine.position));
    expect(await store.lastEventTime()).toEqual(mine.created);
    expect(client.sent).toBeLessThan(710);
    store.subscribe();
    store.subscribe(encodePosition(mine.position));
    expect(client.subscribedFrom.slice(1)).toEqual(['start', mine.position]);
    // Idle while others write: only their new events are read, and the answer stays.
    log.push(...others(900));
    client.sent = 0;
    expect(await store.headPosition()).toBe(encodePosition(mine.position));
    expect(client.sent).toBe(901);
    // A new event of ours is found at once.
    const newer = event('shop-merchant-1');
    log.push(...others(5), newer);
    client.sent = 0;
    expect(await store.headPosition()).toBe(encodePosition(newer.position));
    expect(client.sent).toBe(1);
  });
});
