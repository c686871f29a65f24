import { jest } from '@jest/globals';
import { acquireClient } from './eventstoredb-clients.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';

function fakeClient() {
  const channel = { close: jest.fn() };
  return { dispose: jest.fn(async () => undefined), getChannel: async () => channel, channel };
}

describe('EventStoreDB clients shared per connection string', () => {
  it('gives every user of one connection string the same client, and disposes it (and closes its channel) only when the last lets go', async () => {
    const made: ReturnType<typeof fakeClient>[] = [];
    const make = () => {
      made.push(fakeClient());
      return made[made.length - 1] as never;
    };
    const url = 'esdb://shared.example:2113?tls=false';
    const first = acquireClient(url, make);
    const second = acquireClient(url, make);
    const other = acquireClient('esdb://other.example:2113?tls=false', make);
    expect(made).toHaveLength(2);
    expect(second.client).toBe(first.client);
    await first.release();
    await first.release();
    expect(made[0].dispose).not.toHaveBeenCalled();
    await second.release();
    expect(made[0].dispose).toHaveBeenCalledTimes(1);
    expect(made[0].channel.close).toHaveBeenCalledTimes(1);
    expect(made[1].dispose).not.toHaveBeenCalled();
    // A later user gets a new client: the disposed one is gone from the registry.
    const again = acquireClient(url, make);
    expect(again.client).toBe(made[2]);
    await Promise.all([again.release(), other.release()]);
  });

  it('lets a store close (a sandbox generation retiring) without touching the client another store on the same server uses', async () => {
    const url = 'esdb://127.0.0.1:1?tls=false';
    const live = await EventStoreDbEventStore.connect(url, { namespace: 'live-' });
    const generation = await EventStoreDbEventStore.connect(url, { namespace: 'sandbox-1-' });
    const probe = acquireClient(url);
    await generation.close();
    await expect(generation.append('s-1', [{ type: 'A', data: {} }], 'any')).rejects.toThrow('the event store is closed');
    // Still the one client, not disposed: the live store's appends in flight are not cancelled.
    const still = acquireClient(url);
    expect(still.client).toBe(probe.client);
    await Promise.all([live.close(), probe.release(), still.release()]);
  });
});
