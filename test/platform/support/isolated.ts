/**
 * For the multi-process tests: a database of its own (a SQLite file in a temporary directory, or
 * a fresh PostgreSQL schema dropped afterwards), migrated, with one account; and Node worker
 * processes (worker.ts) that run tasks on it, all at once.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPlatform, type Platform, type PlatformOptions } from '../../../src/platform/index.js';
import { openStore, quoteIdent, type EngineName, type Store } from '../../../src/store/index.js';

export type DbConfig =
  { engine: 'sqlite'; sqliteFile: string } | { engine: 'postgres'; pgUrl: string; pgSchema: string };

export type WorkerTask =
  | { kind: 'counter'; name: string; count: number; concurrency: number }
  | { kind: 'lock'; name: string; callers: number; rounds: number; holdMs: number }
  | { kind: 'hold'; name: string; leaseSeconds: number };

/** What a worker is sent: a task, on a database, in an account. */
export interface WorkerMessage {
  db: DbConfig;
  account: string;
  task: WorkerTask;
}

export interface WorkerResult {
  values?: number[];
  maxInside?: number;
  sections?: number;
  held?: boolean;
  ms?: number;
}

export interface IsolatedDatabase {
  store: Store;
  platform: Platform;
  db: DbConfig;
  account: string;
  /** Another connection (another pool on PostgreSQL) to the same database, closed with it. */
  openStore(): Promise<Store>;
  close(): Promise<void>;
}

export interface IsolatedOptions {
  /** The store's lockWaitMs (see openStore). */
  lockWaitMs?: number;
  /** Options of the platform made over the store. */
  platform?: PlatformOptions;
}

export async function isolatedDatabase(
  engine: EngineName,
  options: IsolatedOptions = {},
): Promise<IsolatedDatabase> {
  let db: DbConfig;
  let dir: string | undefined;
  if (engine === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-mp-'));
    db = { engine, sqliteFile: join(dir, 'flowmark.db') };
  } else {
    db = {
      engine,
      pgUrl: process.env.FLOWMARK_TEST_PG!,
      pgSchema: `mp_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`,
    };
  }
  const config = db;
  const open = (lockWaitMs?: number) =>
    openStore(
      config.engine === 'sqlite'
        ? { sqliteFile: config.sqliteFile, databaseUrl: undefined, lockWaitMs }
        : { databaseUrl: config.pgUrl, pgSchema: config.pgSchema, poolSize: 4, lockWaitMs },
    );
  const store = await open(options.lockWaitMs);
  const others: Store[] = [];
  const platform = createPlatform(store, options.platform);
  const account = 'multi';
  await platform.accounts.create({ id: account });
  return {
    store,
    platform,
    db,
    account,
    async openStore() {
      const other = await open();
      others.push(other);
      return other;
    },
    async close() {
      for (const other of others) await other.close();
      await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (db.engine === 'postgres') {
        const client = new pg.Client({ connectionString: db.pgUrl });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(db.pgSchema)} CASCADE`);
        } finally {
          await client.end();
        }
      }
    },
  };
}

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));

interface Child {
  process: ChildProcess;
  next(): Promise<unknown>;
}

function startChild(): Child {
  const child = fork(WORKER, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const inbox: unknown[] = [];
  const waiting: Array<{ resolve(m: unknown): void; reject(e: Error): void }> = [];
  child.on('message', (m) => {
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(m);
    else inbox.push(m);
  });
  child.on('exit', (code) => {
    for (const w of waiting.splice(0))
      w.reject(new Error(`worker exited with code ${code} before answering`));
  });
  const next = () =>
    inbox.length
      ? Promise.resolve(inbox.shift())
      : child.exitCode !== null
        ? Promise.reject(new Error('worker has exited'))
        : new Promise<unknown>((resolve, reject) => waiting.push({ resolve, reject }));
  return { process: child, next };
}

/** Worker processes, started once and given tasks together. */
export class Workers {
  private constructor(private readonly children: Child[]) {}

  /** Starts `count` workers and waits until each is ready. */
  static async start(count: number): Promise<Workers> {
    const workers = new Workers(Array.from({ length: count }, startChild));
    try {
      await Promise.all(workers.children.map((c) => c.next()));
    } catch (e) {
      await workers.stop();
      throw e;
    }
    return workers;
  }

  /** Gives the i-th task to the i-th worker, all at once, and collects the results. */
  async run(database: IsolatedDatabase, tasks: WorkerTask[]): Promise<WorkerResult[]> {
    if (tasks.length > this.children.length) throw new Error('more tasks than workers');
    tasks.forEach((task, i) => {
      const message: WorkerMessage = { db: database.db, account: database.account, task };
      this.children[i]!.process.send(message);
    });
    const results = (await Promise.all(tasks.map((_, i) => this.children[i]!.next()))) as Array<
      WorkerResult & { error?: string }
    >;
    const failed = results.find((r) => r.error);
    if (failed) throw new Error(`worker failed: ${failed.error}`);
    return results;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        ({ process: child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            if (child.connected) child.send({ exit: true });
            setTimeout(() => child.kill(), 10_000).unref();
          }),
      ),
    );
  }
}
