/**
 * The import graph of a source tree, read with the TypeScript parser, and the checks of
 * test/architecture/ over it: the folder edges a layer may use, the runtime import cycles and the
 * type assertions. Each check takes a root folder so the tests can run it on a fixture too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { typeScriptSources } from '../support/source-files.js';

/**
 * How a module imports another:
 * - `static`: `import … from`, `export … from` or `import '…'` with at least one value: loaded
 *   before the importer runs, so it orders module evaluation (and can close a cycle);
 * - `dynamic`: `import('…')` as an expression: loaded when the code runs (on first use);
 * - `type`: `import type`, `export type`, specifiers all marked `type`, or `typeof import('…')`:
 *   erased from the JavaScript, so it loads nothing.
 */
export type ImportKind = 'static' | 'dynamic' | 'type';

export interface Import {
  /** The imported module's absolute path (`.ts`), or the bare package name. */
  target: string;
  kind: ImportKind;
}

function onlyTypeSpecifiers(named: ts.NamedImportBindings | ts.NamedExportBindings | undefined): boolean {
  if (named === undefined) return false;
  const elements = ts.isNamedImports(named) || ts.isNamedExports(named) ? named.elements : undefined;
  return elements !== undefined && elements.length > 0 && elements.every((e) => e.isTypeOnly);
}

/** The file a relative specifier names: `./x.js` → `x.ts`, `./x.cjs` → `x.cts`, a folder → its index. */
function resolveRelative(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  const candidates = [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.cjs$/, '.cts'),
    base.replace(/\.mjs$/, '.mts'),
    base,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => existsSync(c) && !c.endsWith(sep)) ?? base.replace(/\.js$/, '.ts');
}

/** Every import of one module, relative or not, with its kind. */
export function importsOf(file: string): Import[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Import[] = [];
  const add = (spec: ts.Expression | undefined, kind: ImportKind) => {
    if (!spec || !ts.isStringLiteralLike(spec)) return;
    const text = spec.text;
    out.push({ target: text.startsWith('.') ? resolveRelative(file, text) : text, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (clause.name === undefined && onlyTypeSpecifiers(clause.namedBindings)));
      add(node.moduleSpecifier, typeOnly ? 'type' : 'static');
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly || onlyTypeSpecifiers(node.exportClause) ? 'type' : 'static');
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) add(arg.literal, 'type');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], 'dynamic');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const graphs = new Map<string, Map<string, Import[]>>();

/** Every source module below `dir` with its imports (read once per test file). */
export function importGraph(dir: string): Map<string, Import[]> {
  let graph = graphs.get(dir);
  if (graph === undefined) {
    graph = new Map(typeScriptSources(dir).map((f) => [f, importsOf(f)]));
    graphs.set(dir, graph);
  }
  return graph;
}

/** A module's top-level folder below `src` (`platform` for src/platform/files/x.ts), or undefined for a module at its root. */
export function layerOf(src: string, file: string): string | undefined {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

export interface Edge {
  from: string;
  to: string;
  /** The first module (relative to `src`) seen importing across this edge, for the message. */
  example: string;
}

/**
 * The folder edges the modules below `src` use, one per pair of folders: every import between two
 * top-level folders whose kind is one of `kinds`.
 */
export function folderEdges(src: string, kinds: readonly ImportKind[]): Edge[] {
  const edges = new Map<string, Edge>();
  for (const [file, imports] of importGraph(src)) {
    const from = layerOf(src, file);
    if (from === undefined) continue;
    for (const i of imports) {
      if (!kinds.includes(i.kind) || !i.target.startsWith(src + sep)) continue;
      const to = layerOf(src, i.target);
      if (to === undefined || to === from) continue;
      const key = `${from} → ${to}`;
      if (!edges.has(key)) edges.set(key, { from, to, example: relative(src, file).split(sep).join('/') });
    }
  }
  return [...edges.values()].sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));
}

/** The rule: for each folder, the folders it may import. A folder missing from the rule may import nothing. */
export type LayerRule = Readonly<Record<string, readonly string[]>>;

/** The edges `src` uses that `rule` does not allow, as `from → to (example)`. */
export function forbiddenEdges(src: string, rule: LayerRule, kinds: readonly ImportKind[]): string[] {
  return folderEdges(src, kinds)
    .filter((e) => !(rule[e.from] ?? []).includes(e.to))
    .map((e) => `${e.from} → ${e.to} (${e.example})`);
}

/** Every runtime cycle of static imports below `dir`, each as its modules relative to `dir`, by a depth-first walk. */
export function importCycles(dir: string): string[][] {
  const graph = importGraph(dir);
  const next = (f: string) =>
    (graph.get(f) ?? []).filter((i) => i.kind === 'static' && graph.has(i.target)).map((i) => i.target);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of next(f)) {
      if (state.get(g) === 'open')
        cycles.push(stack.slice(stack.indexOf(g)).map((m) => relative(dir, m).split(sep).join('/')));
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return cycles;
}

/** The type assertions of one module: `x as T` and `<T>x`, not `as const`. */
export function typeAssertions(file: string): number {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const isConst = ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(sf) === 'const';
      if (!isConst) count++;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return count;
}

/** The type assertions of every module below `dir`. */
export function typeAssertionsBelow(dir: string): number {
  return typeScriptSources(dir).reduce((n, f) => n + typeAssertions(f), 0);
}

/** SQL only one engine understands (PostgreSQL's casts, locks and jsonb; SQLite's pragmas and JSON functions). */
const ENGINE_SQL =
  /SKIP LOCKED|FOR UPDATE|NOWAIT|::\s*[a-z]|\bjsonb?_|\bILIKE\b|\bPRAGMA\b|\bjson_extract\b|AUTOINCREMENT|\bGLOB\b/i;

/**
 * The places below `dir` that write engine SQL or choose by engine: an `sql` tagged template
 * whose text matches ENGINE_SQL, or a comparison with a `dialect.name`; as `file:line`.
 */
export function engineSqlOutside(dir: string, except: string): string[] {
  const out: string[] = [];
  for (const file of typeScriptSources(dir)) {
    if (file.startsWith(except + sep)) continue;
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const at = (node: ts.Node) =>
      `${relative(dir, file).split(sep).join('/')}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isTaggedTemplateExpression(node) && node.tag.getText(sf).startsWith('sql')) {
        const t = node.template;
        const text = ts.isNoSubstitutionTemplateLiteral(t)
          ? t.text
          : [t.head.text, ...t.templateSpans.map((s) => s.literal.text)].join(' ');
        if (ENGINE_SQL.test(text)) out.push(at(node));
      } else if (
        ts.isPropertyAccessExpression(node) &&
        node.name.text === 'name' &&
        /\bdialect$/.test(node.expression.getText(sf)) &&
        (ts.isSwitchStatement(node.parent) ||
          (ts.isBinaryExpression(node.parent) &&
            [
              ts.SyntaxKind.EqualsEqualsEqualsToken,
              ts.SyntaxKind.ExclamationEqualsEqualsToken,
              ts.SyntaxKind.EqualsEqualsToken,
              ts.SyntaxKind.ExclamationEqualsToken,
            ].includes(node.parent.operatorToken.kind)))
      ) {
        out.push(at(node));
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}
