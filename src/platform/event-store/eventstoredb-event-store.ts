/**
 * EventStoreDB event store: the EventStore port on an EventStoreDB (KurrentDB) server through the
 * gRPC client @eventstore/db-client 6.x, in a stream namespace of its own. This module and its
 * siblings (eventstoredb-encoding.ts, -errors.ts, -paged-read.ts, -filtered-read.ts, -clients.ts)
 * own every import of the client but the storage lease's; the server facts they rely on are in
 * docs/architecture.md.
 */
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  START,
  StreamDeletedError,
  StreamNotFoundError,
  streamNameFilter,
  WrongExpectedVersionError,
  type AppendResult as EsdbAppendResult,
  type Filter,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
  type AllStreamResolvedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  RecordedEvent,
  Subscription,
  WrongExpectedRevisionError,
} from './event-store.js';
import { acquireClient } from './eventstoredb-clients.js';
import { readAllFiltered } from './eventstoredb-filtered-read.js';
import { readPages } from './eventstoredb-paged-read.js';
import { Clock } from '../clock.js';
import { ServiceUnavailableError } from '../errors.js';
import {
  RECORDED_AT,
  StreamOwnership,
  streamOwnership,
  encodePosition,
  decodePosition,
  asJson,
  canonicalId,
  streamReadPosition,
  recordedAt,
  withoutRecordedAt,
  toMetadata,
  parseBinary,
} from './eventstoredb-encoding.js';
import { unavailableOr, toExpectedRevision, refusesAppendFailures, toActual } from './eventstoredb-errors.js';

/** Default readAll batch, as in the embedded adapter. */
const BATCH = 1000;
/** Most events asked of one $all request (the server filters them to this store's streams). */
const PAGE = 500;
/** Stream deletions a retiring ephemeral store has under way at once. */
const DELETE_CONCURRENCY = 8;
/** Events asked of one filtered backward read for the head: the first is ours unless it is a system event type. */
const HEAD_PAGE = 10;
/**
 * Pauses before each reading back of an append (the first at once): a read that fails on the way
 * (the node lost the leadership, the connection dropped) is made again, as the client moves to
 * the new leader after such an error; a committed append must not be reported as failed.
 */
const READ_BACK_PAUSES_MS = [0, 50, 250, 1000];
const PING_TIMEOUT_MS = 5000;

export interface EventStoreDbOptions {
  /** Prefix for every stream name on the server; events of other streams are invisible. */
  namespace?: string;
  /**
   * Beginnings of stream names, after the namespace, that belong to other stores nested in it
   * (the live service's sandbox generations): their events are invisible too.
   */
  foreignStreams?: readonly string[];
  /**
   * The namespace is this store's alone and lives only while it is open (a sandbox generation):
   * close() deletes every stream it wrote, so that scavenging reclaims them.
   */
  ephemeral?: boolean;
  /**
   * The time events are recorded at, kept in their metadata (RECORDED_AT) and read back as their
   * time, instead of the server's: for suites that drive time with a manual clock. Absent: the server's.
   */
  clock?: Clock;
}

/** The newest event of a store's own, as `lastOwnEvent` finds it. */
interface OwnEvent {
  position: bigint;
  created: Date;
}

export class EventStoreDbEventStore implements EventStore {
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;
  /** The end of $all when a head lookup found no event of ours: none lies at or before it (`subscribe` starts there). */
  private emptyUpTo: bigint | undefined;
  /** Server names of the streams an ephemeral store wrote, deleted when it closes. */
  private readonly written: Set<string> | undefined;
  private readonly clock: Clock | undefined;

  private readonly ownership: StreamOwnership;

  private constructor(
    private readonly client: EventStoreDBClient,
    private readonly namespace: string,
    foreignStreams: readonly string[],
    /** Lets go of the client when the store closes (acquireClient: the last store on it disposes it). */
    private readonly releaseClient: () => Promise<void>,
    options: EventStoreDbOptions,
  ) {
    this.ownership = streamOwnership(namespace, foreignStreams);
    this.written = options.ephemeral === true ? new Set() : undefined;
    this.clock = options.clock;
  }

