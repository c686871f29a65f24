/**
 * One EventStoreDB client per connection string in the process, shared by every store on it (the
 * live service, each sandbox generation, the lease) and disposed when the last one lets go. The
 * client library keeps its pending batch appends in one map for every client of the process: a
 * client disposed while another appends rejects that one's appends too (although the server
 * committed them), and the server's later answer then throws outside any promise.
 */
import { EventStoreDBClient } from '@eventstore/db-client';

interface Shared {
  client: EventStoreDBClient;
  users: number;
}

export interface ClientLease {
  client: EventStoreDBClient;
  /** Lets go of the client; the last lease disposes it and closes its connection. */
  release(): Promise<void>;
}

const shared = new Map<string, Shared>();

/** The client for `connectionString`, made on first use; `make` is for the specs, which give a fake one. */
export function acquireClient(connectionString: string, make = (url: string) => EventStoreDBClient.connectionString(url)): ClientLease {
  let entry = shared.get(connectionString);
  if (!entry) {
    entry = { client: make(connectionString), users: 0 };
    shared.set(connectionString, entry);
  }
  entry.users += 1;
  const held = entry;
  let released = false;
  return {
    client: held.client,
    async release() {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      shared.delete(connectionString);
      await disposeClient(held.client);
    },
  };
}

/** Cancels the client's calls, then closes its gRPC channel, which dispose() leaves open. */
async function disposeClient(client: EventStoreDBClient): Promise<void> {
  await client.dispose();
  // getChannel is the client's own (untyped) accessor; the channel exists once a call was made.
  const withChannel = client as unknown as { getChannel?: () => Promise<{ close(): void }> };
  const channel = await withChannel.getChannel?.().catch(() => undefined);
  channel?.close();
}
