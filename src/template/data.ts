/**
 * Data in the oracle's JSON convention (used by the CLI and the tests): {"$date": "2020-01-31"},
 * {"$time": "13:45:00"}, {"$datetime": "2020-01-31T13:45:00Z"} are dates (without an offset the
 * given time zone applies); null is missing. Object key order and big numbers are kept exactly.
 */
import { parseJson } from './builtins/json.js';
import { parseIso } from './format.js';
import { FmDate } from './values.js';

export function fromJsonData(json: string, timeZone = 'UTC'): unknown {
  return convert(parseJson(json), timeZone);
}

/** Converts a value parsed by parseJson (objects as Maps) to template data: dates, null = missing. */
export function convert(v: unknown, tz: string): unknown {
  if (Array.isArray(v)) return v.map((x) => convert(x, tz));
  if (v instanceof Map) {
    if (v.size === 1) {
      const [[k, val]] = v;
      if (typeof val === 'string') {
        if (k === '$date') return new FmDate(parseIso(val, 'date', tz), 'date');
        if (k === '$time') return new FmDate(parseIso(val, 'time', tz), 'time');
        if (k === '$datetime') return new FmDate(parseIso(val, 'datetime', tz), 'datetime');
      }
    }
    const m = new Map<string, unknown>();
    for (const [k, val] of v) m.set(k, convert(val, tz));
    return m;
  }
  return v;
}

/** A data model (hash) from JSON text in the oracle's convention. */
export function dataFromJson(json: string, timeZone = 'UTC'): Map<string, unknown> {
  const v = fromJsonData(json, timeZone);
  if (!(v instanceof Map)) throw new Error('The data must be a JSON object.');
  return v;
}
