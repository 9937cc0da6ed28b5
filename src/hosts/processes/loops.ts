/** A step's loop (count, over, while) and a manual task's timers: what the next iteration or the due time is. */
import type { RunCursor, StepDefinition } from '../../platform/processes/index.js';
import { parseDuration } from '../../platform/processes/index.js';
import { StepFailure } from './failure.js';
import { show } from './submission.js';

/**
 * Whether a loop runs another iteration, and the bound to keep in the cursor (the count or the
 * items are computed once, at the first iteration). `evaluate` renders one of the loop's templates.
 */
export async function decideLoop(
  loop: NonNullable<StepDefinition['loop']>,
  cursor: RunCursor,
  label: string,
  max: number,
  dataDocumentBytes: number,
  evaluate: (source: string) => Promise<unknown>,
): Promise<{ go: boolean; loop: RunCursor['loop'] }> {
  if ('count' in loop) {
    let count = cursor.loop?.count;
    if (count === undefined) {
      const value = await evaluate(loop.count);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max)
        throw new StepFailure(
          `${label}: the loop count must be a whole number from 0 to ${max}, not ${show(value)}`,
        );
      count = value;
    }
    return { go: cursor.iteration < count, loop: { count } };
  }
  if ('over' in loop) {
    let items = cursor.loop?.items;
    if (items === undefined) {
      let value = await evaluate(loop.over);
      if (typeof value === 'string' && value.trim() === '') value = [];
      if (!Array.isArray(value))
        throw new StepFailure(`${label}: the loop must iterate over an array (JSON), not ${show(value)}`);
      if (value.length > max)
        throw new StepFailure(`${label}: the loop has ${value.length} items, more than ${max}`);
      const bytes = Buffer.byteLength(JSON.stringify(value));
      if (bytes > dataDocumentBytes)
        throw new StepFailure(
          `${label}: the loop's items take ${bytes} bytes, over the data document's maximum of ${dataDocumentBytes}`,
        );
      items = value;
    }
    return { go: cursor.iteration < items.length, loop: { items } };
  }
  if (cursor.iteration >= max) throw new StepFailure(`${label}: the loop ran ${max} iterations, its maximum`);
  if ('doWhile' in loop && cursor.iteration === 0) return { go: true, loop: undefined };
  const value = await evaluate('doWhile' in loop ? loop.doWhile : loop.while);
  if (typeof value !== 'boolean')
    throw new StepFailure(`${label}: the loop condition must print true or false, not ${show(value)}`);
  return { go: value, loop: undefined };
}

/** A timer's due time from the value its definition gave: epoch milliseconds, a duration from now or an ISO-8601 date-time. */
export function dueTime(
  value: unknown,
  now: number,
  label: string,
  what: 'deadline' | 'reminder' | 'timer',
): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string') {
    const ms = parseDuration(value);
    if (ms !== undefined) return now + ms;
    const time = /^\d{4}-\d\d-\d\dT/.test(value.trim()) ? Date.parse(value) : NaN;
    if (!Number.isNaN(time)) return time;
  }
  throw new StepFailure(
    `${label}: the ${what} must be a duration (90s, 15m, 2h, 1d, PT1H30M), a time in epoch milliseconds or an ISO-8601 date-time, not ${show(value)}`,
  );
}
