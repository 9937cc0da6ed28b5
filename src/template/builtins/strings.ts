/** String built-ins (FreeMarker 2.3.31 semantics). */
import type * as A from '../ast.js';
import { BigDec, NumberFormatError, NumberLimitError } from '../bigdecimal.js';
import { jQuote, errorMessage } from '../errors.js';
import { formatBoolean, stringTarget } from '../ops.js';
import { escapeRtf, escapeXhtml, escapeXml } from '../output-formats.js';
import {
  RegexFlagError,
  escapeRegExp,
  javaPattern,
  javaReplacement,
  userGroups,
  type JavaRegExp,
  parseFlags,
  type RegexFlags,
} from '../regex.js';
import {
  AsyncNeeded,
  type Env,
  ICI,
  blamedError,
  budgetLimitError,
  missingError,
  replayed,
} from '../runtime.js';
import {
  type RegexJob,
  type RegexResult,
  RegexTimeoutError,
  needsWorker,
  runRegex,
} from '../regex-worker.js';
import { JDouble, MatchItem, MatchResult } from '../values.js';
import {
  argInt,
  argString,
  biError,
  checkArgs,
  optString,
  targetTypeError,
  builtInFamily,
} from './registry.js';
import { iconv } from '../../jdk/on-demand.js';
import { SLOT_BYTES } from '../../limits/budget.js';

const { def, records } = builtInFamily();

/**
 * The target string of a built-in. A long one weighs its length in steps (one per
 * WORK_CHARS_PER_STEP characters): `?matches`, `?replace`, `?index_of` … read the whole string,
 * so a loop over a 15M-character string reaches the step limit instead of running for minutes.
 */
function str(env: Env, t: unknown, node: A.BuiltInExpr): string {
  const s = stringTarget(env, t, node.target, node.name);
  if (s.length > 4096 && !CONSTANT_TIME.has(node.name)) env.ticks(Math.floor(s.length / WORK_CHARS_PER_STEP));
  return s;
}
const WORK_CHARS_PER_STEP = 64;
/** Built-ins that do not read their target through (or only a bounded part of it). */
const CONSTANT_TIME = new Set(['length', 'starts_with', 'ends_with', 'remove_beginning', 'remove_ending']);

/**
 * Charges a long string a built-in made (?upper_case, ?html, ?cap_first …: at most a few times the
 * length of its target, so charging once it exists still bounds what a render keeps). The
 * built-ins whose result can be much longer than their target charge before building it.
 */
function charged(env: Env, node: A.BuiltInExpr, s: string, r: unknown): unknown {
  if (typeof r === 'string' && r.length > 4096 && r !== s && !CHARGE_THEMSELVES.has(node.name))
    env.allocateString(r.length, `?${node.name}`);
  return r;
}
const CHARGE_THEMSELVES = new Set([
  'replace',
  'left_pad',
  'right_pad',
  'substring',
  'keep_after',
  'keep_before',
  'keep_after_last',
  'keep_before_last',
  'remove_beginning',
  'remove_ending',
  'trim',
  'chop_linebreak',
]);

/** A string built-in without arguments. */
function stringBuiltIn(
  names: string | string[],
  f: (s: string, env: Env, node: A.BuiltInExpr) => unknown,
): void {
  def(names, {
    value: (env, t, node) => {
      const s = str(env, t, node);
      return charged(env, node, s, f(s, env, node));
    },
  });
}

/** A string built-in with arguments. */
function stringMethodBuiltIn(
  names: string | string[],
  min: number,
  max: number,
  f: (s: string, args: unknown[], env: Env, node: A.BuiltInExpr) => unknown,
  /**
   * For literal arguments (their count checked): `(s, env, node) => result` with the arguments'
   * work done once, or undefined (then `f` runs each time, and reports any bad argument).
   */
  prepare?: (
    args: readonly unknown[],
    node: A.BuiltInExpr,
  ) => ((s: string, env: Env, node: A.BuiltInExpr) => unknown) | undefined,
): void {
  def(names, {
    call: (env, t, args, node) => {
      const s = str(env, t, node);
      checkArgs(node, args, min, max);
      return charged(env, node, s, f(s, args, env, node));
    },
    prepare:
      prepare &&
      ((args, node) => {
        if (args.length < min || args.length > max) return undefined;
        let p: ((s: string, env: Env, node: A.BuiltInExpr) => unknown) | undefined;
        try {
          p = prepare(args, node);
        } catch {
          return undefined;
        }
        if (p === undefined) return undefined;
        const run = p;
        return (env, t, node) => {
          const s = str(env, t, node);
          return charged(env, node, s, run(s, env, node));
        };
      }),
  });
}

