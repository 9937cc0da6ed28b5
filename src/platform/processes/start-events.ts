/**
 * What a start event waits for before it starts a request by itself (docs/hosts.md, "Triggers"):
 * a timer — a date, a duration after the definition was saved, or a cycle (an ISO 8601 repetition
 * `R[n]/[start/]duration`, or a five-field cron expression read by croner, in its time zone) — or a named
 * message. This module checks them and computes a timer's ticks; triggers.ts keeps the schedule.
 */
import { Cron } from 'croner';
import { PlatformError } from '../errors.js';
import { isPlainObject } from '../model.js';
import { isoDurationMs } from './durations.js';
import { errorMessage } from '../../errors/index.js';

/**
 * A cron `cycle` may name its IANA `timezone` (else the account's, docs/hosts.md, "Time zones of
 * cron cycles"); a repetition, a date and a duration carry their offsets and take none.
 */
export type StartTimer = { date: string } | { duration: string } | { cycle: string; timezone?: string };

/** A cycle fires at most once a minute (a faster one is refused when the definition is saved). */
export const MIN_CYCLE_MS = 60_000;

/** A message name: 1–100 characters (the server's longest path parameter), no control characters. */
const MESSAGE = /^[^\p{Cc}]{1,100}$/u;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:?\d{2})$/;
function invalid(path: string, message: string): PlatformError {
  return new PlatformError('invalid', `${path}: ${message}`);
}

