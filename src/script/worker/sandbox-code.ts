/**
 * The JavaScript of ours that QuickJS compiles, as text. The RMP* objects themselves are made with
 * host functions (quickjs.ts, "The RMP* objects"): no JavaScript of ours is parsed for them, as
 * QuickJS parses about 13 characters a microsecond and a 2.3 KB prelude was half of a script's
 * start. What is left is what only the rare cases need — the request-input marking
 * (marking.js) and the legacy engine's prelude (legacy-prelude.js) — kept as real .js files
 * (linted, type-checked with `// @ts-check`) and read when the worker starts. They are not
 * functions of a TypeScript module whose `.toString()` is injected: under tsx (the benchmarks,
 * `npm run docs:functions`) esbuild's keepNames rewrites such a function's text with calls of its
 * own `__name` helper, which does not exist inside the sandbox.
 */
import { readFileSync } from 'node:fs';

/** Comments (block ones, which hold the JSDoc types, and whole-line ones) and indentation out: the sandbox parses this text. */
const compact = (source: string): string =>
  source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/^\s+/gm, '');

const read = (name: string): string => compact(readFileSync(new URL(`./${name}`, import.meta.url), 'utf8'));

/**
 * Done in every context before the script, in one evaluation: the constructors that could run
 * code after the script ends are removed (scripts share a runtime, whose garbage collector and
 * job queue are common: quickjs.ts), and the intrinsics the RMP* objects use are captured before
 * the script can replace them — JSON.stringify, JSON.parse, Object.freeze, Error, Array.of,
 * Array.isArray, Object.keys, WeakSet, in that order (Intrinsic in quickjs.ts).
 */
export const SETUP =
  'delete globalThis.WeakRef,delete globalThis.FinalizationRegistry,' +
  '[JSON.stringify,JSON.parse,Object.freeze,Error,Array.of,Array.isArray,Object.keys,WeakSet]';

/** marking.js: `(isArray, keys, WeakSetCtor) => {markPaths, markedPaths}`. */
export const marking = (): string => read('marking.js');

/** legacy-prelude.js: `(host, table) => getter`. */
export const legacyPrelude = (): string => read('legacy-prelude.js');