export function isJavaWhitespace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f);
  if (c === 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a)) return true;
  return c === 0x2028 || c === 0x2029 || c === 0x205f || c === 0x3000;
}

function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 32) a++;
  while (b > a && s.charCodeAt(b - 1) <= 32) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

function localeTag(env: Env): string {
  return env.locale.replace(/_/g, '-');
}

function upper(s: string, env: Env): string {
  return env.locale.startsWith('tr') || env.locale.startsWith('az') || env.locale.startsWith('lt')
    ? s.toLocaleUpperCase(localeTag(env))
    : s.toUpperCase();
}

function lower(s: string, env: Env): string {
  return env.locale.startsWith('tr') || env.locale.startsWith('az') || env.locale.startsWith('lt')
    ? s.toLocaleLowerCase(localeTag(env))
    : s.toLowerCase();
}

stringBuiltIn('length', (s) => s.length);
stringBuiltIn('upper_case', (s, env) => upper(s, env));
stringBuiltIn('lower_case', (s, env) => lower(s, env));
stringBuiltIn('trim', (s) => javaTrim(s));
stringBuiltIn('cap_first', (s, env) => capFirst(s, env, true));
stringBuiltIn('uncap_first', (s, env) => capFirst(s, env, false));
stringBuiltIn('capitalize', (s, env) => {
  let out = '';
  let inWord = false;
  for (const ch of s) {
    if (isJavaWhitespace(ch.charCodeAt(0))) {
      inWord = false;
      out += ch;
    } else if (!inWord) {
      inWord = true;
      out += upper(ch, env);
    } else out += lower(ch, env);
  }
  return out;
});
stringBuiltIn('chop_linebreak', (s) =>
  s.endsWith('\r\n') ? s.slice(0, -2) : s.endsWith('\n') || s.endsWith('\r') ? s.slice(0, -1) : s,
);
stringBuiltIn('word_list', (s, env) => {
  const out: string[] = [];
  // words are slices between white-space runs (no per-character concatenation)
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (isJavaWhitespace(s.charCodeAt(i))) {
      if (i > start) {
        if ((out.length & 4095) === 4095) env.allocate(4096 * SPLIT_ITEM_BYTES, '?word_list');
        out.push(s.slice(start, i));
      }
      start = i + 1;
    }
  }
  if (s.length > start) out.push(s.slice(start));
  return out;
});
/**
 * An escaping built-in's result, its length checked against the per-string limit *before* it is
 * built: its output may be up to `worst` times its input (`&quot;`, `\u0000`, `%E2%82%AC`), so a
 * target that could pass the limit is measured first, escaped piece by piece without keeping the
 * pieces. The result is then charged like any string a built-in made.
 */
function escaped(
  env: Env,
  node: A.BuiltInExpr,
  s: string,
  escape: (s: string) => string,
  worst: number,
): string {
  if (s.length * worst > env.maxOut) {
    let total = 0;
    for (let i = 0; i < s.length;) {
      let end = Math.min(s.length, i + ESCAPE_MEASURE_CHUNK);
      // a surrogate pair stays in one piece
      if (end < s.length && (s.charCodeAt(end - 1) & 0xfc00) === 0xd800) end++;
      total += escape(s.slice(i, end)).length;
      i = end;
    }
    env.checkStringSize(total);
  }
  return escape(s);
}
const ESCAPE_MEASURE_CHUNK = 65536;

