import { MaxAppendSizeExceededError, NotLeaderError, StreamDeletedError, UnavailableError } from '@eventstore/db-client';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ManualClock } from '../clock.js';
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

  it.each(cases)(
    'namespace "$namespace" excluding $foreign: owns its streams, and the server filter lets exactly those through',
    ({ namespace, foreign, mine, notMine }) => {
      const ownership = streamOwnership(namespace, foreign);
      for (const streamId of mine) {
        expect([streamId, ownership.owns(streamId, 'PurchaseRecorded')]).toEqual([streamId, true]);
        expect([streamId, passes(ownership.filter, streamId)]).toEqual([streamId, true]);
      }
      for (const streamId of notMine) {
        expect([streamId, ownership.owns(streamId, 'PurchaseRecorded')]).toEqual([streamId, false]);
        expect([streamId, passes(ownership.filter, streamId)]).toEqual([streamId, false]);
      }
    },
  );

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
            if (failing)
              throw new NotLeaderError({ metadata: { getMap: () => ({ 'leader-endpoint-host': '10.0.0.2', 'leader-endpoint-port': '2113' }) } } as never);
            for (const [i, e] of list.entries()) {
              position += 10n;
              yield {
                event: {
                  ...e,
                  isJson: true,
                  streamId: stream,
                  revision: options.fromRevision + BigInt(i),
                  position: { commit: position, prepare: position },
                  created: new Date(0),
                },
              };
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
    const result = await store.append(
      's-1',
      [
        { type: 'A', data: { n: 1 } },
        { type: 'B', data: { n: 2 } },
      ],
      'no_stream',
    );
    expect(result.events.map((e) => e.type)).toEqual(['A', 'B']);
    expect(result.revision).toBe(1);
    expect(client.appends).toBe(1);
    expect(client.reads).toBe(3);
  });

  it("records events at the time of the clock it is given (for suites on a manual clock), and at the server's otherwise", async () => {
    const clock = new ManualClock(new Date('2026-03-05T10:00:00.000Z'));
    const timed = EventStoreDbEventStore.withClient(fakeClient() as never, { clock });
    const [event] = (await timed.append('s-1', [{ type: 'A', data: {}, metadata: { actor: 'x' } }], 'no_stream')).events;
    expect([event.createdAt.toISOString(), event.metadata]).toEqual(['2026-03-05T10:00:00.000Z', { actor: 'x' }]);
    const plain = EventStoreDbEventStore.withClient(fakeClient() as never);
    const [served] = (await plain.append('s-1', [{ type: 'A', data: {}, metadata: { actor: 'x' } }], 'no_stream')).events;
    // The fake server records everything at the epoch.
    expect([served.createdAt.toISOString(), served.metadata]).toEqual(['1970-01-01T00:00:00.000Z', { actor: 'x' }]);
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
    const stuck = await EventStoreDbEventStore.withClient(reads as never)
      .append('s-5', [{ type: 'A', data: {} }], 'no_stream')
      .catch((e: unknown) => e);
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
    const failing = {
      // eslint-disable-next-line require-yield -- a read that fails before its first event
      async *[Symbol.asyncIterator]() {
        throw down();
      },
      cancel: async () => undefined,
    };
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
    for (const expected of [-1, 1.5, Number.MAX_SAFE_INTEGER + 2])
      await expect(store.append('s-3', [{ type: 'A', data: {} }], expected)).rejects.toThrow(RangeError);
    expect(client.appends).toBe(0);
  });
});

