/**
 * The regular-expression flags of FreeMarker's string built-ins and a translation of the Java
 * regex dialect to JavaScript's (\A, \z, \Z, \Q…\E, POSIX \p{…} classes, inline (?i) flags,
 * possessive quantifiers and atomic groups approximated by their greedy forms).
 */

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
        if (!allowFirstOnly) throw new RegexFlagError(`?${builtin} doesn't support the "f" flag.`);
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
        throw new RegexFlagError(`Unrecognized regular expression flag: ${JSON.stringify(c)}.`);
    }
  }
  if (!f.regex && (f.multiline || f.dotAll || f.comments)) {
    const which = f.multiline ? 'm' : f.dotAll ? 's' : 'c';
    throw new RegexFlagError(
      `?${builtin}: The regular expression specific flag "${which}" is only applicable when the "r" flag is also used.`,
    );
  }
  return f;
}

const POSIX: Record<string, string> = {
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
};

const cache = new Map<string, RegExp>();

/** Compiles a Java pattern; `global` for find-all use. */
export function javaRegex(pattern: string, f: RegexFlags, extraFlags = ''): RegExp {
  const key = `${pattern}\u0000${f.caseInsensitive}${f.multiline}${f.dotAll}${f.comments}${extraFlags}`;
  let re = cache.get(key);
  if (!re) {
    const { source, flags } = translate(f.comments ? stripComments(pattern) : pattern);
    let fl = extraFlags + flags;
    if (f.caseInsensitive && !fl.includes('i')) fl += 'i';
    if (f.multiline && !fl.includes('m')) fl += 'm';
    if (f.dotAll && !fl.includes('s')) fl += 's';
    re = new RegExp(source, fl);
    if (cache.size > 1000) cache.clear();
    cache.set(key, re);
  }
  re.lastIndex = 0;
  return re;
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

function translate(p: string): { source: string; flags: string } {
  let flags = '';
  let out = '';
  let i = 0;
  // leading inline flags (?i) (?s) (?m) (?is)…
  const lead = /^\(\?([imsux]+)\)/.exec(p);
  if (lead) {
    for (const c of lead[1]) if ('ims'.includes(c) && !flags.includes(c)) flags += c;
    i = lead[0].length;
  }
  let inClass = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '\\') {
      const n = p[i + 1];
      if (n === 'Q') {
        const end = p.indexOf('\\E', i + 2);
        const lit = end < 0 ? p.slice(i + 2) : p.slice(i + 2, end);
        out += lit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
        i = end < 0 ? p.length : end + 2;
        continue;
      }
      if (n === 'A' && !inClass) {
        out += '(?<![\\s\\S])';
        i += 2;
        continue;
      }
      if (n === 'z' && !inClass) {
        out += '(?![\\s\\S])';
        i += 2;
        continue;
      }
      if (n === 'Z' && !inClass) {
        out += '(?=\\n?(?![\\s\\S]))';
        i += 2;
        continue;
      }
      if ((n === 'p' || n === 'P') && p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        const name = p.slice(i + 3, end).replace(/^Is/, '');
        const cls = POSIX[name];
        if (cls !== undefined) {
          const neg = n === 'P';
          out += inClass ? (neg ? '' : cls) : `[${neg ? '^' : ''}${cls}]`;
          i = end + 1;
          continue;
        }
      }
      out += c + (n ?? '');
      i += 2;
      continue;
    }
    if (c === '[') inClass++;
    else if (c === ']' && inClass) inClass--;
    if (!inClass) {
      if (c === '(' && p.startsWith('(?>', i)) {
        out += '(?:';
        i += 3;
        continue;
      }
      if ((c === '+' || c === '*' || c === '?' || c === '}') && p[i + 1] === '+') {
        out += c;
        i += 2;
        continue;
      }
    }
    out += c;
    i++;
  }
  return { source: out, flags };
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Java's Matcher.replaceAll replacement syntax ($1, \$) → a JS replacer. */
export function javaReplacement(rep: string): (match: string, ...groups: unknown[]) => string {
  return (...args: unknown[]) => {
    let end = args.length;
    if (typeof args[end - 1] === 'object' && args[end - 1] !== null) end--; // named groups object
    const groups = args.slice(0, end - 2); // drop offset and input
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
