/**
 * The evaluation pool's settings from the environment (docs/server.md "Limits"):
 * FLOWMARK_EVAL_WORKERS (threads per server process), FLOWMARK_EVAL_HEAP_MB (each thread's heap),
 * FLOWMARK_EVAL_ACCOUNT_WORKERS (one account's share, defaults below),
 * FLOWMARK_EVAL_THREAD_TASKS (one account's evaluations side by side on a thread) and
 * FLOWMARK_EVAL_ACCOUNT_QUEUE (one account's waiting evaluations). A bad value is a ConfigError
 * naming the variable.
 */
import { availableParallelism } from 'node:os';
import { integerFromEnv as integer } from '../config/index.js';
import { evaluationLimitsFromEnv } from '../limits/index.js';
import type { PoolSettings } from './pool.js';

export const DEFAULT_EVAL_HEAP_MB = 512;
export const DEFAULT_EVAL_ACCOUNT_QUEUE = 64;
/** One account's tasks side by side on a thread: enough for requests that wait (locks, sub-processes). */
export const DEFAULT_EVAL_THREAD_TASKS = 64;
/** How far past its deadline an evaluation runs before its thread is stopped. */
export const EVAL_GRACE_MS = 500;

/**
 * The default shares (docs/server.md "Isolation"): one account may hold, across a server's
 * `processes`, as many threads as the machine has cores (its share of each process: the cores
 * divided by the processes, at least 1), and each process keeps one thread more than that, so that
 * however long one account's evaluations run (they cannot be preempted) another account always
 * finds a thread, and one account's CPU-bound evaluations never outnumber the cores. On 2 cores:
 * 2 processes (serve's default) of 2 threads, 1 per account; 1 process of 3 threads, 2 per account.
 */
export function poolSettingsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  processes = 1,
  cores = availableParallelism(),
): PoolSettings {
  const share = Math.min(63, Math.max(1, Math.floor(cores / Math.max(1, processes))));
  const threads = integer(env, 'FLOWMARK_EVAL_WORKERS', 1, 64) ?? share + 1;
  const accountThreads =
    integer(env, 'FLOWMARK_EVAL_ACCOUNT_WORKERS', 1, 64) ?? Math.min(share, Math.max(1, threads - 1));
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
