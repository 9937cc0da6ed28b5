/**
 * Dates: date_format, date_offset, get_date, get_time, now, timestamp. Patterns are Java
 * SimpleDateFormat's (src/jdk), parsing is strict (lenient off) and the account's time zone and
 * locale (ctx) apply. Times cross the boundary as seconds (get_time/get_date) or milliseconds
 * (timestamp), as on the platform.
 */
import { addDays, JavaParseException, SimpleDateFormat } from '../../jdk/index.js';
import type { ExecutionContext } from '../context.js';
import { argumentError, messageOf } from '../errors.js';
import { defineFunction, type FunctionSpec, type ParamSpec } from '../spec.js';
import { choice } from './args.js';

export const DEFAULT_DATE_FORMAT = 'yyyy-MM-dd';

function dateFormat(
  ctx: ExecutionContext,
  fn: string,
  index: number,
  name: string,
  pattern: string,
): SimpleDateFormat {
  try {
    return new SimpleDateFormat(pattern, {
      locale: ctx.locale,
      timeZone: ctx.timeZone,
      lenient: false,
      now: ctx.clock,
    });
  } catch (e) {
    throw argumentError(fn, index, name, messageOf(e));
  }
}

function parseDate(
  ctx: ExecutionContext,
  fn: string,
  date: string,
  dateIndex: number,
  pattern: string,
  patternIndex: number,
  patternName: string,
): number {
  const sdf = dateFormat(ctx, fn, patternIndex, patternName, pattern);
  try {
    return sdf.parse(date);
  } catch (e) {
    if (e instanceof JavaParseException) throw argumentError(fn, dateIndex, 'date', e.message);
    throw e;
  }
}

const formatParam = (name: string) =>
  ({
    name,
    type: 'string',
    optional: true,
    default: DEFAULT_DATE_FORMAT,
  }) satisfies ParamSpec;

export const dateFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'date_format',
    group: 'Utilities',
    rights: 'none',
    doc: 'Reads `date` with the SimpleDateFormat pattern `initial_format` and writes it with `target_format` (account time zone and locale).',
    returns: 'string',
    flags: { webInterface: true, pure: 'clock' },
    forms: [
      {
        params: [
          { name: 'date', type: 'string' },
          { name: 'initial_format', type: 'string' },
          { name: 'target_format', type: 'string' },
        ],
        impl(ctx, args, _call, fn) {
          const [date, from, to] = args;
          const target = dateFormat(ctx, fn, 3, 'target_format', to);
          return target.format(parseDate(ctx, fn, date, 1, from, 2, 'initial_format'));
        },
      },
    ],
  }),
  defineFunction({
    name: 'date_offset',
    group: 'Utilities',
    rights: 'none',
    doc: '`date` (read and written with `format`) moved by `offset` calendar days in the account time zone, the time of day kept (Java Calendar.add).',
    returns: 'string',
    flags: { webInterface: true, pure: 'clock' },
    forms: [
      {
        params: [
          { name: 'date', type: 'string' },
          { name: 'offset', type: 'integer', optional: true, default: 0 },
          formatParam('format'),
        ],
        impl(ctx, args, _call, fn) {
          const [date, offset, format] = args;
          const sdf = dateFormat(ctx, fn, 3, 'format', format);
          const ms = parseDate(ctx, fn, date, 1, format, 3, 'format');
          return sdf.format(addDays(ms, offset, ctx.timeZone));
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_date',
    group: 'Utilities',
    rights: 'none',
    doc: 'Writes the instant `seconds` (since 1970-01-01T00:00:00Z) with `format`.',
    returns: 'string',
    flags: { webInterface: true, pure: 'clock' },
    forms: [
      {
        params: [{ name: 'seconds', type: 'integer' }, formatParam('format')],
        impl(ctx, args, _call, fn) {
          const [seconds, format] = args;
          return dateFormat(ctx, fn, 2, 'format', format).format(seconds * 1000);
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_time',
    group: 'Utilities',
    rights: 'none',
    doc: 'Reads `date` with `format` and gives the SECONDS since 1970-01-01T00:00:00Z (multiply by 1000 for milliseconds).',
    returns: 'integer',
    flags: { webInterface: true, pure: 'clock' },
    forms: [
      {
        params: [{ name: 'date', type: 'string' }, formatParam('format')],
        impl(ctx, args, _call, fn) {
          const [date, format] = args;
          // Java's long division truncates toward zero (and has no -0).
          return Math.trunc(parseDate(ctx, fn, date, 1, format, 2, 'format') / 1000) + 0;
        },
      },
    ],
  }),
  defineFunction({
    name: 'now',
    group: 'Utilities',
    rights: 'none',
    doc: 'The current date and time written with `format`.',
    returns: 'string',
    flags: { webInterface: true, pure: 'clock' },
    forms: [
      {
        params: [formatParam('format')],
        impl: (ctx, args, _call, fn) => dateFormat(ctx, fn, 1, 'format', args[0]).format(ctx.clock()),
      },
    ],
  }),
  defineFunction({
    name: 'timestamp',
    group: 'Utilities',
    rights: 'none',
    doc: 'The current time since 1970-01-01T00:00:00Z in MILLISEC (default) or SECOND.',
    returns: 'integer',
    flags: { webInterface: true, pure: 'clock' },
    forms: [
      {
        params: [{ name: 'unit', type: 'string', optional: true, default: 'MILLISEC' }],
        impl(ctx, args, _call, fn) {
          const unit = choice(fn, 1, 'unit', args[0], ['SECOND', 'MILLISEC'] as const, {
            SECONDS: 'SECOND',
            MILLISECOND: 'MILLISEC',
            MILLISECONDS: 'MILLISEC',
          });
          const ms = ctx.clock();
          return unit === 'SECOND' ? Math.trunc(ms / 1000) + 0 : ms;
        },
      },
    ],
  }),
];
