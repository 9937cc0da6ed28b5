import { setTimeout as sleep } from 'node:timers/promises';
import { Ambient } from './ambient.js';
import { retryingTransaction } from './retries.js';
import Database from 'better-sqlite3';
import { sqliteDialect } from './dialect.js';
import {
  DEFAULT_CHECKPOINT_START_DELAY_MS,
  DEFAULT_WAL_TRUNCATE_BYTES,
  WalCheckpointer,
  type CheckpointOptions,
} from './sqlite-checkpointer.js';
import type { Sql } from './sql.js';
import { tracing } from '../traces/hooks.js';
import type { Queryable, Row, RunResult, Store, TransactionOptions } from './types.js';

type Mode = 'all' | 'get' | 'run';

/** The open transaction of the current async context. */
interface TxState {
  done: boolean;
  savepoints: number;
  connection: Connection;
  handle: Queryable;
}

const STATEMENT_CACHE_SIZE = 500;
/** How long a statement waits for another process's write lock by default. */
export const DEFAULT_BUSY_WAIT_MS = 10_000;

export interface SqliteOptions {
  /**
   * How long a statement (or BEGIN) waits for the write lock another connection or process holds
   * before SQLITE_BUSY is thrown (default 10 s). Waits inside this store (a transaction of this
   * process holding the connection) are not bounded by it.
   */
  busyWaitMs?: number;
  /**
   * The checkpoints of a database file: by a thread of their own (the default, see
   * sqlite-checkpointer.ts) or, with `false`, by SQLite's automatic checkpoint inside the commit.
   */
  checkpoint?: CheckpointOptions | false;
  /**
   * When a commit reaches the disk (`FLOWMARK_SQLITE_SYNCHRONOUS`): `normal` (the default) at each
   * checkpoint, so a power loss can take the last commits; `full` at each commit (an fsync each).
   */
  synchronous?: SqliteSynchronous;
}

export type SqliteSynchronous = 'normal' | 'full';

/**
 * The embedded engine: better-sqlite3 in WAL mode with two connections to the file, a writer
 * and a reader. better-sqlite3 is synchronous, so one statement never interleaves with another;
 * a transaction spans awaits, so it holds its connection's async lock and every other caller's
 * statements for that connection wait. Statements outside a transaction that only read go to
 * the reader and see the last commit (as on PostgreSQL), never an open transaction's writes.
 */
export class SqliteStore implements Store {
  readonly dialect = sqliteDialect;
  readonly location: string;
  readonly lockWaitMs: number;
  private readonly writer: Connection;
  private readonly reader: Connection;
  private checkpointer: WalCheckpointer | undefined;
  private checkpointStart: NodeJS.Timeout | undefined;
  private readonly context = new Ambient<TxState>();

  constructor(file: string, options: SqliteOptions = {}) {
    this.location = file;
    const busyWaitMs = options.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS;
    this.lockWaitMs = busyWaitMs;
    const synchronous = options.synchronous ?? 'normal';
    this.writer = new Connection(file, busyWaitMs, synchronous);
    // A private in-memory database exists once per connection: it gets no separate reader.
    const inMemory = file === ':memory:' || file === '';
    this.reader = inMemory ? this.writer : new Connection(file, busyWaitMs, synchronous);
    if (!inMemory && options.checkpoint !== false) {
      const checkpoint = options.checkpoint ?? {};
      const limit = checkpoint.truncateBytes ?? DEFAULT_WAL_TRUNCATE_BYTES;
      // A WAL emptied by a checkpoint is cut back to this size when the writer starts it over.
      this.writer.db.pragma(`journal_size_limit = ${limit}`);
      // Until the thread's connection is open, the commits keep SQLite's automatic checkpoint. The
      // thread starts a moment after the store opens: a server's processes and evaluation threads
      // each open a store at once, and a short command closes its store before it would start.
      this.checkpointStart = setTimeout(() => {
        try {
          this.checkpointer = new WalCheckpointer(file, checkpoint, () => {
            if (this.writer.db.open) this.writer.db.pragma('wal_autocheckpoint = 0');
          });
        } catch {
          // not built (sources run without `npm run build`): SQLite's own checkpoint stays on
        }
      }, checkpoint.startDelayMs ?? DEFAULT_CHECKPOINT_START_DELAY_MS).unref();
    }
  }

