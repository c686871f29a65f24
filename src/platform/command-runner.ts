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
 */
import { Inject, Injectable } from '@nestjs/common';
import { Decider, fold } from './decider.js';
import { ConflictError } from './errors.js';
import { DomainEvent, EVENT_STORE, EventMetadata, type EventStore, RecordedEvent, WrongExpectedRevisionError } from './event-store/event-store.js';
import { ProjectionRunner } from './projections/projection-runner.js';

const MAX_ATTEMPTS = 10;

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
}

@Injectable()
export class CommandRunner {
  /** The last command queued on each stream; an entry is removed when its stream goes idle. */
  private readonly turns = new Map<string, Promise<unknown>>();

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

  private async decideAndAppend<C, S, E extends DomainEvent>(
    streamName: string,
    decider: Decider<C, S, E>,
    command: C,
    options: RunOptions,
  ): Promise<{ result: CommandResult<S, E>; position?: bigint }> {
    for (let attempt = 1; ; attempt += 1) {
      const history = (await this.store.readStream(streamName)) as unknown as RecordedEvent<E>[];
      const state = fold(decider, history as unknown as E[]);
      const decided = decider.decide(command, state);
      if (decided.length === 0) return { result: { state, events: [], created: false } };
      const expected = history.length === 0 ? 'no_stream' : history[history.length - 1].revision;
      try {
        const appended = await this.store.append(
          streamName,
          decided.map((event) => ({ type: event.type, data: event.data, metadata: options.metadata })),
          expected,
        );
        return {
          result: {
            state: decided.reduce((s, event) => decider.evolve(s, event), state),
            events: appended.events as RecordedEvent<E>[],
            created: history.length === 0,
          },
          position: appended.position,
        };
      } catch (error) {
        // Only another process can have written in between: read again and decide again.
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new ConflictError(['the resource was changed concurrently; try again']);
      }
    }
  }
}

function noop(): void {}
