/**
 * Settings every connection to the embedded store's files takes (the store's own, the writer's,
 * the indexer's, the read-ahead's), passed to the worker threads in their workerData.
 *
 * Page cache: better-sqlite3 builds SQLite with 16 MB of page cache per connection and per
 * attached file (SQLITE_DEFAULT_CACHE_SIZE=-16000), where SQLite's own default is 2 MB. Five
 * such caches filled as the log grew, up to 80 MB outside the V8 heap that nothing gave back:
 * the bench's write phase read it as 19 of its 162 MB of RSS per 100,000 purchases. The log is
 * appended to and read in order, so a page is wanted again soon or never, and the operating
 * system's file cache holds the rest; measured (write-variant.mjs, two alternating pairs): the
 * threads' arenas stopped growing, and the writer thread's CPU per purchase did not move.
 */
export const PAGE_CACHE_PRAGMA = 'cache_size = -2000';
