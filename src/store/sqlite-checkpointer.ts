import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

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
 * The checkpoint thread's source (CommonJS, evaluated): its own connection to the file runs a
 * PASSIVE checkpoint (which never blocks the writer or the readers) whenever another connection
 * has committed since the last one or the last one could not copy everything, and a TRUNCATE one
 * when the WAL passes `truncateBytes` (PASSIVE alone cannot start the WAL over while readers keep
 * coming). A checkpoint that fails (busy, a full disk) leaves the frames in the WAL for a later tick.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.truncateWaitMs);
const frameBytes = db.pragma('page_size', { simple: true }) + 24;
let version = -1;
let behind = false;
let truncateAt = 0;
const tick = () => {
  try {
    const now = db.pragma('data_version', { simple: true });
    if (now === version && !behind) return;
    version = now;
    let [r] = db.pragma('wal_checkpoint(PASSIVE)');
    const over = (frames) => 32 + frames * frameBytes > workerData.truncateBytes;
    if (over(r.log) && Date.now() >= truncateAt) {
      [r] = db.pragma('wal_checkpoint(TRUNCATE)');
      truncateAt = r.busy ? Date.now() + workerData.truncateRetryMs : 0;
    }
    behind = r.busy !== 0 || r.checkpointed < r.log || over(r.log);
  } catch {
    behind = true;
  }
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

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
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver,
        file,
        intervalMs: options.intervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS,
        truncateBytes: options.truncateBytes ?? DEFAULT_WAL_TRUNCATE_BYTES,
        truncateWaitMs: TRUNCATE_WAIT_MS,
        truncateRetryMs: TRUNCATE_RETRY_MS,
      },
    });
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