def(['html', 'web_safe'], {
  custom: (node, cx, compile) => {
    const t = compile(node.target, cx);
    const legacy = cx.ici < ICI.V2_3_20;
    const escape = legacy ? (x: string) => escapeXhtml(x).replace(/&#39;/g, "'") : escapeXhtml;
    return (env) => {
      const v = t(env);
      if (v === undefined) throw missingError(node.target);
      const s = str(env, v, node);
      return charged(env, node, s, escaped(env, node, s, escape, 6));
    };
  },
});
stringBuiltIn('xhtml', (s, env, n) => escaped(env, n, s, escapeXhtml, 6));
stringBuiltIn('xml', (s, env, n) => escaped(env, n, s, escapeXml, 6));
stringBuiltIn('rtf', (s, env, n) => escaped(env, n, s, escapeRtf, 2));
stringBuiltIn('j_string', (s, env, n) => escaped(env, n, s, javaStringEnc, 6));
stringBuiltIn('js_string', (s, env, n) => escaped(env, n, s, (x) => jsStringEnc(x, false), 6));
stringBuiltIn('json_string', (s, env, n) => escaped(env, n, s, (x) => jsStringEnc(x, true), 6));

function capFirst(s: string, env: Env, up: boolean): string {
  let i = 0;
  while (i < s.length && isJavaWhitespace(s.charCodeAt(i))) i++;
  if (i >= s.length) return s;
  const c = s[i];
  return s.slice(0, i) + (up ? upper(c, env) : lower(c, env)) + s.slice(i + 1);
}

stringMethodBuiltIn('contains', 1, 1, (s, a, _e, n) => s.includes(argString(n, a, 0)));
stringMethodBuiltIn('starts_with', 1, 1, (s, a, _e, n) => s.startsWith(argString(n, a, 0)));
stringMethodBuiltIn('ends_with', 1, 1, (s, a, _e, n) => s.endsWith(argString(n, a, 0)));
stringMethodBuiltIn('index_of', 1, 2, (s, a, _e, n) => {
  const sub = argString(n, a, 0);
  if (a.length < 2) return s.indexOf(sub);
  let from = argInt(n, a, 1);
  if (from < 0) from = 0;
  if (from > s.length) return sub === '' ? s.length : -1;
  return s.indexOf(sub, from);
});
stringMethodBuiltIn('last_index_of', 1, 2, (s, a, _e, n) => {
  const sub = argString(n, a, 0);
  if (a.length < 2) return s.lastIndexOf(sub);
  const from = argInt(n, a, 1);
  if (from < 0) return -1;
  return s.lastIndexOf(sub, from);
});
stringMethodBuiltIn('remove_beginning', 1, 1, (s, a, _e, n) => {
  const p = argString(n, a, 0);
  return s.startsWith(p) ? s.slice(p.length) : s;
});
stringMethodBuiltIn('remove_ending', 1, 1, (s, a, _e, n) => {
  const p = argString(n, a, 0);
  return p && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
});
stringMethodBuiltIn('left_pad', 1, 2, (s, a, env, n) => pad(s, a, env, n, true));
stringMethodBuiltIn('right_pad', 1, 2, (s, a, env, n) => pad(s, a, env, n, false));

function pad(s: string, a: unknown[], env: Env, n: A.BuiltInExpr, left: boolean): string {
  const width = argInt(n, a, 0);
  const filler = optString(n, a, 1, ' ');
  if (filler.length === 0) throw biError(n, `?${n.name}(...) argument #2 can't be a 0-length string.`);
  if (width <= s.length) return s;
  env.checkStringSize(width);
  env.allocateString(width, `?${n.name}`);
  // the filler repeated from the string's start: padding characters i … are filler[i % length]
  const fl = filler.length;
  if (left) {
    const padLen = width - s.length;
    return (fl === 1 ? filler.repeat(padLen) : filler.repeat(Math.ceil(padLen / fl)).slice(0, padLen)) + s;
  }
  return (
    s +
    (fl === 1 ? filler.repeat(width - s.length) : filler.repeat(Math.ceil(width / fl)).slice(s.length, width))
  );
}

stringMethodBuiltIn('substring', 1, 2, (s, a, _e, n) => {
  const from = argInt(n, a, 0);
  const to = a.length > 1 ? argInt(n, a, 1) : s.length;
  if (from < 0) throw biError(n, `?substring(...) argument #1 can't be negative.`);
  if (from > s.length)
    throw biError(n, `?substring(...) argument #1 can't be greater than the length of the string.`);
  if (to < from) throw biError(n, `?substring(...) argument #2 can't be less than argument #1.`);
  if (to > s.length)
    throw biError(n, `?substring(...) argument #2 can't be greater than the length of the string.`);
  return s.slice(from, to);
});

function flagsOf(
  n: A.BuiltInExpr,
  a: unknown[],
  i: number,
  allowF: boolean,
  regexOnly = false,
  lenient = false,
): RegexFlags {
  try {
    return parseFlags(i < a.length ? argString(n, a, i) : '', n.name, allowF, regexOnly, lenient);
  } catch (e) {
    if (e instanceof RegexFlagError) throw biError(n, e.message);
    throw e;
  }
}

/** A job for the regex workers: at most as many matches as the budget has room for. */
function job(re: RegExp, input: string, op: RegexJob['op']): RegexJob {
  return { source: re.source, flags: re.flags, input, op, maxMatches: MAX_MATCHES };
}
const MAX_MATCHES = 4_000_000;

/**
 * Runs `jobs` in the regex workers (patterns with back-references or look-arounds, see
 * regex-worker.ts): the expression suspends like on an asynchronous method and resumes with
 * `build` of the results. Past the evaluation's remaining time the render ends.
 */
function offThread<T>(env: Env, n: A.BuiltInExpr, jobs: RegexJob[], build: (r: RegexResult[]) => T): T {
  const rp = replayed(env);
  if (rp.hit) return rp.value as T;
  const what = `?${n.name}`;
  if (env.callLog === null)
    throw biError(n, `${what}: a pattern with back-references or look-arounds can't be used here.`);
  const regexCapped = env.budget.limits.regexTimeMs < env.budget.remainingMs();
  const timeout = env.budget.regexTimeoutMs();
  const p = Promise.all(jobs.map((j) => runRegex(j, timeout))).then(
    (results) => {
      for (const r of results) if (r.tooMany) throw budgetLimitError(env.budget.memoryError(what));
      try {
        return build(results);
      } catch (e) {
        if (e instanceof RegexFlagError) throw biError(n, e.message);
        throw e;
      }
    },
    (e: unknown) => {
      if (e instanceof RegexTimeoutError)
        throw budgetLimitError(regexCapped ? env.budget.regexTimeError(what) : env.budget.timeError(what));
      throw biError(n, `${what}: the regular expression failed: ${errorMessage(e)}`);
    },
  );
  throw new AsyncNeeded(p, rp.index);
}

/** What one item of a sequence of substrings costs: its slot and a (sliced) string. */
const SPLIT_ITEM_BYTES = SLOT_BYTES + 24;

/** Non-overlapping occurrences of `what` (non-empty) in `s`, the first at `first` (-1: none). */
function occurrences(s: string, what: string, first: number): number {
  let count = 0;
  for (let i = first; i >= 0; i = s.indexOf(what, i + what.length)) count++;
  return count;
}

/** A sequence of substrings already built (case-insensitive literal split), charged. */
function chargedItems(env: Env, out: string[], what: string): string[] {
  env.allocate(out.length * SPLIT_ITEM_BYTES, what);
  return out;
}

/** A String.replace replacer that charges each replacement, and the copy of `s` once, as it goes. */
function chargedReplacer(
  env: Env,
  s: string,
  f: (match: string, ...groups: unknown[]) => string,
): (match: string, ...groups: unknown[]) => string {
  let first = true;
  return (...args) => {
    if (first) {
      env.allocateString(s.length, '?replace');
      first = false;
    }
    const r = f(...(args as [string, ...unknown[]]));
    env.allocateString(r.length, '?replace');
    return r;
  };
}

function compileJ(n: A.BuiltInExpr, pattern: string, f: RegexFlags, global = ''): JavaRegExp {
  try {
    return javaPattern(pattern, f, global);
  } catch (e) {
    throw biError(n, `Malformed regular expression: ${errorMessage(e)}`);
  }
}

function compile(n: A.BuiltInExpr, pattern: string, f: RegexFlags, global = ''): RegExp {
  return compileJ(n, pattern, f, global).re;
}

/** A matcher for the search argument: regex, or literal (possibly case-insensitive). */
function searcher(n: A.BuiltInExpr, pattern: string, f: RegexFlags, global: boolean): RegExp {
  if (f.regex) return compile(n, pattern, f, global ? 'g' : '');
  return new RegExp(escapeRegExp(pattern), (global ? 'g' : '') + (f.caseInsensitive ? 'i' : ''));
}

stringMethodBuiltIn('replace', 2, 3, (s, a, env, n) => {
  const what = argString(n, a, 0);
  const rep = argString(n, a, 1);
  const f = flagsOf(n, a, 2, true, false, true);
  if (!f.regex) {
    if (what === '') {
      // Java's replace("", x) inserts x between every character and at both ends
      if (f.firstOnly) return rep + s;
      env.allocateString(s.length + (s.length + 1) * rep.length, '?replace');
      let out = rep;
      for (const ch of s) out += ch + rep;
      return out;
    }
    if (!f.caseInsensitive) {
      if (f.firstOnly) {
        const i = s.indexOf(what);
        if (i < 0) return s;
        env.allocateString(s.length + rep.length, '?replace');
        return s.slice(0, i) + rep + s.slice(i + what.length);
      }
      // left to right, non-overlapping, like split/join but without the intermediate array
      let i = s.indexOf(what);
      if (i < 0) return s;
      const count = occurrences(s, what, i);
      env.allocateString(s.length + count * (rep.length - what.length), '?replace');
      let out = '';
      let from = 0;
      for (let k = 1; i >= 0; k++) {
        out += s.slice(from, i) + rep;
        from = i + what.length;
        i = s.indexOf(what, from);
        if ((k & 65535) === 0) env.checkTime();
      }
      const r = out + s.slice(from);
      if (r.length > 1_000_000) env.checkStringSize(r.length);
      return r;
    }
    return s.replace(
      searcher(n, what, f, !f.firstOnly),
      chargedReplacer(env, s, () => rep),
    );
  }
  const jp = compileJ(n, what, f, f.firstOnly ? '' : 'g');
  if (needsWorker(jp.re)) {
    return offThread(env, n, [job(jp.re, s, f.firstOnly ? 'first' : 'all')], ([r]) => {
      const replacer = chargedReplacer(env, s, javaReplacement(rep, jp.groups));
      let out = '';
      let last = 0;
      for (const m of r.matches) {
        out += s.slice(last, m[0]) + replacer(...(m.slice(1) as [string]), m[0], s);
        last = m[0] + m[1]!.length;
      }
      return out + s.slice(last);
    });
  }
  try {
    return s.replace(jp.re, chargedReplacer(env, s, javaReplacement(rep, jp.groups)));
  } catch (e) {
    if (e instanceof RegexFlagError) throw biError(n, e.message);
    throw e;
  }
});

/** ?split: literal, case-insensitive or regular-expression separators. */
function splitString(s: string, a: unknown[], env: Env, n: A.BuiltInExpr): unknown {
  const sep = argString(n, a, 0);
  const f = flagsOf(n, a, 1, false, false, true);
  if (!f.regex) {
    if (sep === '') {
      env.allocate(s.length * SPLIT_ITEM_BYTES, '?split');
      return Array.from(s);
    }
    if (!f.caseInsensitive) {
      // a short string is split first (its items are few), a long one counted first
      if (s.length <= 65536) return chargedItems(env, s.split(sep), '?split');
      env.allocate((occurrences(s, sep, s.indexOf(sep)) + 1) * SPLIT_ITEM_BYTES, '?split');
      return s.split(sep);
    }
    return chargedItems(env, s.split(searcher(n, sep, f, false)), '?split');
  }
  const re = compile(n, sep, f, 'g');
  if (needsWorker(re)) {
    return offThread(env, n, [job(re, s, 'all')], ([r]) => {
      env.allocate(r.matches.length * SPLIT_ITEM_BYTES, '?split');
      const out: string[] = [];
      let last = 0;
      for (const [index, m0] of r.matches) {
        if (m0!.length === 0) {
          if (index >= s.length) break;
          if (index === 0) continue;
        }
        out.push(s.slice(last, index));
        last = index + m0!.length;
      }
      out.push(s.slice(last));
      while (out.length > 1 && out[out.length - 1] === '') out.pop();
      if (out.length === 1 && out[0] === '' && s === '') return [''];
      return out;
    });
  }
  const out: string[] = [];
  let last = 0;
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  while ((m = re.exec(s)) !== null) {
    if ((out.length & 4095) === 4095) env.allocate(4096 * SPLIT_ITEM_BYTES, '?split');
    if (m[0].length === 0) {
      if (m.index >= s.length) break;
      if (m.index === 0) {
        re.lastIndex++;
        continue;
      }
    }
    out.push(s.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[0].length === 0) re.lastIndex++;
  }
  out.push(s.slice(last));
  while (out.length > 1 && out[out.length - 1] === '') out.pop();
  if (out.length === 1 && out[0] === '' && s === '') return [''];
  return out;
}

stringMethodBuiltIn(
  'split',
  1,
  2,
  splitString,
  // a literal separator without flags: split at once (the general way reads the flags each time)
  (args, n) => {
    const sep = argString(n, args as unknown[], 0);
    const f = flagsOf(n, args as unknown[], 1, false, false, true);
    if (f.regex || f.caseInsensitive || sep === '') return undefined;
    return (s, env) =>
      s.length <= 65536
        ? chargedItems(env, s.split(sep), '?split')
        : splitString(s, args as unknown[], env, n);
  },
);

stringMethodBuiltIn(
  'matches',
  1,
  2,
  (s, a, env, n) => {
    const f = flagsOf(n, a, 1, false, true, true);
    const pattern = argString(n, a, 0);
    const jp = compileJ(n, pattern, f, 'g');
    const whole = wholeMatcher(jp, f.multiline);
    if (needsWorker(whole)) {
      return offThread(env, n, [job(whole, s, 'first'), job(jp.re, s, 'all')], ([w, all]) => {
        env.allocateSlots(all.matches.length * (jp.groups.length + 2), '?matches');
        const wm = w.matches[0];
        const groups = jp.groups.map((g) => wm?.[g + 1] as string | undefined);
        const items = all.matches.map(
          (m) =>
            new MatchItem(
              m[1]!,
              jp.groups.map((g) => m[g + 1] as string | undefined),
            ),
        );
        return new MatchResult(wm !== undefined, () => items, groups);
      });
    }
    const wm = whole.exec(s);
    const matched = wm !== null;
    const groups: (string | undefined)[] = wm ? userGroups(wm, jp.groups) : jp.groups.map(() => undefined);
    // the list of matches is only made when the result is used as a sequence
    return new MatchResult(matched, () => findAll(jp, s), groups);
  },
  // a literal pattern: compiled once, and without groups only tested (no match array)
  (args, n) => {
    const f = flagsOf(n, args as unknown[], 1, false, true, true);
    const jp = compileJ(n, argString(n, args as unknown[], 0), f, 'g');
    const whole = wholeMatcher(jp, f.multiline);
    if (needsWorker(whole)) return undefined;
    if (jp.groups.length === 0) return (s) => new MatchResult(whole.test(s), () => findAll(jp, s), []);
    return (s) => {
      const wm = whole.exec(s);
      const groups = wm ? userGroups(wm, jp.groups) : jp.groups.map(() => undefined);
      return new MatchResult(wm !== null, () => findAll(jp, s), groups);
    };
  },
);

/** The pattern anchored to the whole string (cached on the compiled pattern). */
function wholeMatcher(jp: JavaRegExp & { whole?: RegExp; wholeMl?: RegExp }, multiline: boolean): RegExp {
  const fl = (): string => jp.re.flags.replace('g', '');
  if (multiline) return (jp.wholeMl ??= new RegExp(`(?<![\\s\\S])(?:${jp.re.source})(?![\\s\\S])`, fl()));
  return (jp.whole ??= new RegExp(`^(?:${jp.re.source})$`, fl()));
}

function findAll(jp: JavaRegExp, s: string): MatchItem[] {
  const re = jp.re;
  re.lastIndex = 0;
  const items: MatchItem[] = [];
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    items.push(new MatchItem(m[0], userGroups(m, jp.groups)));
    if (m[0].length === 0) re.lastIndex++;
  }
  return items;
}

