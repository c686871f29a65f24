/**
 * A read of EventStoreDB's $all that the server filters by stream name: the gRPC Read call with
 * its `filter` option, which the protocol (streams.proto ReadReq.Options.FilterOptions) offers
 * for reads as for subscriptions. Client 6.2.1's `readAll` always sends "no filter"
 * (dist/streams/readAll.js), so the request is built here the way that file builds it, with the
 * filter built as dist/streams/subscribeToAll.js builds a subscription's. A client that is not
 * that library's (the specs' fakes, or a later client whose readAll takes a filter) is asked
 * through its own `readAll` with the filter among the options.
 */
import { createRequire } from 'node:module';
import { EventStoreDBClient, FORWARDS, START, type Filter, type ReadPosition, type AllStreamResolvedEvent, type StreamingRead } from '@eventstore/db-client';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any -- the client's generated protobuf classes and internals, untyped here */
const sharedPb = require('@eventstore/db-client/generated/shared_pb') as any;
const streamsPb = require('@eventstore/db-client/generated/streams_pb') as any;
const streamsGrpcPb = require('@eventstore/db-client/generated/streams_grpc_pb') as any;
const { ReadStream } = require('@eventstore/db-client/dist/streams/utils/ReadStream') as any;
const { convertGrpcEvent } = require('@eventstore/db-client/dist/utils/convertGrpcEvent') as any;

export interface FilteredReadOptions {
  direction: typeof FORWARDS | 'backwards';
  fromPosition: ReadPosition;
  maxCount: number;
  /** By stream name (streamNameFilter): prefixes or a regular expression. */
  filter: Filter;
}

/** The client's own readAll, to tell it from a fake's or a later client's. */
const libraryReadAll = EventStoreDBClient.prototype.readAll;

export function readAllFiltered(client: EventStoreDBClient, options: FilteredReadOptions): StreamingRead<AllStreamResolvedEvent> {
  if (client.readAll !== libraryReadAll) return client.readAll(options as Parameters<EventStoreDBClient['readAll']>[0] & { filter: Filter });
  const { direction, fromPosition, maxCount, filter } = options;
  const req = new streamsPb.ReadReq();
  const opts = new streamsPb.ReadReq.Options();
  const uuidOption = new streamsPb.ReadReq.Options.UUIDOption();
  uuidOption.setString(new sharedPb.Empty());
  const all = new streamsPb.ReadReq.Options.AllOptions();
  if (fromPosition === START) all.setStart(new sharedPb.Empty());
  else if (fromPosition === 'end') all.setEnd(new sharedPb.Empty());
  else {
    const position = new streamsPb.ReadReq.Options.Position();
    position.setCommitPosition(fromPosition.commit.toString(10));
    position.setPreparePosition(fromPosition.prepare.toString(10));
    all.setPosition(position);
  }
  opts.setAll(all);
  opts.setResolveLinks(false);
  opts.setCount(String(maxCount));
  opts.setUuidOption(uuidOption);
  opts.setFilter(filterOptions(filter));
  opts.setReadDirection(direction === FORWARDS ? 0 : 1);
  req.setOptions(opts);
  const internals = client as unknown as {
    GRPCStreamCreator: (Client: unknown, name: string, creator: (grpc: any) => unknown) => () => Promise<unknown>;
    callArguments: (options: object, callOptions: object) => unknown[];
  };
  const createGRPCStream = internals.GRPCStreamCreator(streamsGrpcPb.StreamsClient, 'readAll', (grpc) =>
    grpc.read(req, ...internals.callArguments({}, { deadline: Infinity })),
  );
  return new ReadStream(createGRPCStream, convertGrpcEvent, {}) as StreamingRead<AllStreamResolvedEvent>;
}

/** The filter as a request's FilterOptions, on the stream name, its search window the count asked for. */
export function filterOptions(filter: Filter): unknown {
  const expression = new streamsPb.ReadReq.Options.FilterOptions.Expression();
  if ('prefixes' in filter && filter.prefixes) expression.setPrefixList(filter.prefixes);
  if ('regex' in filter && filter.regex) expression.setRegex(filter.regex);
  const options = new streamsPb.ReadReq.Options.FilterOptions();
  options.setStreamIdentifier(expression);
  options.setCount(new sharedPb.Empty());
  options.setCheckpointintervalmultiplier(1);
  return options;
}