  /** The client connects lazily: the first operation (or ping) reaches the server. */
  static async connect(connectionString: string, options: EventStoreDbOptions = {}): Promise<EventStoreDbEventStore> {
    // With it, a refused append on servers from 21.10 reports its actual revision as 0 or 1
    // (the client's batch append), so WrongExpectedRevisionError.actual would be wrong.
    if (refusesAppendFailures(connectionString)) {
      throw new Error('EVENTSTORE_URL must not set throwOnAppendFailure=false: refused appends must throw');
    }
    const namespace = checkedNamespace(options);
    const lease = acquireClient(connectionString);
    return new EventStoreDbEventStore(lease.client, namespace, options.foreignStreams ?? [], lease.release, options);
  }

  /** On a client made elsewhere (the specs give one that answers like a server); closing the store disposes it. */
  static withClient(client: EventStoreDBClient, options: EventStoreDbOptions = {}): EventStoreDbEventStore {
    return new EventStoreDbEventStore(client, checkedNamespace(options), options.foreignStreams ?? [], () => client.dispose(), options);
  }

  async append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) throw new Error('the event store is closed');
    if (events.length === 0) throw new Error('append needs at least one event');
    const proposed = events.map((event) =>
      jsonEvent({
        id: event.id ?? randomUUID(),
        type: event.type,
        data: asJson(event.data, streamName, 'data'),
        metadata: asJson(this.clock ? { ...event.metadata, [RECORDED_AT]: this.clock.now().toISOString() } : (event.metadata ?? {}), streamName, 'metadata'),
      }),
    );
    this.written?.add(this.serverName(streamName));
    let result: EsdbAppendResult;
    try {
      result = await this.client.appendToStream(this.serverName(streamName), proposed, {
        expectedRevision: toExpectedRevision(expected),
      });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        throw new WrongExpectedRevisionError(streamName, expected, toActual(error.actualVersion));
      }
      throw unavailableOr(error);
    }
    // Only reachable with throwOnAppendFailure=false, which connect() refuses; kept as a guard.
    if (!result.success) {
      throw new WrongExpectedRevisionError(streamName, expected, toActual(result.nextExpectedRevision));
    }
    // The write result carries one position for the whole append, not one per event, so read
    // the new revisions back: that gives every event its own $all position and server timestamp.
    const last = result.nextExpectedRevision;
    const first = last - BigInt(events.length) + 1n;
    const recorded = await this.readBack(
      streamName,
      first,
      proposed.map((event) => event.id),
    );
    return { revision: Number(last), position: recorded[recorded.length - 1].position, events: recorded };
  }

  /** The events just appended from revision `first`, read back (ids in the server's form, compared in any case and hyphenation). */
  private async readBack(streamName: string, first: bigint, ids: readonly string[]): Promise<RecordedEvent[]> {
    let why = '';
    for (const pause of READ_BACK_PAUSES_MS) {
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      let recorded: RecordedEvent[];
      try {
        recorded = await this.readRevisions(streamName, first, ids.length);
      } catch (error) {
        // collectStream gives a NotLeaderError, UnavailableError or deadline as the service's 503.
        if (!(error instanceof ServiceUnavailableError)) throw error;
        why = (error as Error).message;
        continue;
      }
      if (recorded.length === ids.length) {
        if (recorded.some((event, i) => canonicalId(event.id) !== canonicalId(ids[i]))) {
          throw new Error(`stream ${streamName}: events read back from revision ${first} are not the ones appended`);
        }
        return recorded;
      }
      // Fewer than written: a node that does not have them all yet.
      why = `${recorded.length} of ${ids.length} events found`;
    }
    throw new Error(`stream ${streamName}: appended from revision ${first}, but not read back (${why})`);
  }

  async readStream(streamName: string): Promise<RecordedEvent[]> {
    const read = this.client.readStream(this.serverName(streamName), { direction: FORWARDS, fromRevision: START });
    return this.collectStream(read);
  }

  async readLastOfStream(streamName: string): Promise<RecordedEvent | undefined> {
    const read = this.client.readStream(this.serverName(streamName), { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
    const [last] = await this.collectStream(read);
    return last;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? BATCH;
    const out: RecordedEvent[] = [];
    if (maxCount <= 0) return out;
    // Everything at or below `seen` has been returned or skipped already.
    let seen = options.after ?? 0n;
    // The server sends only this store's streams; types are told apart here.
    const types = options.types ? new Set(options.types) : undefined;
    const from: ReadPosition = seen === 0n ? START : decodePosition(seen);
    // As many as are still wanted (one more: a read from a position includes the event there), when every one sent is kept.
    const ask = () => (types ? PAGE : Math.min(PAGE, maxCount - out.length + 1));
    try {
      await readPages(
        (at, count) => this.readOwn(FORWARDS, at, count),
        from,
        ask,
        (event) => {
          const position = encodePosition(event.position);
          if (position <= seen) return false;
          if (options.until !== undefined && position > options.until) return true;
          seen = position;
          if (!this.owns(event)) return false;
          if (types && !types.has(event.type)) return false;
          out.push(this.toRecorded(event, position));
          return out.length >= maxCount;
        },
      );
    } catch (error) {
      throw unavailableOr(error);
    }
    return out;
  }

  /** A read of $all that the server filters to this store's streams. */
  private readOwn(direction: typeof FORWARDS | typeof BACKWARDS, fromPosition: ReadPosition, maxCount: number): StreamingRead<AllStreamResolvedEvent> {
    return readAllFiltered(this.client, { direction, fromPosition, maxCount, filter: this.subscriptionFilter() });
  }

  subscribe(after?: bigint): Subscription {
    // From the start, the server would walk the whole shared log before the first live event; when
    // a head lookup (which every start-up runs) found nothing of ours up to some point, no event of
    // ours lies before it (a fresh namespace: a sandbox generation, a new deployment).
    const empty = this.emptyUpTo;
    const fromPosition: ReadPosition = after !== undefined && after !== 0n ? decodePosition(after) : empty !== undefined ? decodePosition(empty) : START;
    const stream = this.client.subscribeToAll({ fromPosition, filter: this.subscriptionFilter() });
    // The call starts now, not when the caller starts iterating: an error that arrives before then
    // (server unreachable) would be an 'error' event with no listener, which ends the process, and
    // the client only emits it (the stream stays open). Destroyed with it, the stream makes the
    // iteration below throw it, whenever that starts.
    stream.on('error', (error: Error) => {
      if (!stream.destroyed) stream.destroy(error);
    });
    const store = this;
    let closed = false;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        closed = true;
        store.subscriptions.delete(subscription);
        // unsubscribe() cancels the gRPC call, which ends the stream; destroying it as well ends
        // a for-await that is still waiting even if the call has not been established yet.
        const unsubscribing = stream.unsubscribe().catch(() => undefined);
        stream.destroy();
        await unsubscribing;
      })();
      return closing;
    };
    async function* iterate(): AsyncGenerator<RecordedEvent> {
      if (closed) return;
      try {
        for await (const resolved of stream) {
          if (closed) return;
          const event = resolved.event;
          if (!event || !store.owns(event)) continue;
          const position = encodePosition(event.position);
          if (after !== undefined && position <= after) continue;
          yield store.toRecorded(event, position);
        }
      } catch (error) {
        // Closing destroys the stream, which surfaces as a premature-close error here.
        if (!closed) throw unavailableOr(error);
      } finally {
        await close();
      }
    }
    const iterator = iterate();
    const subscription: Subscription = {
      [Symbol.asyncIterator]: () => iterator,
      close,
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<bigint> {
    return (await this.lastOwnEvent())?.position ?? 0n;
  }

  async lastEventTime(): Promise<Date | undefined> {
    return (await this.lastOwnEvent())?.created;
  }

  /**
   * The newest event of this store's namespace: one backward read of $all from its end that the
   * server filters to this store's streams, so that the traffic of other namespaces is never sent
   * here. Nothing of ours: the end of $all, read first, is remembered (`emptyUpTo`).
   */
  private async lastOwnEvent(): Promise<OwnEvent | undefined> {
    try {
      const top = await this.endOfLog();
      let found: OwnEvent | undefined;
      await readPages(
        (at, count) => this.readOwn(BACKWARDS, at, count),
        END,
        () => HEAD_PAGE,
        (event) => {
          // A system event type in one of our streams is not ours.
          if (!this.owns(event)) return false;
          found = { position: encodePosition(event.position), created: this.clock ? recordedAt(event) : event.created };
          return true;
        },
      );
      if (found !== undefined) return found;
      if (top !== undefined && (this.emptyUpTo === undefined || this.emptyUpTo < top)) this.emptyUpTo = top;
      return undefined;
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  /** The position of the last event of $all (anyone's), or undefined for an empty server. */
  private async endOfLog(): Promise<bigint | undefined> {
    for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 })) {
      if (resolved.event) return encodePosition(resolved.event.position);
    }
    return undefined;
  }

  async ping(): Promise<void> {
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const drained = (async () => {
      for await (const _ of read) {
        // at most one event; reading it proves the server answers
      }
    })();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`EventStoreDB did not answer within ${PING_TIMEOUT_MS} ms`));
      }, PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([drained, timeout]);
    } finally {
      clearTimeout(timer);
      if (timedOut) {
        // Not awaited: cancel() first waits for the call to be set up, which is what timed out.
        // Destroying the read ends the drain (with an error nobody needs) and frees it.
        drained.catch(() => undefined);
        read.destroy();
        void read.cancel().catch(() => undefined);
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    try {
      if (this.written) await this.deleteWritten(this.written);
    } finally {
      await this.releaseClient();
    }
  }

  /**
   * Deletes an ephemeral store's streams (soft deletes: scavenging then reclaims their events), a
   * few at a time. One that fails (the server is gone) stays: the store is closing either way.
   */
  private async deleteWritten(streams: Set<string>): Promise<void> {
    const queue = [...streams];
    const worker = async () => {
      for (let stream = queue.shift(); stream !== undefined; stream = queue.shift()) {
        await this.client.deleteStream(stream).catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, queue.length) }, worker));
  }

  private serverName(streamName: string): string {
    return `${this.namespace}${streamName}`;
  }

  /** Events of our namespace only, never nested foreign streams, system streams ($...) or system event types. */
  private owns(event: { streamId: string; type: string }): boolean {
    return this.ownership.owns(event.streamId, event.type);
  }

  private subscriptionFilter(): Filter {
    const { filter } = this.ownership;
    return 'regex' in filter ? streamNameFilter({ regex: filter.regex }) : streamNameFilter({ prefixes: filter.prefixes });
  }

  /** `count` events of one stream from revision `first`, with their $all positions. */
  private async readRevisions(streamName: string, first: bigint, count: number): Promise<RecordedEvent[]> {
    const read = this.client.readStream(this.serverName(streamName), {
      direction: FORWARDS,
      fromRevision: first,
      maxCount: count,
      // From the leader, which wrote them: a follower (nodePreference=follower, or the node the
      // client still holds after an election) may not have them yet, and a committed append would
      // then be reported as failed and retried by the caller.
      requiresLeader: true,
    });
    return this.collectStream(read);
  }

  private async collectStream(read: StreamingRead<{ event?: EsdbRecordedEvent }>): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of read) {
        const event = resolved.event;
        if (!event) continue;
        out.push(this.toRecorded(event, streamReadPosition(event)));
      }
    } catch (error) {
      // A deleted stream reads as an empty one; appending to it is refused (unavailableOr).
      if (error instanceof StreamNotFoundError || error instanceof StreamDeletedError) return [];
      throw unavailableOr(error);
    }
    return out;
  }

  private toRecorded(event: EsdbRecordedEvent, position: bigint): RecordedEvent {
    return {
      id: event.id,
      type: event.type,
      data: event.isJson ? event.data : parseBinary(event.data),
      metadata: this.clock ? withoutRecordedAt(toMetadata(event.metadata)) : toMetadata(event.metadata),
      streamName: event.streamId.slice(this.namespace.length),
      revision: Number(event.revision),
      position,
      createdAt: this.clock ? recordedAt(event) : event.created,
    };
  }
}

function checkedNamespace(options: EventStoreDbOptions): string {
  const namespace = options.namespace ?? '';
  if (namespace.startsWith('$')) throw new Error(`namespace must not start with '$' (system streams): ${namespace}`);
  return namespace;
}

export { decodePosition, encodePosition, streamOwnership } from './eventstoredb-encoding.js';
export type { StreamOwnership } from './eventstoredb-encoding.js';
export { refusesAppendFailures, unavailableOr } from './eventstoredb-errors.js';