def('groups', {
  value: (_env, t, node) => {
    if (t instanceof MatchItem || t instanceof MatchResult) return t.groups.map((g) => g ?? '');
    throw targetTypeError(node, 'regular expression matcher', t);
  },
});

function keep(
  name: string,
  f: (s: string, idx: number, len: number) => string,
  notFound: (s: string) => string,
  last: boolean,
): void {
  stringMethodBuiltIn(name, 1, 2, (s, a, env, n) => {
    const what = argString(n, a, 0);
    const fl = flagsOf(n, a, 1, false);
    let idx = -1;
    let len = 0;
    if (!fl.regex && !fl.caseInsensitive) {
      idx = last ? s.lastIndexOf(what) : s.indexOf(what);
      len = what.length;
    } else if (fl.regex && needsWorker(searcher(n, what, fl, false))) {
      const re = searcher(n, what, fl, false);
      const found = offThread(env, n, [job(re, s, last ? 'last' : 'first')], ([r]) => r.matches[0] ?? null);
      if (found) {
        idx = found[0];
        len = found[1]!.length;
      }
    } else if (!last) {
      const m = searcher(n, what, fl, false).exec(s);
      if (m) {
        idx = m.index;
        len = m[0].length;
      }
    } else {
      // the match starting at the highest index
      const base = searcher(n, what, fl, false);
      const sticky = new RegExp(base.source, base.flags.replace('g', '') + 'y');
      for (let i = s.length; i >= 0; i--) {
        sticky.lastIndex = i;
        const m = sticky.exec(s);
        if (m) {
          idx = i;
          len = m[0].length;
          break;
        }
      }
    }
    return idx < 0 ? notFound(s) : f(s, idx, len);
  });
}
keep(
  'keep_after',
  (s, i, l) => s.slice(i + l),
  () => '',
  false,
);
keep(
  'keep_after_last',
  (s, i, l) => s.slice(i + l),
  () => '',
  true,
);
keep(
  'keep_before',
  (s, i) => s.slice(0, i),
  (s) => s,
  false,
);
keep(
  'keep_before_last',
  (s, i) => s.slice(0, i),
  (s) => s,
  true,
);

