/**
 * The generic write path every command handler uses: read the stream, fold it, decide,
 * append with the expected revision, and on a concurrent write start over. After a
 * successful append it waits for the read models (read-your-writes). A command that appends
 * nothing (a repeat of what is already so) or a plan abandoned as moot waits too, for the
 * stream's last event its decision read: what it answers is then at least as new as the state it
 * decided on, never older (another request's approval still on its way to the read models).
 * Where the command appends, its own events come later in the log than any it read, so the
 * wait for them covers those too: the write path waits no more than before. The position comes
 * from the stream as read, or kept with its folded state: both stores give an event read from its
 * stream its global position (EventStoreDB from server 22.6, which its adapter requires).
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
 *
 * `runTogether` decides several streams as one plan (a purchase, the advocate's ledger, the
 * reward) and commits them at once where the store can.
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
  /** Global position of that event: what a decision on the state waits for when it appends nothing. */
  position: bigint;
}

interface KnownState<S> {
  state: S;
  revision: number;
  /** Global position of the stream's last event the state includes (none for an initial or the caller's state). */
  position: bigint | undefined;
  /** From the cache (false: the initial state of a stream assumed new, or the caller's `known`). */
  kept: boolean;
}

/** The latest global position among the stream states a command or plan decided on (none: only initial states). */
interface Seen {
  position: bigint | undefined;
}

function see(seen: Seen, position: bigint | undefined): void {
  if (position !== undefined && (seen.position === undefined || position > seen.position)) seen.position = position;
}

/**
 * Thrown inside a `runTogether` plan that finds its work moot (the main stream decided nothing):
 * nothing of the plan is committed, the other streams' decisions included. `unlessAbandoned`
 * turns it into `undefined` for the caller. It reaches the caller only once the read models show
 * the states the plan decided on, as a plan that decides nothing does.
 */
export class PlanAbandoned extends Error {}

/** The plan's result, or undefined when it threw PlanAbandoned; any other failure passes on. */
export async function unlessAbandoned<T>(plan: Promise<T>): Promise<T | undefined> {
  try {
    return await plan;
  } catch (error) {
    if (error instanceof PlanAbandoned) return undefined;
    throw error;
  }
}

/** One stream's decision inside `runTogether`: the events decided (not yet appended). */
export type PlanStep = <C, S, E extends DomainEvent>(
  streamName: string,
  decider: Decider<C, S, E>,
  command: C,
  options?: Pick<RunOptions, 'likelyNew'>,
) => Promise<E[]>;

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
  /**
   * The stream's state as the caller just folded it from the stored history, with the revision
   * of the last event it includes: decided on without reading the stream again, like a kept
   * state (the append expects that revision; if the stream moved on since, the store refuses it
   * and the command starts over from the stored history). The caller vouches that `state` is
   * this decider's fold of the stream up to `revision`.
   */
  known?: { state: unknown; revision: number };
}

