/**
 * Regular expressions of collection queries ($regex, $regexMatch, $regexFind, $regexFindAll) run
 * on RE2 (re2js): linear time in the input, whatever the pattern, so no query can backtrack for
 * minutes. What RE2 cannot run in linear time (back-references, look-arounds, atomic groups,
 * possessive quantifiers) is refused with the operator, the pattern and the reason.
 */
import { RE2JS } from 're2js';
import { mingo, type Mingo } from './mingo-lib.js';
import { isRecord, propertyOf } from '../../safety/narrow.js';
import type { Options } from 'mingo/types';
import type { Budget } from '../../limits/index.js';
import { CollectionError } from './errors.js';
import { errorMessage } from '../../errors/index.js';

const CACHE_SIZE = 500;
const cache = new Map<string, RE2JS>();

/** What RE2 refuses and why, by the text of its error. */
const UNSUPPORTED: Array<[RegExp, string]> = [
  [/invalid escape sequence: `\\[1-9k]/, 'a back-reference'],
  [/`\(\?[=!]/, 'a look-ahead'],
  [/`\(\?<[=!]/, 'a look-behind'],
  [/`\(\?>/, 'an atomic group'],
  [/invalid nested repetition operator: `[*+?]\+`/, 'a possessive quantifier'],
];

/**
 * The compiled pattern, or a CollectionError naming `op`: options are MongoDB's `i`, `m`, `s`
 * (and `u`, which RE2 always is).
 */
export function linearRegex(op: string, pattern: string, options = ''): RE2JS {
  const key = `${options}/${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let flags = 0;
  for (const option of options) {
    if (option === 'i') flags |= RE2JS.CASE_INSENSITIVE;
    else if (option === 'm') flags |= RE2JS.MULTILINE;
    else if (option === 's') flags |= RE2JS.DOTALL;
    else if (option !== 'u')
      throw new CollectionError('invalid', `${op} option '${option}' is not supported (only i, m, s and u)`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(withRe2Escapes(pattern), flags);
  } catch (e) {
    throw refused(op, pattern, errorMessage(e));
  }
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, re);
  return re;
}

/** JavaScript's `\uXXXX` and `\u{X…}` escapes in RE2's syntax (`\x{…}`); the rest is the same. */
function withRe2Escapes(pattern: string): string {
  if (!pattern.includes('\\u')) return pattern;
  return pattern.replace(/(?<!\\)((?:\\\\)*)\\u(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/g, '$1\\x{$2$3}');
}

function refused(op: string, pattern: string, reason: string): CollectionError {
  const shown = `${op} ${JSON.stringify(pattern)}`;
  for (const [test, feature] of UNSUPPORTED)
    if (test.test(reason))
      return new CollectionError(
        'invalid',
        `${shown} uses ${feature}, which collection queries do not support (only patterns that run in linear time)`,
      );
  return new CollectionError(
    'invalid',
    `${shown} is not a valid pattern: ${reason.replace(/^error parsing regexp: /, '')}`,
  );
}

/**
 * Checks every literal pattern of a query or pipeline before anything runs: `{"$regex": …,
 * "$options": …}` and the `regex`/`options` of the expression operators.
 */
export function checkRegexes(spec: unknown, depth = 0): void {
  if (spec === null || typeof spec !== 'object' || depth > 200) return;
  if (Array.isArray(spec)) {
    for (const item of spec) checkRegexes(item, depth + 1);
    return;
  }
  if (!isRecord(spec)) return;
  const o = spec;
  if (typeof o.$regex === 'string')
    linearRegex('$regex', o.$regex, typeof o.$options === 'string' ? o.$options : '');
  for (const op of ['$regexMatch', '$regexFind', '$regexFindAll']) {
    const regex = propertyOf(o[op], 'regex');
    const options = propertyOf(o[op], 'options');
    if (typeof regex === 'string') linearRegex(op, regex, typeof options === 'string' ? options : '');
  }
  for (const value of Object.values(o)) checkRegexes(value, depth + 1);
}

/**
 * The query operator that takes `{"$regex": p, "$options": o}` (rewritten by withLinearRegexes,
 * so mingo never compiles the pattern with V8, which would refuse RE2's `(?i)` and friends).
 */
export const LINEAR_REGEX = '$regexLinear';

/**
 * The spec with every string `$regex` (and its `$options`) turned into `$regexLinear`; the same
 * object when it has none.
 */
export function withLinearRegexes(o: Record<string, unknown>, depth = 0): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(o)) {
    const changed = linearValue(value, depth + 1);
    if (changed !== value) (out ??= { ...o })[key] = changed;
  }
  if (typeof o.$regex === 'string') {
    out ??= { ...o };
    out[LINEAR_REGEX] = { pattern: o.$regex, options: typeof o.$options === 'string' ? o.$options : '' };
    delete out.$regex;
    delete out.$options;
  }
  return out ?? o;
}

function linearValue(spec: unknown, depth: number): unknown {
  if (depth > 200) return spec;
  if (isRecord(spec)) return withLinearRegexes(spec, depth);
  if (!Array.isArray(spec)) return spec;
  let out: unknown[] | undefined;
  spec.forEach((item, i) => {
    const changed = linearValue(item, depth + 1);
    if (changed !== item) (out ??= spec.slice())[i] = changed;
  });
  return out ?? spec;
}

/** The query operators `$regex` (a RegExp) and `$regexLinear`: mingo's matching rules, RE2 matching. */
export function regexQueryOperator(budget: Budget): QueryOperator {
  return (selector, value, options) => {
    const pattern = propertyOf(value, 'pattern');
    const flags = propertyOf(value, 'options');
    const re =
      value instanceof RegExp
        ? linearRegex('$regex', value.source, value.flags)
        : typeof pattern === 'string'
          ? linearRegex('$regex', pattern, typeof flags === 'string' ? flags : '')
          : linearRegex('$regex', String(value));
    const matcher = {
      exec: (input: string) => {
        budget.checkTime('$regex');
        return re.matcher(input).find() ? [input] : null;
      },
    };
    return mingo().operators.query.$regex(selector, matcher, options);
  };
}

type ExpressionOperator = (obj: Record<string, unknown>, expr: unknown, options: Options) => unknown;
type QueryOperator = Mingo['operators']['query']['$regex'];

interface Found {
  match: string;
  idx: number;
  captures: Array<string | null>;
}

/** $regexMatch, $regexFind and $regexFindAll with MongoDB's results, matched by RE2. */
export function regexExpressionOperators(budget: Budget): Record<string, ExpressionOperator> {
  const search =
    (op: string, all: boolean) =>
    (obj: Record<string, unknown>, expr: unknown, options: Options): Found[] => {
      const args = mingo().core.evalExpr(obj, expr, options);
      if (args === null || typeof args !== 'object')
        throw new CollectionError('invalid', `${op} expects an object { input, regex, options }`);
      const input = propertyOf(args, 'input');
      if (typeof input !== 'string') return [];
      const regex = propertyOf(args, 'regex');
      const flags = propertyOf(args, 'options');
      const re =
        regex instanceof RegExp
          ? linearRegex(op, regex.source, regex.flags)
          : typeof regex === 'string'
            ? linearRegex(op, regex, typeof flags === 'string' ? flags : '')
            : undefined;
      if (!re) throw new CollectionError('invalid', `${op} needs 'regex' to be a string`);
      budget.checkTime(op);
      const m = re.matcher(input);
      const found: Found[] = [];
      while (m.find()) {
        const captures: Array<string | null> = [];
        for (let g = 1; g <= m.groupCount(); g++) captures.push(m.group(g) ?? null);
        found.push({ match: m.group(0) ?? '', idx: m.start(), captures });
        if (!all) break;
        budget.allocateSlots(3 + captures.length, op);
      }
      return found;
    };
  const findAll = search('$regexFindAll', true);
  const findFirst = search('$regexFind', false);
  const matchFirst = search('$regexMatch', false);
  return {
    $regexFindAll: findAll,
    $regexFind: (obj, expr, options) => findFirst(obj, expr, options)[0] ?? null,
    $regexMatch: (obj, expr, options) => matchFirst(obj, expr, options).length > 0,
  };
}