stringMethodBuiltIn('ensure_starts_with', 1, 3, (s, a, env, n) => {
  if (a.length === 1) {
    const p = argString(n, a, 0);
    return s.startsWith(p) ? s : p + s;
  }
  const check = argString(n, a, 0);
  const prefix = argString(n, a, 1);
  const fl = flagsOf(n, a, 2, false, a.length < 3);
  if (!fl.regex) {
    const ok = fl.caseInsensitive ? s.toLowerCase().startsWith(check.toLowerCase()) : s.startsWith(check);
    return ok ? s : prefix + s;
  }
  const re = compile(n, check, fl);
  const anchored = new RegExp(`^(?:${re.source})`, re.flags);
  if (needsWorker(anchored))
    return offThread(env, n, [job(anchored, s, 'first')], ([r]) => (r.matches.length ? s : prefix + s));
  const m = anchored.exec(s);
  return m ? s : prefix + s;
});
stringMethodBuiltIn('ensure_ends_with', 1, 1, (s, a, _e, n) => {
  const p = argString(n, a, 0);
  return s.endsWith(p) ? s : s + p;
});

stringBuiltIn('number', (s, _env, node) => {
  let n: ReturnType<typeof parseFtlNumber>;
  try {
    n = parseFtlNumber(s);
  } catch (e) {
    if (e instanceof NumberLimitError)
      throw blamedError('_MiscTemplateException', `?number: ${e.message}`, node);
    throw e;
  }
  if (n === null) {
    throw blamedError('NonNumericalException', `Can't convert this string to number: ${jQuote(s)}`, node);
  }
  return n;
});

