/**
 * The checkpoint thread's program (sqlite-checkpointer.ts starts it): its own connection to the
 * file runs a PASSIVE checkpoint (which never blocks the writer or the readers) whenever another
 * connection has committed since the last one or the last one could not copy everything, and a
 * TRUNCATE one when the WAL passes `truncateBytes` (PASSIVE alone cannot start the WAL over while
 * readers keep coming). A checkpoint that fails (busy, a full disk) leaves the frames in the WAL
 * for a later tick.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { propertyOf } from '../safety/narrow.js';

export interface CheckpointThreadData {
  file: string;
  intervalMs: number;
  truncateBytes: number;
  truncateWaitMs: number;
  truncateRetryMs: number;
}

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const data: CheckpointThreadData = workerData;
const port = parentPort!;
const db = new Database(data.file, { fileMustExist: true });
db.pragma(`busy_timeout = ${data.truncateWaitMs}`);
const frameBytes = Number(db.pragma('page_size', { simple: true })) + 24;
const over = (frames: number) => 32 + frames * frameBytes > data.truncateBytes;
const checkpoint = (mode: 'PASSIVE' | 'TRUNCATE'): CheckpointResult => {
  const rows: unknown = db.pragma(`wal_checkpoint(${mode})`);
  const row: unknown = Array.isArray(rows) ? rows[0] : undefined;
  const count = (name: string) => Number(propertyOf(row, name));
  return { busy: count('busy'), log: count('log'), checkpointed: count('checkpointed') };
};

let version = -1;
let behind = false;
let truncateAt = 0;
const tick = () => {
  try {
    const now = Number(db.pragma('data_version', { simple: true }));
    if (now === version && !behind) return;
    version = now;
    let r = checkpoint('PASSIVE');
    if (over(r.log) && Date.now() >= truncateAt) {
      r = checkpoint('TRUNCATE');
      truncateAt = r.busy ? Date.now() + data.truncateRetryMs : 0;
    }
    behind = r.busy !== 0 || r.checkpointed < r.log || over(r.log);
  } catch {
    behind = true;
  }
};
const timer = setInterval(tick, data.intervalMs);
port.on('message', (message: unknown) => {
  if (message !== 'close') return;
  clearInterval(timer);
  db.close();
  port.close();
});
port.postMessage('ready');
