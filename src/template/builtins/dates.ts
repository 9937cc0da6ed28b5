/** Date built-ins: kind conversion, parsing strings, ?string formats, the ?iso family, number_to_*. */
import type * as A from '../ast.js';
import * as arith from '../arith.js';
import { jQuote, errorMessage } from '../errors.js';
import { FormatError, IsoParseError, dateFormatter, isoString, type DateKind } from '../format.js';
import { formatDate, stringTarget } from '../ops.js';
import { type Env, blamedError, dateFormatSetting, elError } from '../runtime.js';
import { EngineDate, FmDate, isNumber, isSqlTime } from '../values.js';
import { javaTimeZone } from '../../jdk/index.js';
import { argString, checkArgs, targetTypeError, builtInFamily } from './registry.js';

const { def, records } = builtInFamily();

function date(t: unknown, node: A.BuiltInExpr): FmDate {
  if (t instanceof FmDate) return t;
  throw targetTypeError(node, 'date', t);
}

/** ?date / ?time / ?datetime: retype a date, or parse a string with the current (or a given) format. */
function retype(kind: DateKind): void {
  def(kind, {
    value: (env, t, node) => {
      if (t instanceof FmDate) {
        // retyping keeps what the value is (a java.sql.Time stays one)
        const Cls = t instanceof EngineDate || t.kind !== kind ? EngineDate : FmDate;
        if (t.kind === 'unknown' || t.kind === kind) return new Cls(t.epochMs, kind);
        if (t.kind === 'datetime') return new EngineDate(t.epochMs, kind);
        throw blamedError(
          '_MiscTemplateException',
          `Cannot convert ${t.kind.toUpperCase()} to ${kind.toUpperCase()}`,
          node.target,
        );
      }
      return parseDate(env, stringTarget(env, t, node.target, node.name), kind, undefined, node);
    },
    call: (env, t, args, node) => {
      if (t instanceof FmDate) throw targetTypeError(node, 'string', t);
      const s = stringTarget(env, t, node.target, node.name);
      checkArgs(node, args, 1);
      return parseDate(env, s, kind, argString(node, args, 0), node);
    },
  });
}
retype('date');
retype('time');
retype('datetime');

for (const kind of ['date', 'time', 'datetime'] as const) {
  def(`${kind}_if_unknown`, {
    value: (_env, t, node) => {
      const d = date(t, node);
      return d.kind === 'unknown' ? new EngineDate(d.epochMs, kind) : d;
    },
  });
}

/** Parses `s` as a date of `kind` with a format string (default: the current date/time/datetime_format). */
export function parseDate(
  env: Env,
  s: string,
  kind: DateKind,
  format: string | undefined,
  node: A.BuiltInExpr,
): FmDate {
  const fs = format ?? dateFormatSetting(env.settings, kind);
  let f;
  try {
    f = dateFormatter(fs, kind, env.locale, env.timeZone);
  } catch (e) {
    if (e instanceof FormatError) throw elError('_TemplateModelException', e.message, node);
    throw e;
  }
  try {
    return new EngineDate(f.parse(s), kind);
  } catch (e) {
    if (e instanceof IsoParseError) {
      throw elError(
        '_TemplateModelException',
        `The string doesn't match the expected date/time/date-time format. The string to parse was: ${jQuote(s)}. ${e.message}`,
        node,
      );
    }
    throw elError(
      '_TemplateModelException',
      `The string doesn't match the expected date/time/date-time format. The string to parse was: ${jQuote(s)}. The expected format was: ${jQuote(f.description)}.\nThe nested reason given follows:\n${errorMessage(e)}`,
      node,
    );
  }
}

/** ?string on a date: with no arguments the current format, with one a format string. */
export function dateString(env: Env, d: FmDate, args: unknown[], node: A.BuiltInExpr): string {
  checkArgs(node, args, 0, 1);
  const fmt = args.length ? argString(node, args, 0) : undefined;
  return formatDateChecked(env, d, fmt, node);
}

export function formatDateChecked(env: Env, d: FmDate, fmt: string | undefined, node: A.BuiltInExpr): string {
  try {
    return formatDate(env, d, node, fmt);
  } catch (e) {
    if (e instanceof FormatError) throw elError('_TemplateModelException', e.message, node);
    throw e;
  }
}

// ------------------------------------------------------------------ ?iso_* family

type Acc = 'h' | 'm' | 's' | 'ms';

function isoDef(name: string, zone: 'utc' | 'local' | 'param', acc: Acc, offset: boolean | undefined): void {
  const run = (env: Env, d: FmDate, tz: string, node: A.BuiltInExpr): string => {
    if (d.kind === 'unknown') {
      throw elError(
        '_TemplateModelException',
        `Can't convert the date to string, because it isn't known if it's a date (only), time or date-time value.`,
        node,
      );
    }
    const kind = d.kind;
    const show = kind === 'date' ? false : (offset ?? !isSqlTime(d));
    return isoString(d.epochMs, kind, tz, acc === 'ms' ? 'ms' : acc, show);
  };
  if (zone === 'param') {
    def(name, {
      call: (env, t, args, node) => {
        const d = date(t, node);
        checkArgs(node, args, 1);
        const z = args[0];
        const tz =
          typeof z === 'string' ? javaTimeZone(z) : z instanceof Object ? String(z) : javaTimeZone(String(z));
        return run(env, d, tz, node);
      },
    });
  } else {
    def(name, {
      value: (env, t, node) => run(env, date(t, node), zone === 'utc' ? 'UTC' : env.timeZone, node),
    });
  }
}

for (const [zone, prefix] of [
  ['param', 'iso'],
  ['utc', 'iso_utc'],
  ['local', 'iso_local'],
] as const) {
  for (const [acc, sfx] of [
    ['s', ''],
    ['h', '_h'],
    ['m', '_m'],
    ['ms', '_ms'],
  ] as const) {
    isoDef(prefix + sfx, zone, acc, undefined);
    isoDef(prefix + sfx + '_nz', zone, acc, false);
  }
}
isoDef('iso_utc_fz', 'utc', 's', true);

// ------------------------------------------------------------------ numbers → dates

for (const kind of ['date', 'time', 'datetime'] as const) {
  def(`number_to_${kind}`, {
    value: (_env, t, node) => {
      if (!isNumber(t)) throw targetTypeError(node, 'number', t);
      const ms = Number(arith.longValue(t));
      return new EngineDate(ms, kind);
    },
  });
}

export { date as requireDate };

export const DATE_BUILT_INS = records;
