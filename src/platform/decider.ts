/**
 * The write-side shape every feature uses (emmett / decider pattern): a pure `decide` that
 * turns a command and the current state into new events, a pure `evolve` that folds events
 * into state, and an initial state. No Nest, no I/O, time and ids arrive in the command.
 */
import { DomainEvent } from './event-store/event-store.js';

export interface Decider<C, S, E extends DomainEvent> {
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
  initialState(): S;
}

export function fold<S, E extends DomainEvent>(decider: Pick<Decider<unknown, S, E>, 'evolve' | 'initialState'>, events: readonly E[]): S {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState());
}

/** Exhaustiveness check for switch statements over event and command unions. */
export function unreachable(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