@Injectable()
export class CommandRunner {
  /** The end of the last turn queued on each stream; an entry is removed when its stream goes idle. */
  private readonly turns = new Map<string, Promise<void>>();
  /** Insertion order is recency: a hit is moved to the end, the first entry is evicted. */
  private readonly states = new Map<string, CachedState>();
  private cacheHits = 0;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly projections: ProjectionRunner,
  ) {}

  async run<C, S, E extends DomainEvent>(streamName: string, decider: Decider<C, S, E>, command: C, options: RunOptions = {}): Promise<CommandResult<S, E>> {
    const { result, position } = await this.runInTurn(streamName, decider, command, options);
    if (position !== undefined && options.waitForReadModels !== false) await this.projections.waitFor(position);
    return result;
  }

  /**
   * `run` without the wait for the read models. The position is the last event appended, or when
   * nothing was, the stream's last event the decision read (none when the stream does not exist).
   */
  private async runInTurn<C, S, E extends DomainEvent>(
    streamName: string,
    decider: Decider<C, S, E>,
    command: C,
    options: RunOptions,
  ): Promise<{ result: CommandResult<S, E>; position?: bigint }> {
    const release = await this.takeTurn(streamName);
    try {
      return await this.decideAndAppend(streamName, decider, command, options);
    } finally {
      release();
    }
  }

  /**
   * Several streams decided together and appended in one atomic commit where the store can
   * (`appendMany`); on a store that cannot, each step is run on its own, as `run` does, when the
   * plan takes it. `plan` takes its steps through `step`, which returns the events decided for
   * that stream (a refusal throws out of `step`, as out of `run`). On the atomic path each step
   * takes its stream's turn and keeps it until the commit, so plans must take streams in one
   * order of their kinds (a purchase, then a ledger, then a reward) or two of them could wait
   * for each other. The whole plan runs again from the stored histories when a stream's
   * expected revision is refused, so it must have no effect but through `step`.
   *
   * The returned position is the last event appended (none when nothing was). A plan that
   * appends nothing, or is abandoned (PlanAbandoned), waits for the latest of the streams' last
   * events its steps decided on.
   */
  async runTogether<T>(plan: (step: PlanStep) => Promise<T>, options: Omit<RunOptions, 'known'> = {}): Promise<{ value: T; position?: bigint }> {
    const wait = async (position: bigint | undefined) => {
      if (position !== undefined && options.waitForReadModels !== false) await this.projections.waitFor(position);
    };
    // Appended or decided on by the plan's steps, across attempts: positions only grow.
    const seen: Seen = { position: undefined };
    if (!this.store.appendMany) {
      let last: bigint | undefined;
      let value: T;
      try {
        value = await plan(
          async <C, S, E extends DomainEvent>(streamName: string, decider: Decider<C, S, E>, command: C, stepOptions?: Pick<RunOptions, 'likelyNew'>) => {
            const { result, position } = await this.runInTurn(streamName, decider, command, { ...options, ...stepOptions });
            see(seen, position);
            if (result.events.length > 0) last = result.events[result.events.length - 1].position;
            return result.events as unknown as E[];
          },
        );
      } catch (error) {
        // The steps taken before it were appended one by one: the caller answers after them.
        if (error instanceof PlanAbandoned) await wait(seen.position);
        throw error;
      }
      await wait(seen.position);
      return { value, position: last };
    }
    for (let attempt = 1; ; attempt += 1) {
      const decisions: { streamName: string; decider: Decider<unknown, unknown, DomainEvent>; state: unknown; revision: number; events: DomainEvent[] }[] = [];
      const releases: (() => void)[] = [];
      const taken = new Set<string>();
      // The plan's value and its append, or the plan abandoned (waited for once the turns are released).
      let outcome: { value: T; position?: bigint } | PlanAbandoned;
      try {
        const value = await plan(async (streamName, decider, command, stepOptions) => {
          // Its own turn would never come.
          if (taken.has(streamName)) throw new Error(`a plan decides stream ${streamName} once`);
          taken.add(streamName);
          releases.push(await this.takeTurn(streamName));
          // A retry reads every stream: the kept or assumed state of one of them was refused.
          const known = attempt > 1 ? undefined : this.knownState(streamName, decider, stepOptions?.likelyNew === true);
          const decided = await this.decideOn(streamName, decider, command, known);
          see(seen, decided.position);
          if (decided.events.length > 0) decisions.push({ streamName, decider: decider as Decider<unknown, unknown, DomainEvent>, ...decided });
          return decided.events;
        });
        if (decisions.length === 0) {
          outcome = { value };
        } else {
          const results = await this.store.appendMany(
            decisions.map((d) => ({
              streamName: d.streamName,
              events: d.events.map((event) => ({ type: event.type, data: event.data, metadata: options.metadata })),
              expected: d.revision < 0 ? 'no_stream' : d.revision,
            })),
          );
          decisions.forEach((d, i) => {
            if (d.revision >= 0)
              this.remember(
                d.streamName,
                d.decider,
                d.events.reduce((state, event) => d.decider.evolve(state, event), d.state),
                results[i].revision,
                results[i].position,
              );
          });
          outcome = { value, position: results[results.length - 1].position };
        }
      } catch (error) {
        for (const d of decisions) this.states.delete(d.streamName);
        if (error instanceof PlanAbandoned) {
          outcome = error;
        } else {
          if (!(error instanceof WrongExpectedRevisionError)) throw error;
          if (attempt >= MAX_ATTEMPTS) throw new ConflictError(['the resource was changed concurrently; try again']);
          continue;
        }
      } finally {
        for (const release of releases) release();
      }
      if (outcome instanceof PlanAbandoned) {
        await wait(seen.position);
        throw outcome;
      }
      // Appended: the plan's own events come after every one its steps read.
      await wait(outcome.position ?? seen.position);
      return outcome;
    }
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
    let known: KnownState<S> | undefined = options.known
      ? { state: options.known.state as S, revision: options.known.revision, position: undefined, kept: false }
      : this.knownState<S>(streamName, decider, options.likelyNew === true);
    for (let attempt = 1; ; attempt += 1) {
      const { state, revision, position, events: decided, kept } = await this.decideOn(streamName, decider, command, known);
      // Decided nothing on the stored history: the answer waits for its last event (another
      // request's, maybe, whose own wait for the read models is not over).
      if (decided.length === 0) return { result: { state, events: [], created: false }, position };
      try {
        const appended = await this.store.append(
          streamName,
          decided.map((event) => ({ type: event.type, data: event.data, metadata: options.metadata })),
          revision < 0 ? 'no_stream' : revision,
        );
        const next = decided.reduce((s, event) => decider.evolve(s, event), state);
        // A stream this command created is not kept: most are never written again (a purchase,
        // a reward). One that already existed is, as it is likely to be written again (a ledger).
        if (revision >= 0) this.remember(streamName, decider, next, appended.revision, appended.position);
        if (kept) this.cacheHits += 1;
        return {
          result: { state: next, events: appended.events as RecordedEvent<E>[], created: revision < 0 },
          position: appended.position,
        };
      } catch (error) {
        this.states.delete(streamName);
        known = undefined;
        // Only another process can have written in between: read again and decide again.
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new ConflictError(['the resource was changed concurrently; try again']);
      }
    }
  }

  /** The state a command may be decided on without reading the stream: kept, or the initial one of a likely new stream. */
  private knownState<S>(streamName: string, decider: Decider<unknown, S, DomainEvent>, likelyNew: boolean): KnownState<S> | undefined {
    const cached = this.cachedState<S>(streamName, decider);
    // Spelled out: { ...cached, kept: true } adds a property, which V8 copies on its slow path (0.6 µs).
    if (cached) return { state: cached.state, revision: cached.revision, position: cached.position, kept: true };
    return likelyNew ? { state: decider.initialState(), revision: -1, position: undefined, kept: false } : undefined;
  }

  /**
   * Decides on the known state when it gives events to append (the append's expected revision
   * then checks that state); otherwise, and without a known state, on the stored history: a
   * refusal or a decision to append nothing is never taken on a state no append would check.
   * `position` is that of the stream's last event in the state decided on (none: no event).
   */
  private async decideOn<C, S, E extends DomainEvent>(
    streamName: string,
    decider: Decider<C, S, E>,
    command: C,
    known: KnownState<S> | undefined,
  ): Promise<{ state: S; revision: number; position: bigint | undefined; events: E[]; kept: boolean }> {
    if (known) {
      let decided: E[] = [];
      try {
        decided = decider.decide(command, known.state);
      } catch {
        // refused on the known state: decide again on the stored history below
      }
      if (decided.length > 0) return { state: known.state, revision: known.revision, position: known.position, events: decided, kept: known.kept };
    }
    const history = (await this.store.readStream(streamName)) as unknown as RecordedEvent<E>[];
    const state = fold(decider, history as unknown as E[]);
    const last = history.length === 0 ? undefined : history[history.length - 1];
    const revision = last === undefined ? -1 : last.revision;
    if (last !== undefined) this.remember(streamName, decider, state, revision, last.position);
    return { state, revision, position: last?.position, events: decider.decide(command, state), kept: false };
  }

  /** Waits for the stream's earlier commands, then holds its turn until the returned release is called. */
  private async takeTurn(streamName: string): Promise<() => void> {
    const previous = this.turns.get(streamName);
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.turns.set(streamName, done);
    void done.then(() => {
      if (this.turns.get(streamName) === done) this.turns.delete(streamName);
    });
    if (previous) await previous;
    return release;
  }

  /** Drops every kept state: after an erasure, states folded from the values it erased are read again. */
  forgetKeptStates(): void {
    this.states.clear();
  }

  private cachedState<S>(streamName: string, decider: unknown): { state: S; revision: number; position: bigint } | undefined {
    const entry = this.states.get(streamName);
    if (!entry || entry.decider !== decider) return undefined;
    this.states.delete(streamName);
    this.states.set(streamName, entry);
    return { state: entry.state as S, revision: entry.revision, position: entry.position };
  }

  private remember(streamName: string, decider: unknown, state: unknown, revision: number, position: bigint): void {
    this.states.delete(streamName);
    this.states.set(streamName, { decider, state, revision, position });
    if (this.states.size > STATE_CACHE_SIZE) this.states.delete(this.states.keys().next().value!);
  }
}
