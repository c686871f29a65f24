/**
 * The filtered read of $all on the wire: the client's own gRPC call against a fake Streams
 * service on 127.0.0.1, which records the request the server would get.
 */
import { createRequire } from 'node:module';
import { BACKWARDS, END, EventStoreDBClient, FORWARDS, START, streamNameFilter } from '@eventstore/db-client';
import { readAllFiltered } from './eventstoredb-filtered-read.js';

const require = createRequire(import.meta.url);
// The gRPC library and generated service the client itself uses.
const grpc = require('@grpc/grpc-js');
const { StreamsService } = require('@eventstore/db-client/generated/streams_grpc_pb');

describe('EventStoreDB filtered $all read on the wire', () => {
  let server: { tryShutdown(callback: () => void): void };
  let port: number;
  const requests: any[] = [];

  beforeAll(async () => {
    const s = new grpc.Server();
    s.addService(StreamsService, {
      read(call: { request: unknown; end(): void }) {
        requests.push(call.request);
        call.end();
      },
    });
    port = await new Promise<number>((resolve, reject) =>
      s.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error: Error | null, bound: number) => (error ? reject(error) : resolve(bound))),
    );
    server = s;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  it("sends the stream-name filter, the count and the direction in the Read request, which the client's own readAll does not", async () => {
    const client = EventStoreDBClient.connectionString`esdb://127.0.0.1:${String(port)}?tls=false`;
    try {
      const read = async (options: Parameters<typeof readAllFiltered>[1]) => {
        for await (const _ of readAllFiltered(client, options)) {
          // the fake server sends no event
        }
        return requests[requests.length - 1].getOptions();
      };
      const prefixed = await read({ direction: BACKWARDS, fromPosition: END, maxCount: 10, filter: streamNameFilter({ prefixes: ['shop-sandbox-r-1-'] }) });
      expect(prefixed.getFilter().getStreamIdentifier().getPrefixList()).toEqual(['shop-sandbox-r-1-']);
      expect([prefixed.getCount(), prefixed.getReadDirection(), prefixed.hasNoFilter(), prefixed.getAll().hasEnd()]).toEqual(['10', 1, false, true]);
      const regex = await read({
        direction: FORWARDS,
        fromPosition: { commit: 5n, prepare: 3n },
        maxCount: 2,
        filter: streamNameFilter({ regex: '^shop\\-(?!sandbox\\-)' }),
      });
      expect(regex.getFilter().getStreamIdentifier().getRegex()).toBe('^shop\\-(?!sandbox\\-)');
      expect([
        regex.getCount(),
        regex.getReadDirection(),
        regex.getAll().getPosition().getCommitPosition(),
        regex.getAll().getPosition().getPreparePosition(),
      ]).toEqual(['2', 0, '5', '3']);
      const fromStart = await read({ direction: FORWARDS, fromPosition: START, maxCount: 1, filter: streamNameFilter({ prefixes: ['a-'] }) });
      expect(fromStart.getAll().hasStart()).toBe(true);
      // The client's own readAll, for comparison: no filter goes out.
      for await (const _ of client.readAll({ direction: FORWARDS, fromPosition: START, maxCount: 1 })) {
        // nothing
      }
      expect(requests[requests.length - 1].getOptions().hasNoFilter()).toBe(true);
    } finally {
      await client.dispose();
    }
  });
});
