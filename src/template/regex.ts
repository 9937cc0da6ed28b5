/**
 * The regular-expression flags of FreeMarker's string built-ins and a translation of the Java
 * regex dialect to JavaScript's (\A, \z, \Z, \Q…\E, POSIX \p{…} classes, inline (?i) flags,
 * possessive quantifiers and atomic groups approximated by their greedy forms).
 */

import { setFlagsFromString } from 'node:v8';
import { dict } from './dict.js';

// Catastrophic backtracking ("(a+)+b" on a long non-match) would block the process for minutes and
// cannot be interrupted by the step budget. V8 can switch such a match to its linear-time engine
// after too many backtracks; the results are the same (patterns with back-references or
// look-arounds, which that engine lacks, keep the backtracking engine). Process-wide, harmless.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

export interface RegexFlags {
  caseInsensitive: boolean;
  regex: boolean;
  firstOnly: boolean;
  multiline: boolean;
  dotAll: boolean;
  comments: boolean;
}

export class RegexFlagError extends Error {}

export function parseFlags(
  flags: string,
  builtin: string,
  allowFirstOnly: boolean,
  regexOnly: boolean,
  /** The 2.3.0 built-ins (?matches, ?replace, ?split) ignore bad flags instead of failing. */
  lenient = false,
): RegexFlags {
  const f: RegexFlags = {
    caseInsensitive: false,
    regex: regexOnly,
    firstOnly: false,
    multiline: false,
    dotAll: false,
    comments: false,
  };
  for (const c of flags) {
    switch (c) {
      case 'i':
        f.caseInsensitive = true;
        break;
      case 'r':
        f.regex = true;
        break;
      case 'f':
        if (!allowFirstOnly) {
          if (lenient) break;
          throw new RegexFlagError(`?${builtin} doesn't support the "f" flag.`);
        }
        f.firstOnly = true;
        break;
      case 'm':
        f.multiline = true;
        break;
      case 's':
        f.dotAll = true;
        break;
      case 'c':
        f.comments = true;
        break;
      default:
        if (lenient) break;
        throw new RegexFlagError(`Unrecognized regular expression flag: ${JSON.stringify(c)}.`);
    }
  }
  if (!f.regex && (f.multiline || f.dotAll || f.comments) && !lenient) {
    const which = f.multiline ? 'm' : f.dotAll ? 's' : 'c';
    throw new RegexFlagError(
      `?${builtin}: The "${which}" flag is only applicable when the "r" (regular expression) flag is also used.`,
    );
  }
  return f;
}

const POSIX: Record<string, string> = dict({
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: '\\x00-\\x7F',
  Alpha: 'a-zA-Z',
  Digit: '0-9',
  Alnum: 'a-zA-Z0-9',
  Punct: '!-\\/:-@\\[-`{-~',
  Graph: '!-~',
  Print: ' -~',
  Blank: ' \\t',
  Cntrl: '\\x00-\\x1F\\x7F',
  XDigit: '0-9a-fA-F',
  Space: ' \\t\\n\\x0B\\f\\r',
  javaLowerCase: 'a-z',
  javaUpperCase: 'A-Z',
  javaWhitespace: ' \\t\\n\\x0B\\f\\r\\x1C-\\x1F',
});

/** A compiled Java pattern; `groups[i]` is the JavaScript group of the pattern's group i. */
export interface JavaRegExp {
  re: RegExp;
  groups: number[];
}

const cache = new Map<string, JavaRegExp>();

