/**
 * Regular expressions that may backtrack without bound, run off the main thread. V8 switches a
 * pattern that backtracks too much to its linear-time engine, but not one with back-references or
 * look-arounds (`"aaaaaaaaaaaaaaaaaaaaaaaaaaaaac"?matches("(a+)+\\1b")` takes 30 s). Those run
 * here, in a small pool of worker threads, under a time bound: past it the worker is terminated
 * (which interrupts the match) and the caller's render ends with a time-limit error, while the
 * event loop kept serving everything else.
 */
import type { Worker } from 'node:worker_threads';
import { workerThreads } from '../jdk/on-demand.js';
import type { RegexAnswer } from './regex-thread.js';

/** Whether a (translated) JavaScript pattern has back-references or look-arounds. */
export function needsWorker(re: RegExp): boolean {
  return UNSAFE.test(re.source);
}
const UNSAFE = /\\[1-9]|\\k<|\(\?<?[=!]/;

/**
 * all: every match left to right (an empty match moves one character on), at most maxMatches;
 * first: the first match; last: the match starting at the highest index.
 */
export interface RegexJob {
  source: string;
  flags: string;
  input: string;
  op: 'all' | 'first' | 'last';
  maxMatches: number;
}

/** A match: its index, then the groups of the JavaScript pattern (group 0 first). */
export type RegexMatch = [number, ...(string | undefined)[]];

export interface RegexResult {
  matches: RegexMatch[];
  /** More than maxMatches matches: the list stops there. */
  tooMany: boolean;
}

export class RegexTimeoutError extends Error {}

/** Workers kept for the next jobs; at most MAX_WORKERS run at once, the others wait. */
const MAX_WORKERS = 2;
const idle: Worker[] = [];
let running = 0;
const waiting: (() => void)[] = [];

/** The thread's program (regex-thread.ts), found on the first job: a render without one loads no finder. */
let program: string | undefined;

async function spawn(): Promise<Worker> {
  if (program === undefined) {
    const { builtSibling } = await import('../config/built-files.js');
    program = builtSibling(import.meta.url, 'regex-thread.js', 'the regex thread');
  }
  const worker = new (workerThreads().Worker)(program, {
    // the parent's flags (--input-type, a TypeScript loader) are not the thread's
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
  });
  // The limit is the pattern's running time: a thread that starts slowly on a loaded machine
  // does not spend it (the evaluation's own deadline still bounds the wait).
  await new Promise<void>((resolve, reject) => {
    worker.once('online', resolve);
    worker.once('error', reject);
  });
  return worker;
}

/** Runs `job` in a worker; rejects with RegexTimeoutError when it is not done within `timeoutMs`. */
export async function runRegex(job: RegexJob, timeoutMs: number): Promise<RegexResult> {
  const deadline = performance.now() + timeoutMs;
  if (running >= MAX_WORKERS) {
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  try {
    const left = deadline - performance.now();
    if (left <= 0) throw new RegexTimeoutError();
    return await dispatch(job, left);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

async function dispatch(job: RegexJob, timeoutMs: number): Promise<RegexResult> {
  const worker = idle.pop() ?? (await spawn());
  worker.ref();
  return new Promise<RegexResult>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
    };
    const onMessage = (m: RegexAnswer): void => {
      done();
      worker.unref();
      idle.push(worker);
      if ('error' in m) reject(new Error(m.error));
      else resolve(m);
    };
    const onError = (e: Error): void => {
      done();
      void worker.terminate();
      reject(e);
    };
    const timer = setTimeout(() => {
      done();
      void worker.terminate();
      reject(new RegexTimeoutError());
    }, timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage(job);
  });
}