/**
 * parseFtlNumber of the common texts ("12", "-260.75", "3.50": an optional minus, at most 15
 * digits, an optional fraction) without the general BigDecimal syntax: the same values (an
 * integer as a number, even "-0" and "2.00"; a fraction as the exact BigDec); null for any other text.
 */
function plainDecimal(s: string): number | BigDec | null {
  const n = s.length;
  if (n === 0 || n > 17) return null;
  let i = s.charCodeAt(0) === 45 ? 1 : 0;
  const intStart = i;
  let c = 0;
  while (i < n && (c = s.charCodeAt(i)) >= 48 && c <= 57) i++;
  const intEnd = i;
  if (intEnd === intStart) return null;
  if (i === n) return n - intStart <= 15 ? Number(s) + 0 : null;
  if (c !== 46) return null;
  i++;
  let fracZero = true;
  const fracStart = i;
  while (i < n && (c = s.charCodeAt(i)) >= 48 && c <= 57) {
    if (c !== 48) fracZero = false;
    i++;
  }
  if (i < n || i === fracStart || n - 1 - intStart > 15) return null;
  if (fracZero) return Number(s.slice(0, intEnd)) + 0;
  return BigDec.fromDigits(intStart === 1, s.slice(intStart, intEnd) + s.slice(fracStart), n - fracStart);
}

