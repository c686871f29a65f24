/**
 * The writer's group commit when SQLite fails inside a batch, on the store's own schema: a
 * failure that SQLite answers by rolling the whole transaction back (a full disk, here a page
 * limit standing in for one) fails the whole batch, and nothing of it is committed; no caller is
 * told "failed" for an append the file holds.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from './sqlite-event-store.js';
import { AppendJob, makeWriter } from './sqlite-writer.js';

describe('SQLite writer: a batch SQLite rolls back', () => {
  let dir: string;
  let db: Database.Database;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-writer-'));
    const path = join(dir, 'events.sqlite');
    await new SqliteEventStore({ path }).close(); // the store's own schema
    db = new Database(path);
    db.pragma('journal_mode = WAL');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const job = (stream: string, id: string, size = 10): AppendJob => ({
    createdAt: '2026-11-25T12:00:00.000Z',
    parts: [{ stream, expected: 'no_stream', events: [{ id, type: 'T', data: JSON.stringify('x'.repeat(size)), metadata: '{}' }] }],
  });
  const streams = () => (db.prepare('SELECT stream FROM events ORDER BY position').all() as { stream: string }[]).map((r) => r.stream);

  it('fails the whole batch, committing none of it, when one append fills the disk', () => {
    const write = makeWriter(db);
    db.pragma(`max_page_count = ${(db.pragma('page_count', { simple: true }) as number) + 8}`);
    // The second append does not fit: SQLite rolls the transaction back, with the first append in it.
    expect(() => write([job('a', 'id-a'), job('big', 'id-big', 200_000), job('c', 'id-c'), job('d', 'id-d')])).toThrow();
    expect(db.inTransaction).toBe(false);
    db.pragma('max_page_count = 1073741823');
    // Neither the appends before it nor those after it are in the file: every caller was told "failed", truly.
    expect(streams()).toEqual([]);
    // The next batch writes as usual.
    expect(write([job('c', 'id-c2')]).map((o) => o.ok)).toEqual([true]);
    expect(streams()).toEqual(['c']);
  });

  it('reports a repeated event id as a failure, not as a revision another writer took', () => {
    const write = makeWriter(db);
    expect(write([job('s-1', 'same-id')])[0].ok).toBe(true);
    const [outcome] = write([job('s-2', 'same-id')]);
    expect(outcome).toMatchObject({ ok: false, code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(outcome).not.toHaveProperty('part');
  });
});
