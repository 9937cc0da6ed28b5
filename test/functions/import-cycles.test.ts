/**
 * No import cycle inside src/functions nor src/template: a module never (indirectly) imports itself
 * (test/architecture/layers.test.ts checks all of src/; these name the two folders where one was
 * found before). Runtime imports only, read with test/architecture/imports.ts. A group module importing the registry (which imports every group
 * through library.ts) is the cycle this guards against: groups import spec.ts and errors.ts.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { importCycles, importsOf } from '../architecture/imports.js';
import { repositoryRoot } from '../support/source-files.js';

const root = repositoryRoot;

/** The modules of `within` a file imports at run time (static imports; `import()` loads on first call). */
function runtimeImports(file: string, within: string): string[] {
  return importsOf(file)
    .filter((i) => i.kind === 'static' && i.target.startsWith(within + '/'))
    .map((i) => i.target);
}

it('finds no import cycle in src/functions', () => {
  expect(importCycles(join(root, 'src/functions'))).toEqual([]);
});

it('finds no import cycle in src/template', () => {
  expect(importCycles(join(root, 'src/template'))).toEqual([]);
});

it('sees a cycle when there is one (a group importing the registry)', () => {
  const functions = join(root, 'src/functions');
  // library → groups; a group importing registry.js (which the declarations' importers reach) closes a loop
  const registry = join(functions, 'registry.ts');
  const library = join(functions, 'library.ts');
  const groups = runtimeImports(library, functions);
  expect(groups.length).toBeGreaterThan(5);
  for (const group of groups) expect(runtimeImports(group, functions)).not.toContain(registry);
  // the registry imports the groups only on first use (src/functions/declarations.ts)
  expect(runtimeImports(registry, functions).filter((m) => groups.includes(m))).toEqual([]);
});
