/**
 * The deployment's sandbox settings from the environment (docs/server.md "Limits"):
 * FLOWMARK_SCRIPT_WORKERS (scripts running at once per server process), FLOWMARK_SCRIPT_ACCOUNT_WORKERS
 * (of those, one account's share; default half) and FLOWMARK_SCRIPT_ACCOUNT_QUEUE (one account's
 * waiting scripts). An unset variable keeps the default; a bad one is a ConfigError naming it.
 */
import { ConfigError } from '../config/index.js';
import type { ScriptChanges } from './run.js';

export function scriptSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ScriptChanges {
  const out: ScriptChanges = {};
  const workers = integer(env, 'FLOWMARK_SCRIPT_WORKERS', 1, 256);
  if (workers !== undefined) out.workers = workers;
  const accountWorkers = integer(env, 'FLOWMARK_SCRIPT_ACCOUNT_WORKERS', 1, 256);
  if (accountWorkers !== undefined) out.accountWorkers = accountWorkers;
  const accountQueue = integer(env, 'FLOWMARK_SCRIPT_ACCOUNT_QUEUE', 0, 100_000);
  if (accountQueue !== undefined) out.accountQueue = accountQueue;
  return out;
}

function integer(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === '') return undefined;
  const n = /^\s*\d{1,6}\s*$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max))
    throw new ConfigError(`${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return n;
}
