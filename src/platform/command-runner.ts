/**
 * The generic write path every command handler uses: read the stream, fold it, decide,
 * append with the expected revision, and on a concurrent write start over. After a
 * successful append it waits for the read models (read-your-writes).
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
    for (let attempt = 1; ; attempt += 1) {
      const history = (await this.store.readStream(streamName)) as unknown as RecordedEvent<E>[];
      const state = fold(decider, history as unknown as E[]);
      const decided = decider.decide(command, state);
      if (decided.length === 0) return { state, events: [], created: false };
      const expected = history.length === 0 ? 'no_stream' : history[history.length - 1].revision;
      try {
        const result = await this.store.append(
          streamName,
          decided.map((event) => ({ type: event.type, data: event.data, metadata: options.metadata })),
          expected,
        );
        if (options.waitForReadModels !== false) await this.projections.waitFor(result.position);
        return {
          state: decided.reduce((s, event) => decider.evolve(s, event), state),
          events: result.events as RecordedEvent<E>[],
          created: history.length === 0,
        };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new ConflictError(['the resource was changed concurrently; try again']);
      }
    }
  }
}
