import net from 'node:net';
import { EventStoreDbEventStore, streamOwnership } from './eventstoredb-event-store.js';

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
  });

  it('ping rejects when the server cannot be reached', async () => {
    const store = await EventStoreDbEventStore.connect(`esdb://127.0.0.1:${await closedPort()}?tls=false`);
    try {
      await expect(store.ping()).rejects.toThrow();
    } finally {
      await store.close();
    }
  });

  it('refuses a connection string that turns refused appends into results', async () => {
    await expect(EventStoreDbEventStore.connect('esdb://127.0.0.1:2113?tls=false&throwOnAppendFailure=false')).rejects.toThrow(/throwOnAppendFailure/);
  });
});
