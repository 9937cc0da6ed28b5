/**
 * JSON.stringify for values a script built, under a character limit. The text is built piece by
 * piece and refused as soon as it passes the limit, before a huge string exists; a container met
 * again (shared structure: `[h, h]` nested 30 times is 2^30 leaves but 30 arrays) is written once
 * and its text reused, so the work stays proportional to the distinct containers and the limit.
 * A container inside itself (a cycle) is written `null` where it recurs.
 *
 * Same text as JSON.stringify otherwise: toJSON, undefined/functions skipped in objects and null
 * in arrays, non-finite numbers null.
 */

export function boundedJson(value: unknown, maxChars: number, tooLarge: () => Error): string | undefined {
  const done = new Map<object, string>();
  const open = new Set<object>();
  const text = (v: unknown, key: string): string | undefined => {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
      v = (v as { toJSON(k: string): unknown }).toJSON(key);
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'string' && v.length > maxChars) throw tooLarge();
      return JSON.stringify(v);
    }
    const known = done.get(v);
    if (known !== undefined) return known;
    if (open.has(v)) return 'null';
    open.add(v);
    let s: string;
    if (Array.isArray(v)) {
      s = '[';
      for (let i = 0; i < v.length; i++) {
        s += (i ? ',' : '') + (text(v[i], String(i)) ?? 'null');
        if (s.length > maxChars) throw tooLarge();
      }
      s += ']';
    } else {
      s = '{';
      let first = true;
      for (const k of Object.keys(v)) {
        const t = text((v as Record<string, unknown>)[k], k);
        if (t === undefined) continue;
        s += (first ? '' : ',') + JSON.stringify(k) + ':' + t;
        first = false;
        if (s.length > maxChars) throw tooLarge();
      }
      s += '}';
    }
    open.delete(v);
    done.set(v, s);
    return s;
  };
  const out = text(value, '');
  if (out !== undefined && out.length > maxChars) throw tooLarge();
  return out;
}

/**
 * A lower bound of the length of `value`'s JSON text (and so of any text written from it, XML,
 * CSV …), refused with `tooLarge` as soon as it passes `maxChars`: shared containers are measured
 * once, a container inside itself has no finite text and is refused.
 */
export function boundedSize(value: unknown, maxChars: number, tooLarge: () => Error): number {
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  const size = (v: unknown): number => {
    if (v === null || v === undefined) return 4;
    if (typeof v === 'string') return v.length + 2;
    if (typeof v !== 'object') return String(v).length;
    if (v instanceof Date) return 26;
    const known = sizes.get(v);
    if (known !== undefined) return known;
    if (open.has(v)) throw tooLarge();
    open.add(v);
    let n = 2;
    if (Array.isArray(v)) for (const x of v) n += size(x) + 1;
    else for (const k of Object.keys(v)) n += k.length + 4 + size((v as Record<string, unknown>)[k]);
    if (n > maxChars) throw tooLarge();
    open.delete(v);
    sizes.set(v, n);
    return n;
  };
  return size(value);
}