  all<T extends Row = Row>(query: Sql): Promise<T[]> {
    return this.statement(query, 'all') as Promise<T[]>;
  }

  get<T extends Row = Row>(query: Sql): Promise<T | undefined> {
    return this.statement(query, 'get') as Promise<T | undefined>;
  }

  run(query: Sql): Promise<RunResult> {
    return this.statement(query, 'run') as Promise<RunResult>;
  }

  async exec(text: string): Promise<void> {
    const state = this.current();
    if (state) {
      state.connection.db.exec(text);
      return;
    }
    await this.writer.locked(() => this.writer.db.exec(text));
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const outer = this.current();
    if (outer) return this.savepoint(outer, fn);
    return retryingTransaction(
      'sqlite',
      options,
      (e) => this.dialect.isRetryable(e),
      (attempt) => 10 * 2 ** attempt,
      () => this.topLevel(fn, options),
    );
  }

  async close(): Promise<void> {
    clearTimeout(this.checkpointStart);
    await this.checkpointer?.close();
    await this.writer.close();
    if (this.reader !== this.writer) await this.reader.close();
  }

  private current(): TxState | undefined {
    return this.context.current();
  }

  /** Runs a statement; a plain function returning a settled promise in the usual case (no await). */
  private statement(query: Sql, mode: Mode): Promise<unknown> {
    try {
      const { text, values } = query.render('sqlite');
      const state = this.current();
      if (state) return Promise.resolve(state.connection.execute(text, values, mode));
      let target = this.writer;
      let prepared: Database.Statement | undefined;
      if (this.reader !== this.writer) {
        prepared = this.reader.prepare(text);
        if (prepared.readonly) target = this.reader;
        else prepared = undefined;
      }
      if (!target.lock.held) {
        // The usual case: the connection is free, run now (a busy database falls back to waiting).
        try {
          return Promise.resolve(target.execute(text, values, mode, prepared));
        } catch (e) {
          if (!isBusy(e)) throw e;
        }
      }
      return target.locked(() => target.execute(text, values, mode, prepared));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private async topLevel<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions): Promise<T> {
    const connection = options.readOnly ? this.reader : this.writer;
    await connection.lock.acquire();
    const state: TxState = { done: false, savepoints: 0, connection, handle: undefined as never };
    state.handle = this.handle(state);
    try {
      await busyRetry(connection.busyWaitMs, () =>
        connection.db.exec(options.readOnly ? 'BEGIN' : 'BEGIN IMMEDIATE'),
      );
      try {
        const result = await this.context.run(state, () => fn(state.handle));
        connection.db.exec('COMMIT');
        return result;
      } catch (e) {
        if (connection.db.inTransaction) connection.db.exec('ROLLBACK');
        throw e;
      }
    } finally {
      state.done = true;
      connection.lock.release();
    }
  }

  private async savepoint<T>(state: TxState, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const db = state.connection.db;
    const name = `sp${++state.savepoints}`;
    db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn(state.handle);
      db.exec(`RELEASE ${name}`);
      return result;
    } catch (e) {
      db.exec(`ROLLBACK TO ${name}`);
      db.exec(`RELEASE ${name}`);
      throw e;
    }
  }

  /** The handle given to a transaction's callback: runs on its connection while it is open. */
  private handle(state: TxState): Queryable {
    const open = () => {
      if (state.done) throw new Error('store: the transaction has already ended');
      return state.connection;
    };
    return {
      dialect: this.dialect,
      lockWaitMs: this.lockWaitMs,
      all: async (q) => open().executeSql(q, 'all') as never[],
      get: async (q) => open().executeSql(q, 'get') as never,
      run: async (q) => open().executeSql(q, 'run') as RunResult,
      exec: async (t) => {
        open().db.exec(t);
      },
      transaction: (fn) => this.savepoint(state, fn),
    };
  }
}

