import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';
import type { Queryable, Row, RunResult, Store, TransactionOptions } from './types.js';

type Mode = 'all' | 'get' | 'run';

/** The open transaction of the current async context. */
interface TxState {
  done: boolean;
  savepoints: number;
  handle: Queryable;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * The embedded engine: one better-sqlite3 connection in WAL mode. better-sqlite3 is synchronous,
 * so a single statement never interleaves with another; a transaction spans awaits, so it holds
 * an async lock that queues every other caller's statements until it ends.
 */
export class SqliteStore implements Store {
  readonly dialect = sqliteDialect;
  readonly location: string;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly context = new AsyncLocalStorage<TxState>();
  private readonly lock = new AsyncLock();

  constructor(file: string) {
    this.location = file;
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // Waiting for another process's write lock happens asynchronously (see `busyRetry`), so the
    // synchronous busy handler only covers very short waits and never stalls the event loop long.
    this.db.pragma('busy_timeout = 20');
    this.db.pragma('foreign_keys = ON');
  }

  all<T extends Row = Row>(query: Sql): Promise<T[]> {
    return this.run_(query, 'all') as Promise<T[]>;
  }

  get<T extends Row = Row>(query: Sql): Promise<T | undefined> {
    return this.run_(query, 'get') as Promise<T | undefined>;
  }

  run(query: Sql): Promise<RunResult> {
    return this.run_(query, 'run') as Promise<RunResult>;
  }

  async exec(text: string): Promise<void> {
    if (this.inTransaction()) {
      this.db.exec(text);
      return;
    }
    await busyRetry(async () => {
      if (!this.lock.held) return this.db.exec(text);
      await this.lock.acquire();
      try {
        this.db.exec(text);
      } finally {
        this.lock.release();
      }
    });
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const outer = this.context.getStore();
    if (outer && !outer.done) return this.savepoint(outer, fn);
    const retries = options.retries ?? (options.isolation === 'serializable' ? 5 : 0);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.topLevel(fn, options);
      } catch (e) {
        if (attempt >= retries || !this.dialect.isRetryable(e)) throw e;
        await sleep(10 * 2 ** attempt);
      }
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

  private async topLevel<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions): Promise<T> {
    await this.lock.acquire();
    const state: TxState = { done: false, savepoints: 0, handle: this.handle(() => state) };
    try {
      await busyRetry(() => this.db.exec(options.readOnly ? 'BEGIN' : 'BEGIN IMMEDIATE'));
      try {
        const result = await this.context.run(state, () => fn(state.handle));
        this.db.exec('COMMIT');
        return result;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
    } finally {
      state.done = true;
      this.lock.release();
    }
  }

  private async savepoint<T>(state: TxState, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const name = `sp${++state.savepoints}`;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn(state.handle);
      this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (e) {
      this.db.exec(`ROLLBACK TO ${name}`);
      this.db.exec(`RELEASE ${name}`);
      throw e;
    }
  }

  /** The handle given to a transaction's callback: runs on the connection while the transaction is open. */
  private handle(state: () => TxState): Queryable {
    const direct = async (query: Sql, mode: Mode) => {
      if (state().done) throw new Error('store: the transaction has already ended');
      return this.execute(query, mode);
    };
    return {
      dialect: this.dialect,
      all: (q) => direct(q, 'all') as Promise<never[]>,
      get: (q) => direct(q, 'get') as Promise<never>,
      run: (q) => direct(q, 'run') as Promise<RunResult>,
      exec: async (t) => {
        if (state().done) throw new Error('store: the transaction has already ended');
        this.db.exec(t);
      },
      transaction: (fn) => this.savepoint(state(), fn),
    };
  }

  private inTransaction(): boolean {
    const state = this.context.getStore();
    return state !== undefined && !state.done;
  }

  private async run_(query: Sql, mode: Mode): Promise<unknown> {
    if (this.inTransaction()) return this.execute(query, mode);
    // Outside a transaction a statement is its own: retried while another process writes.
    return busyRetry(async () => {
      if (!this.lock.held) return this.execute(query, mode);
      await this.lock.acquire();
      try {
        return this.execute(query, mode);
      } finally {
        this.lock.release();
      }
    });
  }

  private execute(query: Sql, mode: Mode): unknown {
    const { text, values } = query.render('sqlite');
    const statement = this.prepare(text);
    const params = values.map(toSqliteValue);
    try {
      return this.executePrepared(statement, params, mode);
    } catch (e) {
      if (isUniqueError(e)) nameViolatedIndex(this.db, e);
      throw e;
    }
  }

  private executePrepared(statement: Database.Statement, params: unknown[], mode: Mode): unknown {
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
        return statement.get(...params);
      case 'run':
        return { changes: statement.run(...params).changes };
    }
  }

  private prepare(text: string): Database.Statement {
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

const BUSY_WAIT_MS = 10_000;

/** Runs `attempt` again while SQLite reports the database busy (another process's write lock), up to 10 s. */
async function busyRetry<T>(attempt: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
    try {
      return await attempt();
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if ((code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') || Date.now() > deadline) throw e;
      await sleep(pause);
    }
  }
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
