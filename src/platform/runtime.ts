/** The Node versions the service runs on (docs/operations.md, "Node versions"). */

/** A start refused for the runtime it was given: its message says what to run instead. */
export class UnsupportedRuntimeError extends Error {}

/**
 * better-sqlite3 12, the last line that builds on Node 20, aborts the process on Node 24 when a
 * worker thread that used it ends (its statements outlive the thread's environment): refused
 * with a clear line instead of a native crash. `serverEventStore`: EVENTSTORE_URL is set.
 */
export function refuseUnsupportedNode(version: string, serverEventStore: boolean): void {
  const major = Number(version.split('.')[0]);
  if (major >= 24 && !serverEventStore) {
    throw new UnsupportedRuntimeError(
      `refusing to start: Node ${version} is not supported with the embedded store (better-sqlite3 12 aborts on Node 24); run Node 22 or 20`,
    );
  }
}
