/** Paged reads of $all: each page starts at the last position of the one before. */
import type { AllStreamResolvedEvent, Position, ReadPosition, StreamingRead } from '@eventstore/db-client';

/** An event of a read of $all, with its position. */
export type AllStreamEvent = NonNullable<AllStreamResolvedEvent['event']>;

/**
 * Reads pages of `ask()` events from `from`, handing each event to `visit` until it returns true
 * (the page is then cancelled) or a page comes back short, which is the end of what the read sees.
 */
export async function readPages(
  read: (from: ReadPosition, maxCount: number) => StreamingRead<AllStreamResolvedEvent>,
  from: ReadPosition,
  ask: () => number,
  visit: (event: AllStreamEvent) => boolean,
): Promise<void> {
  for (;;) {
    const page = ask();
    const events = read(from, page);
    let count = 0;
    let last: Position | undefined;
    let done = false;
    try {
      for await (const resolved of events) {
        count += 1;
        const event = resolved.event;
        if (!event) continue;
        last = event.position;
        if (visit(event)) {
          done = true;
          break;
        }
      }
    } finally {
      if (done) await events.cancel();
    }
    if (done || count < page || last === undefined) return;
    from = last;
  }
}