describe('EventStoreDB adapter: reads of $all filtered by the server', () => {
  interface LogEvent {
    streamId: string;
    type: string;
    position: { commit: bigint; prepare: bigint };
    created: Date;
    data?: unknown;
  }
  type StreamFilter = { prefixes?: string[]; regex?: string };
  /**
   * A client whose readAll answers like a server: from a position (forwards: at or after it;
   * backwards: before it), in either direction, filtered by stream name when asked, counting the
   * events it sends and keeping every request.
   */
  function fakeClient(log: LogEvent[]) {
    const client = {
      sent: 0,
      requests: [] as { direction: string; maxCount: number; filter?: StreamFilter }[],
      subscribedFrom: [] as unknown[],
      deleted: [] as string[],
      subscribeToAll(options: { fromPosition: unknown }) {
        client.subscribedFrom.push(options.fromPosition);
        return { on: () => undefined, destroyed: false };
      },
      async deleteStream(stream: string) {
        client.deleted.push(stream);
        return { position: undefined };
      },
      async dispose() {},
      readAll(options: { direction: string; fromPosition: unknown; maxCount: number; filter?: StreamFilter }) {
        client.requests.push({ direction: options.direction, maxCount: options.maxCount, filter: options.filter });
        const from = options.fromPosition;
        const at = typeof from === 'object' && from !== null ? (from as { commit: bigint }).commit : undefined;
        const passes = (e: LogEvent) => {
          const f = options.filter;
          if (f === undefined) return true;
          return f.regex !== undefined ? new RegExp(f.regex).test(e.streamId) : (f.prefixes ?? []).some((p) => e.streamId.startsWith(p));
        };
        const ordered = options.direction === 'backwards' ? [...log].reverse() : log;
        const events = ordered
          .filter((e) => at === undefined || (options.direction === 'backwards' ? e.position.commit < at : e.position.commit >= at))
          .filter(passes)
          .slice(0, options.maxCount);
        let cancelled = false;
        return {
          async *[Symbol.asyncIterator]() {
            for (const event of events) {
              if (cancelled) return;
              client.sent += 1;
              yield { event: { ...event, isJson: true, data: event.data ?? {}, metadata: {}, revision: 0n, id: `id-${event.position.commit}` } };
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
  const event = (streamId: string, data?: unknown): LogEvent => {
    const at = next++;
    return {
      streamId,
      type: 'Something',
      data,
      position: { commit: at * 10n, prepare: at * 10n },
      created: new Date(Date.UTC(2026, 0, 1) + Number(at) * 1000),
    };
  };
  const others = (n: number) => Array.from({ length: n }, () => event('other-app-1'));

  it('finds the head of its namespace with one filtered read, however much other namespaces write', async () => {
    const log = [...others(1200)];
    const client = fakeClient(log);
    const store = EventStoreDbEventStore.withClient(client as never, { namespace: 'shop-', foreignStreams: ['sandbox-'] });
    // Empty namespace: the end of $all (one event) and a filtered read that finds nothing.
    expect(await store.headPosition()).toBe(0n);
    expect(client.sent).toBe(1);
    expect(client.requests.slice(1)).toEqual([{ direction: 'backwards', maxCount: 10, filter: expect.objectContaining({ regex: '^shop\\-(?!sandbox\\-)' }) }]);
    expect(await store.lastEventTime()).toBeUndefined();
    // Nothing of ours up to there: a subscription from the start begins there, not at the log's start.
    store.subscribe(0n);
    expect(client.subscribedFrom).toEqual([log[log.length - 1].position]);
    const mine = event('shop-merchant-1');
    log.push(mine, ...others(700), event('shop-sandbox-1-merchant-1'));
    client.sent = 0;
    expect(await store.headPosition()).toBe(encodePosition(mine.position));
    expect(await store.lastEventTime()).toEqual(mine.created);
    // Per lookup: the end of $all, and our one event.
    expect(client.sent).toBe(4);
    store.subscribe();
    expect(client.subscribedFrom.slice(1)).toEqual([log[1199].position]);
    // Heavy traffic of other namespaces is never sent here.
    log.push(...others(20_000));
    client.sent = 0;
    expect(await store.headPosition()).toBe(encodePosition(mine.position));
    expect(client.sent).toBe(2);
  });

  it('reads its events forwards with the filter, asking for no more than it wants (an audit lookup: one)', async () => {
    const log = [...others(50)];
    const mine = Array.from({ length: 5 }, (_, i) => event(`shop-s-${i}`, { i }));
    for (const e of mine) log.push(e, ...others(100));
    const client = fakeClient(log);
    const store = EventStoreDbEventStore.withClient(client as never, { namespace: 'shop-' });
    const position = encodePosition(mine[2].position);
    const [one] = await store.readAll({ after: position - 1n, until: position, maxCount: 1 });
    expect(one.data).toEqual({ i: 2 });
    expect(client.requests).toEqual([{ direction: 'forwards', maxCount: 2, filter: expect.objectContaining({ prefixes: ['shop-'] }) }]);
    expect(client.sent).toBe(1);
    client.sent = 0;
    expect((await store.readAll()).map((e) => e.data)).toEqual(mine.map((e) => e.data));
    expect(client.sent).toBe(5);
    // Only some types: filtered here, read a page at a time.
    client.requests.length = 0;
    expect(await store.readAll({ types: ['Other'], maxCount: 1 })).toEqual([]);
    expect(client.requests.map((r) => r.maxCount)).toEqual([500]);
  });

  it('deletes the streams an ephemeral store (a sandbox generation) wrote when it closes, and no other store deletes any', async () => {
    const streams = new Map<string, number>();
    let position = 10n;
    const client = {
      ...fakeClient([]),
      async appendToStream(stream: string, events: unknown[]) {
        streams.set(stream, (streams.get(stream) ?? 0) + events.length);
        return { success: true, nextExpectedRevision: BigInt(streams.get(stream)! - 1), position: { commit: position, prepare: position } };
      },
      readStream(stream: string, options: { fromRevision: bigint; maxCount: number }) {
        return {
          async *[Symbol.asyncIterator]() {
            for (let i = 0; i < options.maxCount; i += 1) {
              position += 10n;
              yield {
                event: {
                  id: `e${position}`,
                  type: 'T',
                  data: {},
                  metadata: {},
                  isJson: true,
                  streamId: stream,
                  revision: options.fromRevision + BigInt(i),
                  position: { commit: position, prepare: position },
                  created: new Date(0),
                },
              };
            }
          },
        };
      },
    };
    const generation = EventStoreDbEventStore.withClient(client as never, { namespace: 'live-sandbox-r-1-', ephemeral: true });
    const live = EventStoreDbEventStore.withClient({ ...client, deleted: [] as string[] } as never, { namespace: 'live-' });
    const append = (store: EventStoreDbEventStore, stream: string) => store.append(stream, [{ id: `e${position + 10n}`, type: 'T', data: {} }], 'any');
    for (const stream of ['merchant-1', 'widget-2', 'merchant-1', 'purchase-3']) await append(generation, stream);
    await append(live, 'merchant-9');
    await live.close();
    expect(client.deleted).toEqual([]);
    await generation.close();
    expect([...client.deleted].sort()).toEqual(['live-sandbox-r-1-merchant-1', 'live-sandbox-r-1-purchase-3', 'live-sandbox-r-1-widget-2']);
  });
});