/** ArithmeticEngine.toNumber: INF/NaN, else java.math.BigDecimal syntax. */
export function parseFtlNumber(s: string): number | BigDec | JDouble | null {
  if (s.length > 2) {
    if (s === 'INF' || s === 'Infinity') return new JDouble(Infinity);
    if (s === 'NaN') return new JDouble(NaN);
    if (s === '-INF' || s === '-Infinity') return new JDouble(-Infinity);
  }
  const plain = plainDecimal(s);
  if (plain !== null) return plain;
  try {
    const b = BigDec.parse(s.startsWith('+') ? s.slice(1) : s);
    if (b.scale <= 0 || b.stripTrailingZeros().scale <= 0) {
      const v = b.toBigInt();
      if (v >= -9007199254740991n && v <= 9007199254740991n) return Number(v);
      return new BigDec(v, 0);
    }
    return b;
  } catch (e) {
    if (e instanceof NumberFormatError) return null;
    throw e;
  }
}

stringBuiltIn('boolean', (s, env, node) => {
  if (s === 'true') return true;
  if (s === 'false') return false;
  const bf = env.settings.booleanFormat;
  if (bf !== 'true,false' && bf !== 'c') {
    if (s === formatBoolean(env, true, node)) return true;
    if (s === formatBoolean(env, false, node)) return false;
  }
  throw blamedError('_MiscTemplateException', `Can't convert this string to boolean: ${jQuote(s)}`, node);
});

// ------------------------------------------------------------------ encodings

export function javaStringEnc(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (c === 34) out += '\\"';
    else if (c === 92) out += '\\\\';
    else if (c < 0x20) {
      if (c === 10) out += '\\n';
      else if (c === 13) out += '\\r';
      else if (c === 9) out += '\\t';
      else if (c === 8) out += '\\b';
      else if (c === 12) out += '\\f';
      else out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
    } else out += ch;
  }
  return out;
}

