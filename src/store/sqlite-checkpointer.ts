import { Worker } from 'node:worker_threads';
import { builtSibling } from '../config/built-files.js';
import type { CheckpointThreadData } from './sqlite-checkpoint-thread.js';

export interface CheckpointOptions {
  /** How often the thread looks for new commits to copy into the database file (default 100 ms). */
  intervalMs?: number;
  /**
   * The WAL size past which the thread runs a TRUNCATE checkpoint, which waits for the readers of
   * older snapshots and empties the WAL (default 64 MiB); also the size the writer cuts the WAL
   * back to when it starts it over (`journal_size_limit`).
   */
  truncateBytes?: number;
  /** How long after the store opens the thread starts (default 1 s; SqliteStore). */
  startDelayMs?: number;
}

export const DEFAULT_CHECKPOINT_INTERVAL_MS = 100;
export const DEFAULT_CHECKPOINT_START_DELAY_MS = 1000;
export const DEFAULT_WAL_TRUNCATE_BYTES = 64 * 1024 * 1024;
/**
 * A TRUNCATE checkpoint holds the write lock while it waits for the readers of older snapshots:
 * it waits this long at most, and after one that could not finish the next waits
 * TRUNCATE_RETRY_MS, so a reader held open for minutes delays writes by a tenth at most.
 */
const TRUNCATE_WAIT_MS = 200;
const TRUNCATE_RETRY_MS = 2000;

/**
 * Copies a WAL-mode database's committed pages into its file from a thread of its own, so that a
 * commit only appends to the WAL: SQLite's automatic checkpoint runs inside the commit that
 * crosses 1,000 pages, on the writer's path (docs/performance.md, "SQLite's write floor").
 * `onReady` runs once the thread's connection is open: only then may the writer turn its own
 * automatic checkpoint off.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(file: string, options: CheckpointOptions, onReady: () => void) {
    const workerData: CheckpointThreadData = {
      file,
      intervalMs: options.intervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS,
      truncateBytes: options.truncateBytes ?? DEFAULT_WAL_TRUNCATE_BYTES,
      truncateWaitMs: TRUNCATE_WAIT_MS,
      truncateRetryMs: TRUNCATE_RETRY_MS,
    };
    this.worker = new Worker(
      builtSibling(import.meta.url, 'sqlite-checkpoint-thread.js', 'the checkpoint thread'),
      {
        workerData,
      },
    );
    this.worker.unref();
    this.worker.once('message', onReady);
    // A thread that fails (the file gone) leaves the writer's automatic checkpoint on.
    this.worker.on('error', () => {});
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** Stops the thread after its checkpoint in progress; its connection is closed first. */
  async close(): Promise<void> {
    this.worker.ref(); // the process waits for the thread's connection to close
    this.worker.postMessage('close');
    await this.exited;
  }
}
