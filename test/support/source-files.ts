/** The repository's TypeScript sources, for tests that check the code's shape. */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every `.ts` file (not `.d.ts`) below `dir`, recursively. */
export function typeScriptSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...typeScriptSources(path));
    else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) out.push(path);
  }
  return out;
}
