/** The service's source files, for specs that read the code itself. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every `.ts` file under `dir`, specs left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}