function dateMs(text: string): number | undefined {
  if (!DATE_TIME.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** An ISO 8601 repetition `R[n]/[start/]duration`: how many ticks (null: unbounded), from when, how often. */
interface Repetition {
  count: number | null;
  start: number | null;
  periodMs: number;
}

function repetition(text: string): Repetition | string {
  const parts = text.split('/');
  const head = /^R(\d{0,9})$/.exec(parts[0]!);
  if (!head || parts.length < 2 || parts.length > 3)
    return 'is not an ISO 8601 repetition R[n]/[start/]duration (R/PT1H, R3/2026-01-01T09:00:00Z/P1D)';
  const count = head[1] === '' ? null : Number(head[1]);
  if (count === 0) return 'repeats 0 times';
  const start = parts.length === 3 ? dateMs(parts[1]!) : null;
  if (start === undefined)
    return `has a start ${JSON.stringify(parts[1])} that is not an ISO 8601 date-time with its offset (2026-01-01T09:00:00Z)`;
  const period = isoDurationMs(parts[parts.length - 1]!);
  if (period === undefined)
    return `has a period ${JSON.stringify(parts[parts.length - 1])} that is not an ISO 8601 duration of fixed length (PT15M, P1D, P1W)`;
  if (period < MIN_CYCLE_MS) return `repeats every ${period / 1000} s, more often than once a minute`;
  return { count, start, periodMs: period };
}

/** Whether a text is an IANA time zone this runtime knows (Europe/Paris, UTC). */
export function isTimeZone(zone: string): boolean {
  if (zone === '' || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function cron(text: string, timezone = 'UTC'): Cron | string {
  try {
    return new Cron(text, { paused: true, timezone, mode: '5-part' });
  } catch (e) {
    return `is not an ISO 8601 repetition (R/PT1H) nor a cron expression of five fields (minute hour day month weekday): ${errorMessage(e)}`;
  }
}

/** What is wrong with a timer's text, or undefined. */
function timerProblem(timer: StartTimer): string | undefined {
  if ('date' in timer)
    return dateMs(timer.date) === undefined
      ? 'is not an ISO 8601 date-time with its offset (2026-01-01T09:00:00Z)'
      : undefined;
  if ('duration' in timer)
    return isoDurationMs(timer.duration) === undefined
      ? 'is not an ISO 8601 duration of fixed length (PT15M, P1D, P1W)'
      : undefined;
  const text = timer.cycle;
  if (text.startsWith('R')) {
    const r = repetition(text);
    return typeof r === 'string' ? r : undefined;
  }
  const c = cron(text);
  if (typeof c === 'string') return c;
  if (c.nextRun(new Date(0)) === null) return 'never fires';
  return undefined;
}

const KIND_NAME = { date: 'timeDate', duration: 'timeDuration', cycle: 'timeCycle' } as const;

/** Checks a start node's `timer` (`path` names it; `nodeId` its start event). */
export function parseStartTimer(value: unknown, path: string, nodeId: string): StartTimer {
  if (!isPlainObject(value)) throw invalid(path, 'must be {"date": …}, {"duration": …} or {"cycle": …}');
  const keys = Object.keys(value).filter((k) => k !== 'timezone');
  const kind = keys[0];
  if (keys.length !== 1 || (kind !== 'date' && kind !== 'duration' && kind !== 'cycle'))
    throw invalid(path, 'must be {"date": …}, {"duration": …} or {"cycle": …}');
  const text = value[kind];
  if (typeof text !== 'string' || text.length > 1024)
    throw invalid(`${path}.${kind}`, 'must be a text of at most 1024 characters');
  const timer = { [kind]: text.trim() } as StartTimer;
  const problem = timerProblem(timer);
  if (problem)
    throw invalid(
      `${path}.${kind}`,
      `the ${KIND_NAME[kind]} ${JSON.stringify(text)} of start event ${JSON.stringify(nodeId)} ${problem}`,
    );
  if (value.timezone === undefined) return timer;
  const zone = value.timezone;
  if (!('cycle' in timer) || timer.cycle.startsWith('R'))
    throw invalid(
      `${path}.timezone`,
      `start event ${JSON.stringify(nodeId)}: a time zone applies to a cron timeCycle only (a date, a duration and a repetition carry their offsets)`,
    );
  if (typeof zone !== 'string' || !isTimeZone(zone))
    throw invalid(
      `${path}.timezone`,
      `the time zone ${JSON.stringify(zone)} of start event ${JSON.stringify(nodeId)} is not an IANA time zone (Europe/Paris, America/New_York, UTC)`,
    );
  return { cycle: timer.cycle, timezone: zone };
}

/** Checks a start node's `message` name. */
export function parseStartMessage(value: unknown, path: string): string {
  if (typeof value !== 'string' || !MESSAGE.test(value))
    throw invalid(path, 'must be a message name of 1 to 100 characters without control characters');
  return value;
}

/**
 * The first tick of a timer strictly after `after`, for a schedule that began at `anchor` (when
 * the definition was saved); null when none is left. A date fires once at that date (at once
 * when it is already past at `anchor`), a duration once, that long after `anchor`; a repetition
 * without a start first fires one period after `anchor`.
 */
export function nextTick(timer: StartTimer, anchor: number, after: number): number | null {
  if ('date' in timer) {
    const at = Math.max(dateMs(timer.date)!, anchor);
    return at > after ? at : null;
  }
  if ('duration' in timer) {
    const at = anchor + isoDurationMs(timer.duration)!;
    return at > after ? at : null;
  }
  if (timer.cycle.startsWith('R')) {
    const r = repetition(timer.cycle) as Repetition;
    const first = r.start ?? anchor + r.periodMs;
    const index = after < first ? 0 : Math.floor((after - first) / r.periodMs) + 1;
    if (r.count !== null && index >= r.count) return null;
    return first + index * r.periodMs;
  }
  const next = (cron(timer.cycle, timer.timezone) as Cron).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

/** How a timer reads in messages: `timeCycle "R/PT1H"`, `timeCycle "0 9 * * *" in Europe/Paris`. */
export function describeTimer(timer: StartTimer): string {
  const [kind, text] = Object.entries(timer)[0] as [keyof typeof KIND_NAME, string];
  const zone = 'timezone' in timer && timer.timezone !== undefined ? ` in ${timer.timezone}` : '';
  return `${KIND_NAME[kind]} ${JSON.stringify(text)}${zone}`;
}

/**
 * The timer a schedule follows: a cron cycle without its own time zone reads in the account's
 * (`accountZone`, when this runtime knows it), else UTC.
 */
export function scheduledTimer(timer: StartTimer, accountZone: string | undefined): StartTimer {
  if (!('cycle' in timer) || timer.cycle.startsWith('R') || timer.timezone !== undefined) return timer;
  return { cycle: timer.cycle, timezone: accountZone && isTimeZone(accountZone) ? accountZone : 'UTC' };
}
