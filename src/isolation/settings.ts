/**
 * The evaluation pool's settings from the environment (docs/server.md "Limits"):
 * FLOWMARK_EVAL_WORKERS (threads per server process), FLOWMARK_EVAL_HEAP_MB (each thread's heap),
 * FLOWMARK_EVAL_ACCOUNT_WORKERS (one account's share, default half, at least 1),
 * FLOWMARK_EVAL_THREAD_TASKS (one account's evaluations side by side on a thread) and
 * FLOWMARK_EVAL_ACCOUNT_QUEUE (one account's waiting evaluations). A bad value is a ConfigError
 * naming the variable.
 */
import { integerFromEnv as integer } from '../config/index.js';
import { evaluationLimitsFromEnv } from '../limits/index.js';
import type { PoolSettings } from './pool.js';

export const DEFAULT_EVAL_THREADS = 2;
export const DEFAULT_EVAL_HEAP_MB = 512;
export const DEFAULT_EVAL_ACCOUNT_QUEUE = 64;
/** One account's tasks side by side on a thread: enough for requests that wait (locks, sub-processes). */
export const DEFAULT_EVAL_THREAD_TASKS = 64;
/** How far past its deadline an evaluation runs before its thread is stopped. */
export const EVAL_GRACE_MS = 500;

export function poolSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): PoolSettings {
  const threads = integer(env, 'FLOWMARK_EVAL_WORKERS', 1, 64) ?? DEFAULT_EVAL_THREADS;
  const accountThreads =
    integer(env, 'FLOWMARK_EVAL_ACCOUNT_WORKERS', 1, 64) ?? Math.max(1, Math.floor(threads / 2));
  return {
    threads,
    heapMb: integer(env, 'FLOWMARK_EVAL_HEAP_MB', 64, 65_536) ?? DEFAULT_EVAL_HEAP_MB,
    accountThreads: Math.min(accountThreads, threads),
    threadTasks: integer(env, 'FLOWMARK_EVAL_THREAD_TASKS', 1, 1024) ?? DEFAULT_EVAL_THREAD_TASKS,
    accountQueue: integer(env, 'FLOWMARK_EVAL_ACCOUNT_QUEUE', 0, 100_000) ?? DEFAULT_EVAL_ACCOUNT_QUEUE,
    wallTimeMs: evaluationLimitsFromEnv(env).wallTimeMs,
    graceMs: EVAL_GRACE_MS,
  };
}
