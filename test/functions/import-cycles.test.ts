/**
 * No import cycle inside src/functions nor src/template: a module never (indirectly) imports itself.
 * Runtime imports only (`import type` and type-only specifiers vanish from the JavaScript), read
 * with the TypeScript parser. A group module importing the registry (which imports every group
 * through library.ts) is the cycle this guards against: groups import spec.ts and errors.ts.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { repositoryRoot, typeScriptSources } from '../support/source-files.js';

const root = repositoryRoot;

/** The modules of the same folder tree a file imports at run time. */
export function runtimeImports(file: string, within: string): string[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const st of sf.statements) {
    let spec: ts.Expression | undefined;
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        clause.name === undefined &&
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      if (onlyTypes) continue;
      spec = st.moduleSpecifier;
    } else if (ts.isExportDeclaration(st)) {
      if (st.isTypeOnly) continue;
      const named = st.exportClause;
      if (
        named &&
        ts.isNamedExports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly)
      )
        continue;
      spec = st.moduleSpecifier;
    }
    if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
    const target = resolve(dirname(file), spec.text.replace(/\.js$/, '.ts'));
    if (target.startsWith(within + '/')) out.push(target);
  }
  return out;
}

/** Every cycle found by a depth-first walk, each as the list of its modules (relative to the root). */
export function importCycles(dir: string): string[][] {
  const files = typeScriptSources(dir);
  const graph = new Map(files.map((f) => [f, runtimeImports(f, dir)]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') cycles.push(stack.slice(stack.indexOf(g)).map((m) => relative(root, m)));
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return cycles;
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
