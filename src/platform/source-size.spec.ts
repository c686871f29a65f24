import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from '../../test/support/source-files.js';

// A file that passes a few hundred lines is usually two (docs/architecture.md); specs are exempt.
const MAX_LINES = 500;
const SRC = fileURLToPath(new URL('..', import.meta.url));

function lineCount(path: string): number {
  const text = readFileSync(path, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('source file size', () => {
  it('finds the source files under src/', () => {
    const found = sourceFiles(SRC).map((path) => relative(SRC, path));
    expect(found).toEqual(expect.arrayContaining(['main.ts', join('platform', 'event-store', 'sqlite-event-store.ts')]));
  });

  it(`keeps every source file under src/ at ${MAX_LINES} lines or fewer`, () => {
    const over = sourceFiles(SRC)
      .map((path) => ({ file: relative(SRC, path), lines: lineCount(path) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(over).toEqual([]);
  });
});
