/**
 * file_replace's engine. A plain, case-sensitive search runs in place (split and join: linear).
 * A regular expression, or a case-insensitive search, runs on RE2 (re2js: linear-time matching,
 * no backtracking, so no pattern can take exponential time) in a worker thread, under a
 * wall-clock bound (`regexTimeoutMs`) and a heap bound: the server's event loop never waits on
 * it, and a run past the bound is stopped (the worker is terminated and replaced).
 *
 * Regex syntax is RE2's (Java-compatible for the usual constructs: classes, groups, named
 * groups `(?P<n>…)`/`(?<n>…)`, quantifiers, anchors, `\b`; no backreferences, no lookahead).
 * Replacements follow Java's Matcher.replaceAll: `$1`, `${name}`, `\$` for a literal dollar.
 */
import { builtSibling } from '../../config/built-files.js';
import { Worker } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { PlatformError } from '../errors.js';
import type { FileLimits } from './limits.js';
import { errorMessage } from '../../errors/index.js';

export interface ReplaceRequest {
  search: string;
  replacement: string;
  /** `search` is a regular expression (else literal text). */
  regex: boolean;
  /** Only the first occurrence (else all). */
  first: boolean;
  ignoreCase: boolean;
  /** `^` and `$` match at line ends (regex only). */
  multiline: boolean;
  /** `.` matches line ends too (regex only). */
  dotAll: boolean;
}

/** Replacements of one account waiting for the regex worker; more are refused at once. */
export const DEFAULT_REGEX_ACCOUNT_QUEUE = 16;

export async function replaceText(
  text: string,
  request: ReplaceRequest,
  limits: Pick<FileLimits, 'maxPatternLength' | 'regexTimeoutMs'> & { accountQueue?: number },
  /** Whose replacement it is: accounts take turns on the worker. */
  account = '',
): Promise<string> {
  if (!request.regex && request.search === '')
    throw new PlatformError('invalid', 'the text to search may not be empty');
  if (!request.regex && !request.ignoreCase) {
    if (request.first) {
      const at = text.indexOf(request.search);
      return at < 0 ? text : text.slice(0, at) + request.replacement + text.slice(at + request.search.length);
    }
    return text.split(request.search).join(request.replacement);
  }
  const job = compileJob(request, limits);
  return regexWorker.run(
    { ...job, text, first: request.first },
    limits.regexTimeoutMs,
    account,
    limits.accountQueue ?? DEFAULT_REGEX_ACCOUNT_QUEUE,
  );
}

interface Job {
  pattern: string;
  flags: number;
  replacement: string;
}

/** Compiles once here so a bad pattern fails fast with RE2's reason (the worker compiles again). */
function compileJob(request: ReplaceRequest, limits: Pick<FileLimits, 'maxPatternLength'>): Job {
  if (request.search.length > limits.maxPatternLength)
    throw new PlatformError(
      'invalid',
      `the pattern has more than ${limits.maxPatternLength} characters (maxPatternLength)`,
    );
  const pattern = request.regex ? request.search : RE2JS.quote(request.search);
  const replacement = request.regex ? request.replacement : RE2JS.quoteReplacement(request.replacement, true);
  let flags = 0;
  if (request.ignoreCase) flags |= RE2JS.CASE_INSENSITIVE;
  if (request.multiline) flags |= RE2JS.MULTILINE;
  if (request.dotAll) flags |= RE2JS.DOTALL;
  try {
    RE2JS.compile(pattern, flags);
  } catch (e) {
    throw new PlatformError('invalid', `invalid regular expression: ${errorMessage(e)}`);
  }
  return { pattern, flags, replacement };
}

/** Heap of the regex worker: the text, its result and the matcher's state fit with room to spare. */
const WORKER_HEAP_MB = 1024;

interface Pending {
  job: Job & { text: string; first: boolean };
  timeoutMs: number;
  resolve(text: string): void;
  reject(error: unknown): void;
}

/**
 * One long-lived worker (started on first use, not keeping the process alive when idle), running
 * one job at a time; a job past its time bound terminates it, and the next job starts a new one.
 * Waiting jobs are queued per account and the accounts take turns (round robin), so one account's
 * flood of slow replacements delays another's by one job at most per waiting account.
 */
class RegexWorker {
  private worker: Worker | undefined;
  private busy = false;
  private lastServed: string | undefined;
  /** Waiting jobs by account; the Map's order is the turn (an account served goes last). */
  private readonly queues = new Map<string, Pending[]>();
  private nextId = 1;

  run(
    job: Job & { text: string; first: boolean },
    timeoutMs: number,
    account: string,
    accountQueue: number,
  ): Promise<string> {
    const queue = this.queues.get(account);
    if ((queue?.length ?? 0) >= accountQueue)
      return Promise.reject(
        new PlatformError(
          'contention',
          `account "${account}" already has ${accountQueue} replacements waiting (the limit per account); try again later`,
        ),
      );
    return new Promise<string>((resolve, reject) => {
      const pending = { job, timeoutMs, resolve, reject };
      if (queue) queue.push(pending);
      else this.queues.set(account, [pending]);
      this.pump();
    });
  }

  private pump(): void {
    if (this.busy) return;
    let turn: [string, Pending[]] | undefined;
    for (const entry of this.queues) {
      turn = entry;
      if (entry[0] !== this.lastServed) break; // the account just served goes after the others
    }
    if (!turn) return;
    const [account, queue] = turn;
    this.lastServed = account;
    const next = queue.shift()!;
    this.queues.delete(account);
    if (queue.length) this.queues.set(account, queue);
    this.busy = true;
    this.runNow(next.job, next.timeoutMs)
      .then(next.resolve, next.reject)
      .finally(() => {
        this.busy = false;
        this.pump();
      });
  }

  private runNow(job: Job & { text: string; first: boolean }, timeoutMs: number): Promise<string> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        worker.unref();
      };
      const onMessage = (message: { id: number; text?: string; error?: string }) => {
        if (message.id !== id) return;
        done();
        if (message.error !== undefined)
          reject(new PlatformError('invalid', `the regular expression failed: ${message.error}`));
        else resolve(message.text!);
      };
      const onError = (error: Error) => {
        done();
        this.discard(worker);
        reject(new PlatformError('invalid', `the regular expression failed: ${error.message}`));
      };
      const onExit = () => {
        done();
        this.discard(worker);
        reject(new PlatformError('invalid', 'the regular expression failed: its worker stopped'));
      };
      const timer = setTimeout(() => {
        done();
        this.discard(worker);
        void worker.terminate();
        reject(
          new PlatformError(
            'invalid',
            `the replacement took longer than ${timeoutMs} ms (regexTimeoutMs) and was stopped`,
          ),
        );
      }, timeoutMs);
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.ref(); // while a job runs, the process waits for it
      worker.postMessage({ ...job, id });
    });
  }

  private ensureWorker(): Worker {
    if (!this.worker) {
      this.worker = new Worker(
        builtSibling(import.meta.url, 'replace-thread.js', 'the regex replacement thread'),
        {
          // Not the parent's flags (a TypeScript loader, --input-type): the thread is built JavaScript.
          execArgv: [],
          resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
        },
      );
      this.worker.unref();
    }
    return this.worker;
  }

  private discard(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
  }
}

const regexWorker = new RegexWorker();