/** StringUtil.javaScriptStringEnc / jsonStringEnc. */
export function jsStringEnc(s: string, json: boolean): string {
  // the runs between escapes are copied whole; a string without any comes back as it is
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let e: string | null = null;
    if (c === 34) e = '\\"';
    else if (c === 39) {
      if (!json) e = "\\'";
    } else if (c === 92) e = '\\\\';
    else if (c === 47) {
      if (i > 0 && s.charCodeAt(i - 1) === 60) e = '\\/';
    } else if (c === 62) {
      if (i > 1 && s.charCodeAt(i - 1) === 93 && s.charCodeAt(i - 2) === 93) e = json ? '\\u003E' : '\\>';
    } else if (c === 60) {
      // "<!", and a "<" at the end (what follows the string might be "!"), as FreeMarker
      if (i + 1 === s.length || s.charCodeAt(i + 1) === 33) e = json ? '\\u003C' : '\\x3C';
    } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) {
      if (c === 10) e = '\\n';
      else if (c === 13) e = '\\r';
      else if (c === 9) e = '\\t';
      else if (c === 8) e = '\\b';
      else if (c === 12) e = '\\f';
      else if (!json && c < 0x100) e = '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
      else e = '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
    }
    if (e !== null) {
      out += s.slice(from, i) + e;
      from = i + 1;
    }
  }
  return from === 0 ? s : out + s.slice(from);
}

const URL_SAFE = /[A-Za-z0-9_\-.!~*'()]/;

function urlEnc(s: string, charset: string, keepSlash: boolean): string {
  if (/^utf-?8$/i.test(charset)) {
    // FreeMarker's safe set is exactly encodeURIComponent's unreserved set, and both write the
    // UTF-8 bytes as upper-case %XX; a lone surrogate (URIError) takes the general path.
    try {
      const e = encodeURIComponent(s);
      return keepSlash ? e.replace(/%2F/g, '/') : e;
    } catch {
      // fall through
    }
  }
  let out = '';
  let run = '';
  const flush = (): void => {
    if (!run) return;
    const bytes = /^utf-?8$/i.test(charset)
      ? Buffer.from(run, 'utf8')
      : /^utf-?16$/i.test(charset)
        ? Buffer.concat([Buffer.from([0xfe, 0xff]), iconv().encode(run, 'utf16be')])
        : iconv().encode(run, charset);
    for (const b of bytes) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
    run = '';
  };
  for (const ch of s) {
    if (URL_SAFE.test(ch) || (keepSlash && ch === '/')) {
      flush();
      out += ch;
    } else run += ch;
  }
  flush();
  return out;
}

/** After FreeMarker's message: what a flowmark script (whose "programmers" are its own authors) can do. */
const URL_CHARSET_HINT =
  " (flowmark sets neither for a template: give the charset to the built-in, e.g. foo?url('UTF-8'), or set it once at the top of the template: <#setting url_escaping_charset='UTF-8'>)";

function urlCharset(env: Env, a: unknown[], n: A.BuiltInExpr): string {
  if (a.length) return argString(n, a, 0);
  const cs = env.settings.urlEscapingCharset ?? env.settings.outputEncoding;
  if (!cs) {
    throw biError(
      n,
      'To do URL encoding, the framework that encloses FreeMarker must specify the "output_encoding" setting or the "url_escaping_charset" setting, so ask the programmers to set them. Or, as a last chance, you can set the url_encoding_charset setting in the template, e.g. <#setting url_escaping_charset=\'ISO-8859-1\'>, or give the charset explicitly to the built-in, e.g. foo?url(\'ISO-8859-1\').' +
        URL_CHARSET_HINT,
    );
  }
  return cs;
}

for (const [name, keepSlash] of [
  ['url', false],
  ['url_path', true],
] as const) {
  // a UTF-16 unit is at most 3 bytes of UTF-8 (4 for a pair), other charsets at most 4: %XX each
  const url = (env: Env, n: A.BuiltInExpr, s: string, cs: string) =>
    charged(
      env,
      n,
      s,
      escaped(env, n, s, (x) => urlEnc(x, cs, keepSlash), 12),
    );
  def(name, {
    value: (env, t, n) => {
      const s = str(env, t, n);
      return url(env, n, s, urlCharset(env, [], n));
    },
    call: (env, t, a, n) => {
      const s = str(env, t, n);
      checkArgs(n, a, 0, 1);
      const cs = urlCharset(env, a, n);
      if (!/^utf-?8$/i.test(cs) && !iconv().encodingExists(cs))
        throw biError(n, `Unsupported charset: ${cs}`);
      return url(env, n, s, cs);
    },
    // ?url("UTF-8"): the charset is known to be UTF-8 once for all
    prepare: (a) => {
      const cs = a[0];
      if (a.length !== 1 || typeof cs !== 'string' || !/^utf-?8$/i.test(cs)) return undefined;
      return (env, t, n) => url(env, n, str(env, t, n), cs);
    },
  });
}

export const STRING_BUILT_INS = records;
