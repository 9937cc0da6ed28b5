/**
 * The size of a JSON answer, counted before Fastify serialises it: a route answering documents
 * refuses (413) what would pass the evaluation's output limit instead of building a string of
 * hundreds of megabytes (or past V8's string limit, which would be a 500).
 */
import type { Budget } from '../limits/index.js';

/** `value` itself, when its JSON stays within the budget's output limit; else the output error. */
export function fitsResponse<T>(value: T, budget: Budget, what: string): T {
  const max = budget.limits.maxOutputChars;
  if (jsonLengthOver(value, max)) throw budget.outputError(what);
  return value;
}

/** Whether the JSON text of `value` would be longer than `max` characters (escapes not counted). */
function jsonLengthOver(value: unknown, max: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length + 2;
    else if (v === null || typeof v !== 'object') total += 8;
    else if (Array.isArray(v)) {
      total += 1 + v.length;
      for (const item of v) stack.push(item);
    } else {
      for (const [k, item] of Object.entries(v)) {
        total += k.length + 4;
        stack.push(item);
      }
      total += 2;
    }
    if (total > max) return true;
  }
  return false;
}
