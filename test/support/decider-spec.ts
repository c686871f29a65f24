/** given(events).when(command).then(events) for decider specs (emmett style). */
import { Decider, fold } from '../../src/platform/decider.js';
import { DomainEvent } from '../../src/platform/event-store/event-store.js';

export function given<C, S, E extends DomainEvent>(decider: Decider<C, S, E>, history: E[]) {
  return {
    when(command: C) {
      const run = () => decider.decide(command, fold(decider, history));
      return {
        then(expected: E[]): void {
          expect(run()).toEqual(expected);
        },
        thenThrows(errorClass: new (...args: never[]) => Error, message?: string | RegExp): void {
          expect(run).toThrow(errorClass);
          if (message) expect(run).toThrow(message);
        },
        /** For assertions on parts of the events (generated values, reasons). */
        events(): E[] {
          return run();
        },
      };
    },
  };
}