/** One better-sqlite3 connection with its statement cache and async lock. */
class Connection {
  readonly db: Database.Database;
  readonly lock = new AsyncLock();
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    file: string,
    readonly busyWaitMs: number,
    synchronous: SqliteSynchronous,
  ) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    // Waiting for another process's write lock happens asynchronously (busyRetry), so the
    // synchronous busy handler only covers very short waits and never stalls the event loop long.
    this.db.pragma('busy_timeout = 20');
    this.db.pragma('foreign_keys = ON');
  }

  /** Runs `work` now if the connection is free, else after the transaction holding it; retried while busy. */
  locked<T>(work: () => T): Promise<T> {
    return busyRetry(this.busyWaitMs, async () => {
      if (!this.lock.held) return work();
      await this.lock.acquire();
      try {
        return work();
      } finally {
        this.lock.release();
      }
    });
  }

  executeSql(query: Sql, mode: Mode): unknown {
    const { text, values } = query.render('sqlite');
    return this.execute(text, values, mode);
  }

  execute(text: string, values: unknown[], mode: Mode, prepared?: Database.Statement): unknown {
    const traced = tracing;
    if (traced) return traced.statement('sqlite', text, () => this.step(text, values, mode, prepared));
    return this.step(text, values, mode, prepared);
  }

  private step(text: string, values: unknown[], mode: Mode, prepared?: Database.Statement): unknown {
    const statement = prepared ?? this.prepare(text);
    const params = values.map(toSqliteValue);
    try {
      switch (mode) {
        case 'all':
          if (!statement.reader) {
            statement.run(...params);
            return [];
          }
          return statement.all(...params);
        case 'get':
          if (!statement.reader) {
            statement.run(...params);
            return undefined;
          }
          // A write (… RETURNING) steps to its end: .get() stops at the first row and resets the
          // statement, and the reset's error — an autocommit that failed (disk full) — is lost.
          if (!statement.readonly) return statement.all(...params)[0];
          return statement.get(...params);
        case 'run':
          return { changes: statement.run(...params).changes };
      }
    } catch (e) {
      if (isUniqueError(e)) nameViolatedIndex(this.db, e);
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.lock.acquire();
    try {
      this.statements.clear();
      this.db.close();
    } finally {
      this.lock.release();
    }
  }

  /** The connection's prepared statement for this text (cached). */
  prepare(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (statement) return statement;
    statement = this.db.prepare(text);
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.statements.keys().next().value as string;
      this.statements.delete(oldest);
    }
    this.statements.set(text, statement);
    return statement;
  }
}

/** Runs `attempt` again while SQLite reports the database busy (another process's write lock), up to `waitMs`. */
async function busyRetry<T>(waitMs: number, attempt: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
    try {
      return await attempt();
    } catch (e) {
      if (!isBusy(e) || Date.now() > deadline) throw e;
      await sleep(pause);
    }
  }
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function isUniqueError(e: unknown): e is Error & { code: string; constraint?: string } {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Gives a unique-violation error the name of the index it violated (as pg errors carry
 * `constraint`): SQLite names expression indexes in the message but lists columns otherwise.
 */
function nameViolatedIndex(db: Database.Database, e: Error & { constraint?: string }): void {
  const named = /index '([^']+)'/.exec(e.message);
  if (named) {
    e.constraint = named[1];
    return;
  }
  const columns = /constraint failed: (.+)$/.exec(e.message)?.[1]?.split(', ');
  if (!columns?.length) return;
  const table = columns[0]!.split('.')[0]!;
  const wanted = columns.map((c) => c.slice(table.length + 1)).join(',');
  try {
    const indexes = db.pragma(`index_list(${JSON.stringify(table)})`) as Array<{
      name: string;
      unique: number;
    }>;
    for (const index of indexes) {
      if (!index.unique) continue;
      const info = db.pragma(`index_info(${JSON.stringify(index.name)})`) as Array<{ name: string }>;
      if (info.map((c) => c.name).join(',') === wanted) {
        e.constraint = index.name;
        return;
      }
    }
  } catch {
    // leave the error as it is
  }
}

function toSqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** A FIFO async mutex. */
class AsyncLock {
  private locked = false;
  private readonly waiters: Array<() => void> = [];

  get held(): boolean {
    return this.locked;
  }

  acquire(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.locked = false;
  }
}
