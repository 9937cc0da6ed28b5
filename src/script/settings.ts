/**
 * The deployment's sandbox settings from the environment (docs/server.md "Limits"): each script's
 * limits (FLOWMARK_SCRIPT_CPU_MS, FLOWMARK_SCRIPT_WALL_MS, FLOWMARK_SCRIPT_MEMORY,
 * FLOWMARK_SCRIPT_STACK), FLOWMARK_SCRIPT_WORKERS (scripts running at once per server process),
 * FLOWMARK_SCRIPT_ACCOUNT_WORKERS (of those, one account's share; default half) and
 * FLOWMARK_SCRIPT_ACCOUNT_QUEUE (one account's waiting scripts). An unset variable keeps the
 * default; a bad one is a ConfigError naming it.
 */
import { ConfigError, integerFromEnv as integer, parseByteSize } from '../config/index.js';
import { bytesText, SCRIPT_LIMIT_CEILINGS, type ScriptLimits } from './limits.js';
import type { ScriptChanges } from './run.js';

const LIMITS: Array<[string, keyof ScriptLimits, 'ms' | 'bytes']> = [
  ['FLOWMARK_SCRIPT_CPU_MS', 'cpuTimeMs', 'ms'],
  ['FLOWMARK_SCRIPT_WALL_MS', 'wallTimeMs', 'ms'],
  ['FLOWMARK_SCRIPT_MEMORY', 'memoryBytes', 'bytes'],
  ['FLOWMARK_SCRIPT_STACK', 'stackBytes', 'bytes'],
];

export function scriptSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ScriptChanges {
  const out: ScriptChanges = {};
  const limits: Partial<ScriptLimits> = {};
  for (const [name, key, unit] of LIMITS) {
    const text = env[name];
    if (text === undefined || text.trim() === '') continue;
    const max = SCRIPT_LIMIT_CEILINGS[key];
    if (unit === 'ms') limits[key] = integer(env, name, 1, max);
    else {
      const value = parseByteSize(text, name);
      if (value > max)
        throw new ConfigError(
          `${name}: expected a size from 1 byte to ${bytesText(max)}, got ${JSON.stringify(text)}`,
        );
      limits[key] = value;
    }
  }
  if (Object.keys(limits).length) out.limits = limits;
  const workers = integer(env, 'FLOWMARK_SCRIPT_WORKERS', 1, 256);
  if (workers !== undefined) out.workers = workers;
  const accountWorkers = integer(env, 'FLOWMARK_SCRIPT_ACCOUNT_WORKERS', 1, 256);
  if (accountWorkers !== undefined) out.accountWorkers = accountWorkers;
  const accountQueue = integer(env, 'FLOWMARK_SCRIPT_ACCOUNT_QUEUE', 0, 100_000);
  if (accountQueue !== undefined) out.accountQueue = accountQueue;
  return out;
}
