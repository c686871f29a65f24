/** Watches a running service's event store: the event types of each commit, in order (for one-commit assertions). */
import type { EventStore } from '../../src/platform/event-store/event-store.js';

export function recordCommits(store: EventStore): { commits: string[][]; restore(): void } {
  const commits: string[][] = [];
  const append = store.append.bind(store);
  const appendMany = store.appendMany?.bind(store);
  store.append = async (stream, events, expected) => (commits.push(events.map((e) => e.type)), append(stream, events, expected));
  if (appendMany) store.appendMany = async (appends) => (commits.push(appends.flatMap((a) => a.events.map((e) => e.type))), appendMany(appends));
  return {
    commits,
    restore() {
      store.append = append;
      if (appendMany) store.appendMany = appendMany;
    },
  };
}
