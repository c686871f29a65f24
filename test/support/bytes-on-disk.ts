/**
 * What a test of erasure asserts about the disk: which files still hold a personal value, in any
 * form a store could keep it (the raw bytes of every file under a directory, so also SQLite's
 * free pages, its -wal and -shm, and files a store keeps beside its own).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every file under `dir` (recursively) whose bytes hold any needle as UTF-8, base64url or base64,
 * as `path: needle (form)`. The encoded forms are those of the needle encoded on its own (as a
 * stream name held an address), not of a longer text it is part of.
 */
export function filesContaining(dir: string, needles: readonly string[]): string[] {
  const forms = needles.flatMap((needle) => {
    const utf8 = Buffer.from(needle, 'utf8');
    const encoded = [
      { form: 'utf8', bytes: utf8 },
      { form: 'base64url', bytes: Buffer.from(utf8.toString('base64url')) },
      { form: 'base64', bytes: Buffer.from(utf8.toString('base64')) },
    ];
    // The same form twice (a needle whose base64 has no + / or padding) is reported once.
    return encoded.filter((e, i) => encoded.findIndex((o) => o.bytes.equals(e.bytes)) === i).map((e) => ({ needle, ...e }));
  });
  const found: string[] = [];
  for (const path of filesUnder(dir)) {
    const bytes = readFileSync(path);
    for (const { needle, form, bytes: sought } of forms) if (bytes.includes(sought)) found.push(`${path}: ${needle} (${form})`);
  }
  return found;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}
