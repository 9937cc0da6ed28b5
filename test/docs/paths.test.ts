/**
 * Every file of this repository the docs name (`src/…`, `test/…`, `bench/…` in README.md,
 * CONTRIBUTING.md and docs/*.md) exists: a module moved or removed fails here, not in a reader's
 * hands. A `.js` name in a code example is the `.ts` module it is built from.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PATH = /(?<![\w./-])(?:src|test|bench)\/[\w./-]*[\w-]\.(?:ts|js|md|py|json|sh)\b/g;

function pages(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs];
}

function exists(path: string): boolean {
  return (
    existsSync(join(root, path)) ||
    (path.endsWith('.js') && existsSync(join(root, path.replace(/\.js$/, '.ts'))))
  );
}

it('names only files that exist', () => {
  const missing: string[] = [];
  let named = 0;
  for (const page of pages()) {
    const lines = readFileSync(join(root, page), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const [path] of line.matchAll(PATH)) {
        named++;
        if (!exists(path)) missing.push(`${page}:${i + 1}: ${path}`);
      }
    });
  }
  expect(named).toBeGreaterThan(100);
  expect(missing).toEqual([]);
});
