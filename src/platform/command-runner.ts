/**
 * The generic write path every command handler uses: read the stream, fold it, decide,
 * append with the expected revision, and on a concurrent write start over. After a
 * successful append it waits for the read models (read-your-writes).
 *
 * Commands on the same stream take turns within this process (read, decide, append), so
 * they never race each other: the expected-revision check then only ever refuses a writer
 * in another process. Without the turns, many concurrent commands on one hot stream (an
 * advocate's reward ledger) could each lose every race and be refused. The turn ends at the
 * append; waiting for the read models happens outside it.
 *
 * Folded states are kept between commands (a bounded, least-recently-used cache per stream
 * name and decider) for streams written more than once, so a command on a stream this process
 * wrote recently neither reads nor folds its history again (an advocate's ledger grows with
 * every reward); streams a command creates are not kept until they are written again. The cache is only
 * ever trusted where the event store can refuse it: an append from a cached state carries
 * the cached revision as its expected revision, so a stale state (another process wrote)
 * fails the append and the command starts over from the store. A decision that appends
 * nothing or refuses the command is never taken on a cached state: it is taken again on the
 * stored history, since no append would check it. A stream the caller says is likely new is
 * treated the same way, as if its cached state were the initial one (no read before the append).
 */
import { Inject, Injectable } from '@nestjs/common';
import { Decider, fold } from './decider.js';
import { ConflictError } from './errors.js';
import { DomainEvent, EVENT_STORE, EventMetadata, type EventStore, RecordedEvent, WrongExpectedRevisionError } from './event-store/event-store.js';
import { ProjectionRunner } from './projections/projection-runner.js';

const MAX_ATTEMPTS = 10;
/** Streams whose folded state is kept; about 10,000 small states. */
export const STATE_CACHE_SIZE = 10_000;

interface CachedState {
  decider: unknown;
  state: unknown;
  /** Revision of the stream's last event the state includes. */
  revision: number;
}

export interface CommandResult<S, E extends DomainEvent> {
  /** State after the new events. */
  state: S;
  /** Events this command appended ([] when it decided nothing needed to change). */
  events: RecordedEvent<E>[];
  /** True when the stream did not exist before this command. */
  created: boolean;
}

export interface RunOptions {
  metadata?: EventMetadata;
  /** Skip the read-your-writes wait (background processes that answer nobody). */
  waitForReadModels?: boolean;
  /**
   * The stream is almost always new (named after an id this command has just made, or after a
   * key that is seldom repeated, such as an order id): decide on the initial state without
   * reading the stream. The append expects no stream, so if one exists after all the store
   * refuses it and the command starts over from the stored history, as with a stale cached state.
   */
  likelyNew?: boolean;
}

@Injectable()
export class CommandRunner {
  /** The last command queued on each stream; an entry is removed when its stream goes idle. */
  private readonly turns = new Map<string, Promise<unknown>>();
  /** Insertion order is recency: a hit is moved to the end, the first entry is evicted. */
  private readonly states = new Map<string, CachedState>();
  private cacheHits = 0;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly projections: ProjectionRunner,
  ) {}

  async run<C, S, E extends DomainEvent>(
    streamName: string,
    decider: Decider<C, S, E>,
    command: C,
    options: RunOptions = {},
  ): Promise<CommandResult<S, E>> {
    const previous = this.turns.get(streamName);
    const mine = (previous ? previous.then(noop, noop) : Promise.resolve()).then(() => this.decideAndAppend(streamName, decider, command, options));
    const settled = mine.then(noop, noop);
    this.turns.set(streamName, settled);
    void settled.then(() => {
      if (this.turns.get(streamName) === settled) this.turns.delete(streamName);
    });
    const { result, position } = await mine;
    if (position !== undefined && options.waitForReadModels !== false) await this.projections.waitFor(position);
    return result;
  }

  /** Commands whose state came from the cache rather than the event store (for tests and metrics). */
  get cachedStateHits(): number {
    return this.cacheHits;
  }

  private async decideAndAppend<C, S, E extends DomainEvent>(
    streamName: string,
    decider: Decider<C, S, E>,
    command: C,
    options: RunOptions,
  ): Promise<{ result: CommandResult<S, E>; position?: bigint }> {
    let cached = this.cachedState<S>(streamName, decider);
    let assumedNew = cached === undefined && options.likelyNew === true;
    if (assumedNew) cached = { state: decider.initialState(), revision: -1 };
    for (let attempt = 1; ; attempt += 1) {
      let state: S;
      let revision: number;
      if (cached) {
        ({ state, revision } = cached);
      } else {
        const history = (await this.store.readStream(streamName)) as unknown as RecordedEvent<E>[];
        state = fold(decider, history as unknown as E[]);
        revision = history.length === 0 ? -1 : history[history.length - 1].revision;
        if (revision >= 0) this.remember(streamName, decider, state, revision);
      }
      let decided: E[];
      try {
        decided = decider.decide(command, state);
      } catch (error) {
        if (!cached) throw error;
        decided = [];
      }
      if (decided.length === 0) {
        // Nothing to append, or a refusal: decide again on the stored history, which no append would check.
        if (cached) {
          cached = undefined;
          assumedNew = false;
          attempt -= 1;
          continue;
        }
        return { result: { state, events: [], created: false } };
      }
      try {
        const appended = await this.store.append(
          streamName,
          decided.map((event) => ({ type: event.type, data: event.data, metadata: options.metadata })),
          revision < 0 ? 'no_stream' : revision,
        );
        const next = decided.reduce((s, event) => decider.evolve(s, event), state);
        // A stream this command created is not kept: most are never written again (a purchase,
        // a reward). One that already existed is, as it is likely to be written again (a ledger).
        if (revision >= 0) this.remember(streamName, decider, next, appended.revision);
        if (cached && !assumedNew) this.cacheHits += 1;
        return {
          result: { state: next, events: appended.events as RecordedEvent<E>[], created: revision < 0 },
          position: appended.position,
        };
      } catch (error) {
        this.states.delete(streamName);
        cached = undefined;
        assumedNew = false;
        // Only another process can have written in between: read again and decide again.
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new ConflictError(['the resource was changed concurrently; try again']);
      }
    }
  }

  private cachedState<S>(streamName: string, decider: unknown): { state: S; revision: number } | undefined {
    const entry = this.states.get(streamName);
    if (!entry || entry.decider !== decider) return undefined;
    this.states.delete(streamName);
    this.states.set(streamName, entry);
    return { state: entry.state as S, revision: entry.revision };
  }

  private remember(streamName: string, decider: unknown, state: unknown, revision: number): void {
    this.states.delete(streamName);
    this.states.set(streamName, { decider, state, revision });
    if (this.states.size > STATE_CACHE_SIZE) this.states.delete(this.states.keys().next().value!);
  }
}

function noop(): void {}
