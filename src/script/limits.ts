/** The bounds every script runs under; configurable per evaluation and process-wide. */
export interface ScriptLimits {
  /** Time the script's own JavaScript may run, in ms (time spent waiting on platform calls is not counted). */
  cpuTimeMs: number;
  /** Time the whole script may take, platform calls included, in ms (R_lock alone may wait 40 s). */
  wallTimeMs: number;
  /** Memory the script's heap may grow by, in bytes (the sandbox's WebAssembly memory is capped there). */
  memoryBytes: number;
  /** Stack the script may use, in bytes (bounds recursion depth). */
  stackBytes: number;
}

export const DEFAULT_SCRIPT_LIMITS: Readonly<ScriptLimits> = Object.freeze({
  cpuTimeMs: 2_000,
  wallTimeMs: 60_000,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 256 * 1024,
});

/** Upper bounds a configuration may not pass (the sandbox's own safety margins). */
export const SCRIPT_LIMIT_CEILINGS: Readonly<ScriptLimits> = Object.freeze({
  cpuTimeMs: 10 * 60_000,
  wallTimeMs: 60 * 60_000,
  memoryBytes: 1024 * 1024 * 1024,
  // Beyond this the interpreter's C stack outgrows the worker's native stack before QuickJS notices.
  stackBytes: 1024 * 1024,
});

/** Limits with `overrides` on top of `base`, each checked (a positive integer within its ceiling). */
export function resolveLimits(
  base: Readonly<ScriptLimits>,
  overrides: Partial<ScriptLimits> | undefined,
): ScriptLimits {
  const out = { ...base };
  for (const key of Object.keys(SCRIPT_LIMIT_CEILINGS) as (keyof ScriptLimits)[]) {
    const value = overrides?.[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0 || value > SCRIPT_LIMIT_CEILINGS[key])
      throw new RangeError(
        `script limits: ${key} must be an integer from 1 to ${SCRIPT_LIMIT_CEILINGS[key]}, got ${value}`,
      );
    out[key] = value;
  }
  return out;
}

/** `32 MiB`, `256 KiB`, `900 bytes`. */
export function bytesText(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