/** Compiles a Java pattern; `extraFlags` "g" for find-all use, "y" for sticky. */
export function javaPattern(pattern: string, f: RegexFlags, extraFlags = ''): JavaRegExp {
  const bits =
    (f.caseInsensitive ? 1 : 0) | (f.multiline ? 2 : 0) | (f.dotAll ? 4 : 0) | (f.comments ? 8 : 0);
  const key = pattern + '\u0000' + bits + extraFlags;
  let jr = cache.get(key);
  if (!jr) {
    const t = translate(f.comments ? stripComments(pattern) : pattern);
    let fl = extraFlags + t.flags;
    if (f.caseInsensitive && !fl.includes('i')) fl += 'i';
    if (f.multiline && !fl.includes('m')) fl += 'm';
    if (f.dotAll && !fl.includes('s')) fl += 's';
    jr = { re: new RegExp(t.source, fl), groups: t.groups };
    if (cache.size > 1000) cache.clear();
    cache.set(key, jr);
  }
  jr.re.lastIndex = 0;
  return jr;
}

/** The pattern's own groups of a JavaScript match (group 0 first). */
export function userGroups(m: RegExpExecArray, groups: number[]): (string | undefined)[] {
  return groups.map((g) => m[g]);
}

function stripComments(p: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      out += c + (p[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    if (!inClass && /\s/.test(c)) continue;
    if (!inClass && c === '#') {
      while (i < p.length && p[i] !== '\n') i++;
      continue;
    }
    out += c;
  }
  return out;
}

interface Translation {
  source: string;
  flags: string;
  groups: number[];
}

const OPEN_MARK = '\u0001';
const REF_MARK = '\u0002';

/**
 * Java → JavaScript pattern. Possessive quantifiers and atomic groups become `(?=(X))\n` (an
 * extra capturing group); the pattern's own groups are renumbered through `groups`.
 */
function translate(p: string): Translation {
  let flags = '';
  let i = 0;
  const lead = /^\(\?([imsux]+)\)/.exec(p);
  if (lead) {
    for (const c of lead[1]) if ('ims'.includes(c) && !flags.includes(c)) flags += c;
    i = lead[0].length;
  }
  let out = '';
  let wrappers = 0;
  let lastAtom = -1;
  const groupStack: { start: number; atomic: number }[] = [];
  let inClass = false;
  while (i < p.length) {
    const c = p[i];
    if (inClass) {
      if (c === '\\') {
        const n = p[i + 1];
        if ((n === 'p' || n === 'P') && p[i + 2] === '{') {
          const end = p.indexOf('}', i + 3);
          const cls = POSIX[p.slice(i + 3, end).replace(/^Is/, '')];
          if (cls !== undefined && n === 'p') {
            out += cls;
            i = end + 1;
            continue;
          }
        }
        out += c + (n ?? '');
        i += 2;
        continue;
      }
      if (c === ']') inClass = false;
      out += c;
      i++;
      continue;
    }
    if (c === '\\') {
      const n = p[i + 1];
      lastAtom = out.length;
      if (n === 'Q') {
        const end = p.indexOf('\\E', i + 2);
        const lit = end < 0 ? p.slice(i + 2) : p.slice(i + 2, end);
        out += '(?:' + lit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&') + ')';
        i = end < 0 ? p.length : end + 2;
        continue;
      }
      if (n === 'A' || n === 'z' || n === 'Z') {
        out += n === 'A' ? '(?<![\\s\\S])' : n === 'z' ? '(?![\\s\\S])' : '(?=\\n?(?![\\s\\S]))';
        i += 2;
        continue;
      }
      if ((n === 'p' || n === 'P') && p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        const cls = POSIX[p.slice(i + 3, end).replace(/^Is/, '')];
        if (cls !== undefined) {
          out += `[${n === 'P' ? '^' : ''}${cls}]`;
          i = end + 1;
          continue;
        }
      }
      if (n !== undefined && /[1-9]/.test(n)) {
        let j = i + 1;
        let num = '';
        while (j < p.length && /\d/.test(p[j])) num += p[j++];
        out += `${REF_MARK}U${num}${REF_MARK}`;
        i = j;
        continue;
      }
      out += c + (n ?? '');
      i += 2;
      continue;
    }
    if (c === '[') {
      lastAtom = out.length;
      inClass = true;
      out += c;
      i++;
      if (p[i] === '^') {
        out += '^';
        i++;
      }
      if (p[i] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(') {
      if (p.startsWith('(?>', i)) {
        const id = ++wrappers;
        groupStack.push({ start: out.length, atomic: id });
        out += `(?=(${OPEN_MARK}W${id}${OPEN_MARK}`;
        i += 3;
        continue;
      }
      groupStack.push({ start: out.length, atomic: 0 });
      out += c;
      i++;
      continue;
    }
    if (c === ')') {
      const g = groupStack.pop();
      out += g && g.atomic ? `))${REF_MARK}W${g.atomic}${REF_MARK}` : ')';
      lastAtom = g ? g.start : -1;
      i++;
      continue;
    }
    const quant = /^(?:[*+?]|\{\d+(?:,\d*)?\})/.exec(p.slice(i));
    if (quant) {
      const q = quant[0];
      if (p[i + q.length] === '+' && lastAtom >= 0) {
        const id = ++wrappers;
        out =
          out.slice(0, lastAtom) +
          `(?=(${OPEN_MARK}W${id}${OPEN_MARK}` +
          out.slice(lastAtom) +
          q +
          `))${REF_MARK}W${id}${REF_MARK}`;
        i += q.length + 1;
        continue;
      }
      out += q;
      i += q.length;
      if (p[i] === '?') {
        out += '?';
        i++;
      }
      continue;
    }
    lastAtom = out.length;
    out += c;
    i++;
  }
  // number the capturing groups in order of their opening parenthesis
  const userToJs: number[] = [0];
  const wrapperNum = new Map<string, number>();
  let n = 0;
  let res = '';
  let cls = false;
  for (let k = 0; k < out.length; k++) {
    const ch = out[k];
    if (ch === '\\') {
      res += ch + (out[k + 1] ?? '');
      k++;
      continue;
    }
    if (cls) {
      if (ch === ']') cls = false;
      res += ch;
      continue;
    }
    if (ch === '[') cls = true;
    if (ch === '(') {
      const named = out.startsWith('(?<', k) && !out.startsWith('(?<=', k) && !out.startsWith('(?<!', k);
      if (out[k + 1] !== '?' || named) {
        n++;
        if (out[k + 1] === OPEN_MARK) {
          const end = out.indexOf(OPEN_MARK, k + 2);
          wrapperNum.set(out.slice(k + 2, end), n);
          res += '(';
          k = end;
          continue;
        }
        userToJs.push(n);
      }
    }
    res += ch;
  }
  res = res.replace(new RegExp(`${REF_MARK}([UW])(\\d+)${REF_MARK}`, 'g'), (_m, kind: string, num: string) =>
    kind === 'W' ? '\\' + wrapperNum.get('W' + num) : '\\' + (userToJs[Number(num)] ?? num),
  );
  return { source: res, flags, groups: userToJs };
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Java's Matcher.replaceAll replacement syntax ($1, \$) → a JS replacer. */
export function javaReplacement(
  rep: string,
  groupMap: number[],
): (match: string, ...groups: unknown[]) => string {
  return (...args: unknown[]) => {
    let end = args.length;
    if (typeof args[end - 1] === 'object' && args[end - 1] !== null) end--; // named groups object
    const all = args.slice(0, end - 2); // drop offset and input
    const groups = groupMap.map((g) => all[g]);
    let out = '';
    for (let i = 0; i < rep.length; i++) {
      const c = rep[i];
      if (c === '\\') {
        out += rep[i + 1] ?? '';
        i++;
      } else if (c === '$') {
        let j = i + 1;
        let num = '';
        while (j < rep.length && /\d/.test(rep[j]) && Number(num + rep[j]) < groups.length) num += rep[j++];
        if (num === '') throw new RegexFlagError('Illegal group reference');
        out += (groups[Number(num)] as string | undefined) ?? '';
        i = j - 1;
      } else out += c;
    }
    return out;
  };
}
