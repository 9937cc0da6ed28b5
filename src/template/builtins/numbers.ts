/** Number and boolean built-ins, ?c and ?string formatting, the numeric casts. */
import type * as A from '../ast.js';
import * as arith from '../arith.js';
import { BigDec } from '../bigdecimal.js';
import { FormatError, numberFormatter } from '../format.js';
import { formatNumber } from '../ops.js';
import { type Env, blamedError, elError } from '../runtime.js';
import { FmDate, JDouble, MatchResult, StringBoolean, isNumber, type FmNumber } from '../values.js';
import { argString, checkArgs, targetTypeError, builtInFamily } from './registry.js';

const { def, records } = builtInFamily();

function num(t: unknown, node: A.BuiltInExpr): FmNumber {
  if (isNumber(t)) return t;
  throw targetTypeError(node, 'number', t);
}

def('c', {
  value: (env, t, node) => {
    if (typeof t === 'boolean') return t ? 'true' : 'false';
    if (t instanceof MatchResult) return t.matched ? 'true' : 'false';
    if (t instanceof StringBoolean) return t.text;
    if (isNumber(t)) return arith.computerFormat(t);
    throw targetTypeError(node, 'number or boolean', t);
  },
});

def('abs', {
  value: (_env, t, node) => {
    const n = num(t, node);
    if (typeof n === 'number') return n < 0 ? -n : n;
    if (n instanceof BigDec) return n.signum() < 0 ? n.negate() : n;
    return new JDouble(Math.abs(n.value), n.isFloat);
  },
});

def('is_infinite', {
  value: (_env, t, node) => {
    const n = num(t, node);
    return n instanceof JDouble
      ? !isFinite(n.value) && !Number.isNaN(n.value)
      : typeof n === 'number' && !isFinite(n) && !Number.isNaN(n);
  },
});
def('is_nan', {
  value: (_env, t, node) => {
    const n = num(t, node);
    return (n instanceof JDouble && Number.isNaN(n.value)) || (typeof n === 'number' && Number.isNaN(n));
  },
});

def('round', { value: (_env, t, node) => roundBi(num(t, node), 'HALF_UP') });
def('floor', { value: (_env, t, node) => roundBi(num(t, node), 'FLOOR') });
def('ceiling', { value: (_env, t, node) => roundBi(num(t, node), 'CEILING') });

function roundBi(n: FmNumber, mode: 'HALF_UP' | 'FLOOR' | 'CEILING'): FmNumber {
  if (n instanceof JDouble) {
    if (!isFinite(n.value)) return n;
    const v =
      mode === 'FLOOR'
        ? Math.floor(n.value)
        : mode === 'CEILING'
          ? Math.ceil(n.value)
          : Math.floor(n.value + 0.5);
    return arith.normalize(BigDec.fromNumber(v));
  }
  if (mode === 'HALF_UP') {
    // FreeMarker rounds x.5 toward positive infinity: floor(x + 0.5)
    return arith.normalize(arith.toBig(n).add(new BigDec(5n, 1)).setScale(0, 'FLOOR'));
  }
  return arith.roundTo(n, mode);
}

function abc(n: number, upper: boolean, node: A.BuiltInExpr): string {
  if (n < 1)
    throw elError(
      '_TemplateModelException',
      `The left side operand of ?${node.name} must be at least 1, but was ${n}.`,
      node,
    );
  let s = '';
  while (n > 0) {
    n--;
    s = String.fromCharCode((upper ? 65 : 97) + (n % 26)) + s;
    n = Math.floor(n / 26);
  }
  return s;
}
/** The operand as a Java int, refusing values that would lose precision (NumberUtil.toIntExact). */
function exactInt(n: FmNumber, node: A.BuiltInExpr): number {
  if (arith.isIntegral(n)) {
    const v = arith.toDouble(n);
    if (v >= -2147483648 && v <= 2147483647) return v;
  }
  throw blamedError(
    '_TemplateModelException',
    `The left side operand value isn't compatible with ?${node.name}: Can't convert ${arith.javaToString(n)} to type Integer without loss.`,
    node.target,
  );
}
def('lower_abc', { value: (_env, t, node) => abc(exactInt(num(t, node), node), false, node) });
def('upper_abc', { value: (_env, t, node) => abc(exactInt(num(t, node), node), true, node) });

// numeric casts (Java's narrowing conversions)
def('int', { value: (_env, t, node) => arith.intValue(num(t, node)) });
def('long', {
  value: (_env, t, node) => {
    if (t instanceof FmDate) return t.epochMs;
    const v = arith.longValue(num(t, node));
    return arith.normalize(new BigDec(v, 0));
  },
});
def('short', { value: (_env, t, node) => ((arith.intValue(num(t, node)) << 16) >> 16) as number });
def('byte', { value: (_env, t, node) => ((arith.intValue(num(t, node)) << 24) >> 24) as number });
def('double', { value: (_env, t, node) => new JDouble(arith.toDouble(num(t, node))) });
def('float', { value: (_env, t, node) => new JDouble(Math.fround(arith.toDouble(num(t, node))), true) });

// ------------------------------------------------------------------ ?string for numbers and booleans (dates in dates.ts)

export function numberString(env: Env, n: FmNumber, format: string | undefined, node: A.BuiltInExpr): string {
  if (format === undefined) return formatNumber(env, n, node);
  try {
    return numberFormatter(format, env.locale)(n);
  } catch (e) {
    if (e instanceof FormatError) throw elError('_TemplateModelException', e.message, node);
    throw e;
  }
}

export function booleanString(env: Env, b: boolean, args: unknown[], node: A.BuiltInExpr): string {
  if (args.length === 0) {
    const bf = env.settings.booleanFormat;
    if (bf === 'true,false' || bf === 'c') return b ? 'true' : 'false';
    const i = bf.indexOf(',');
    return b ? bf.slice(0, i) : bf.slice(i + 1);
  }
  checkArgs(node, args, 2);
  return b ? argString(node, args, 0) : argString(node, args, 1);
}

export const NUMBER_BUILT_INS = records;
