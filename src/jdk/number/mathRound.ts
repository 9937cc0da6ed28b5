/** java.lang.Math.round(double): floor(x + 0.5) computed exactly, NaN → 0, clamped to the long range. */
const LONG_MAX_AS_DOUBLE = 2 ** 63; // (double) Long.MAX_VALUE
const LONG_MIN_AS_DOUBLE = -(2 ** 63);

export function javaMathRound(x: number): number {
  if (Number.isNaN(x)) return 0;
  if (x >= LONG_MAX_AS_DOUBLE) return LONG_MAX_AS_DOUBLE;
  if (x <= LONG_MIN_AS_DOUBLE) return LONG_MIN_AS_DOUBLE;
  const floor = Math.floor(x);
  // x - floor is exact for doubles; compare the fraction with 0.5 rather than adding 0.5 (which can round).
  const r = x - floor >= 0.5 ? floor + 1 : floor;
  return r === 0 ? 0 : r;
}

/** Math.round(double) as a bigint (the exact long Java returns). */
export function javaMathRoundLong(x: number): bigint {
  if (Number.isNaN(x)) return 0n;
  if (x >= LONG_MAX_AS_DOUBLE) return 9223372036854775807n;
  if (x <= LONG_MIN_AS_DOUBLE) return -9223372036854775808n;
  return BigInt(javaMathRound(x));
}
