/**
 * The layer rule of docs/architecture.md over all of src/: every import between two top-level
 * folders is one the rule (layers.ts) allows, and no module imports itself through a runtime
 * cycle. Each check is also run on a fixture (fixtures/src) that breaks it, so it cannot pass by
 * seeing nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/source-files.js';
import {
  engineSqlOutside,
  folderEdges,
  forbiddenEdges,
  importCycles,
  importsOf,
  type LayerRule,
} from './imports.js';
import { LAYERS, RUNTIME_RULE, TYPE_RULE, withLayerTable } from './layers.js';

const src = join(repositoryRoot, 'src');
const fixture = join(repositoryRoot, 'test/architecture/fixtures/src');

describe('src/', () => {
  it('imports at run time (static and import()) only across the edges of the layer rule', () => {
    expect(forbiddenEdges(src, RUNTIME_RULE, ['static', 'dynamic'])).toEqual([]);
  });

  it('imports types only across the edges of the rule or the declared type seams', () => {
    expect(forbiddenEdges(src, TYPE_RULE, ['type'])).toEqual([]);
  });

  it('names every top-level folder in the rule, and every folder the rule names exists', () => {
    const used = new Set(folderEdges(src, ['static', 'dynamic', 'type']).flatMap((e) => [e.from, e.to]));
    const named = LAYERS.map((l) => l.folder);
    expect([...used].filter((f) => !named.includes(f))).toEqual([]);
    for (const l of LAYERS) for (const f of l.imports) expect(named).toContain(f);
  });

  it('has no runtime import cycle (type-only imports and import() excluded)', () => {
    expect(importCycles(src)).toEqual([]);
  });

  it('writes engine SQL and chooses by engine only in store/ (the dialect)', () => {
    expect(engineSqlOutside(src, join(src, 'store'))).toEqual([]);
  });

  it("docs/architecture.md's layer table is the one layers.ts writes (npm run docs:architecture)", () => {
    const doc = readFileSync(join(repositoryRoot, 'docs/architecture.md'), 'utf8');
    expect(doc).toBe(withLayerTable(doc));
  });
});

describe('the checks, on a fixture that breaks them', () => {
  const rule: LayerRule = { high: ['low', 'leaf'], low: ['leaf'], leaf: [] };
  const typeRule: LayerRule = { ...rule, low: ['leaf', 'high'] };

  it('reads each kind of import', () => {
    const kinds = (file: string) => importsOf(join(fixture, file)).map((i) => i.kind);
    expect(kinds('high/use.ts')).toEqual(['static', 'static', 'type']);
    expect(kinds('low/up.ts')).toEqual(['dynamic']);
    expect(kinds('low/reexport.ts')).toEqual(['static']);
    expect(kinds('low/types.ts')).toEqual(['type']);
  });

  it('reports a forbidden edge, static or import()', () => {
    expect(forbiddenEdges(fixture, rule, ['static'])).toEqual(['low → high (low/reexport.ts)']);
    expect(forbiddenEdges(fixture, rule, ['dynamic'])).toEqual(['low → high (low/up.ts)']);
  });

  it('reports a type-only edge outside the type rule, and none inside it', () => {
    expect(forbiddenEdges(fixture, rule, ['type'])).toEqual(['low → high (low/types.ts)']);
    expect(forbiddenEdges(fixture, typeRule, ['type'])).toEqual([]);
  });

  it('reports engine SQL and a choice by engine outside the store', () => {
    expect(engineSqlOutside(fixture, join(fixture, 'store'))).toEqual(['low/claim.ts:4', 'low/claim.ts:7']);
  });

  it('reports the runtime cycle, not the type-only one nor the one through import()', () => {
    expect(importCycles(fixture)).toEqual([['low/a.ts', 'low/b.ts']]);
  });
});
