import { Ambient } from './ambient.js';
import { retryingTransaction } from './retries.js';
import pg from 'pg';
import { isStalePlan, postgresDialect } from './dialect.js';
import { quoteIdent, type Sql } from './sql.js';
import { tracing } from '../traces/hooks.js';
import type { Dialect, Queryable, Row, RunResult, Store, TransactionOptions } from './types.js';

interface TxState {
  done: boolean;
  savepoints: number;
  client: pg.PoolClient;
  handle: Queryable;
}

/**
 * Statement texts a store prepares (names) at most: the store's own statements are a few hundred
 * texts; texts built from callers' query shapes beyond them run unnamed, so a connection never
 * holds an unbounded number of prepared statements.
 */
export const PREPARED_STATEMENTS = 400;

/**
 * The names of the statements a store prepares. PostgreSQL parses and analyses a named statement
 * once per connection instead of at every execution (the `pg` client sends its text only the first
 * time on each connection). Only statements with parameters are named: DDL and the transaction
 * statements take none. `forget` gives every text a new name, so each connection prepares it
 * again (after a table's columns changed under a prepared `SELECT *`).
 */
class StatementNames {
  private names = new Map<string, string>();
  private generation = 0;

  constructor(private readonly limit: number) {}

  of(text: string, parameters: number): string | undefined {
    if (parameters === 0 || this.limit === 0) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.limit)
      this.names.set(text, (name = `fm${this.generation}_${this.names.size}`));
    return name;
  }

  forget(): void {
    this.names = new Map();
    this.generation++;
  }
}

const INT8 = 20;
const JSON_OID = 114;
const JSONB_OID = 3802;

/** BIGINT as a JS number; JSON and JSONB as their text (both engines hand JSON back as text). */
const typeParsers = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8) return (value: string) => Number(value);
    if (oid === JSON_OID || oid === JSONB_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

export interface PostgresOptions {
  /** Schema holding flowmark's tables (created if missing); default: the server's search_path. */
  schema?: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /**
   * `lock_timeout` of every connection, in ms: how long a statement waits for a lock another
   * transaction holds before failing with 55P03 (retryable). Default: the server's (normally no limit).
   */
  lockTimeoutMs?: number;
  /**
   * How long opening a connection, or waiting for a free one of the pool, may take before the
   * statement fails (answered 503 unavailable). Default: no limit.
   */
  connectTimeoutMs?: number;
  /** Statement texts prepared (named) at most, PREPARED_STATEMENTS by default; 0: none (a pooler in transaction mode without prepared-statement support). */
  preparedStatements?: number;
}

/** PostgreSQL through a `pg` pool: every statement outside a transaction takes any free connection. */
export class PostgresStore implements Store {
  readonly location: string;
  private readonly names: StatementNames;
  private constructor(
    private readonly pool: pg.Pool,
    readonly dialect: Dialect,
    location: string,
    readonly lockWaitMs: number | undefined,
    preparedStatements: number,
  ) {
    this.location = location;
    this.names = new StatementNames(preparedStatements);
  }

  private readonly context = new Ambient<TxState>();

  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresStore> {
    const config: pg.PoolConfig = {
      connectionString: url,
      max: options.poolSize ?? 10,
      types: typeParsers,
      // A server that vanished without closing its connections (a machine lost) is noticed.
      keepAlive: true,
      ...(options.connectTimeoutMs !== undefined
        ? { connectionTimeoutMillis: options.connectTimeoutMs }
        : {}),
    };
    const settings: string[] = [];
    if (options.schema) {
      const setup = new pg.Client({ connectionString: url });
      setup.on('error', () => {}); // its query rejects with the same error
      await setup.connect();
      try {
        await setup.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(options.schema)}`);
      } finally {
        await setup.end();
      }
      settings.push(`-c search_path=${quoteIdent(options.schema)}`);
    }
    if (options.lockTimeoutMs !== undefined) {
      if (!Number.isSafeInteger(options.lockTimeoutMs) || options.lockTimeoutMs < 0)
        throw new Error(`store: lockTimeoutMs must be a whole number of ms, got ${options.lockTimeoutMs}`);
      settings.push(`-c lock_timeout=${options.lockTimeoutMs}`);
    }
    if (settings.length) {
      // pg takes a URL's `options` parameter over config.options: keep both, the URL's first.
      const parsed = parseUrl(url);
      const own = parsed?.searchParams.get('options');
      if (parsed && own) {
        parsed.searchParams.delete('options');
        config.connectionString = parsed.toString();
        settings.unshift(own);
      }
      config.options = settings.join(' ');
    }
    const pool = new pg.Pool(config);
    // An idle client's error (server restart) must not crash the process; the pool drops that
    // client and the next query opens a new connection.
    pool.on('error', () => {});
    try {
      const { rows } = await pool.query<{ collate: string; db: string }>(
        'SELECT datcollate AS collate, current_database() AS db FROM pg_database WHERE datname = current_database()',
      );
      const collate = rows[0]?.collate ?? '';
      const binary = /^(C|POSIX|C\.UTF-?8)$/i.test(collate);
      return new PostgresStore(
        pool,
        postgresDialect(binary),
        `postgresql database ${rows[0]?.db ?? '?'}`,
        options.lockTimeoutMs,
        options.preparedStatements ?? PREPARED_STATEMENTS,
      );
    } catch (e) {
      await pool.end();
      throw e;
    }
  }

  all<T extends Row = Row>(query: Sql): Promise<T[]> {
    return this.query(query).then((r) => r.rows as T[]);
  }

  get<T extends Row = Row>(query: Sql): Promise<T | undefined> {
    return this.query(query).then((r) => r.rows[0] as T | undefined);
  }

  run(query: Sql): Promise<RunResult> {
    return this.query(query).then((r) => ({ changes: r.rowCount ?? 0 }));
  }

  async exec(text: string): Promise<void> {
    const state = this.current();
    await (state ? state.client : this.pool).query(text);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const outer = this.current();
    if (outer) return this.savepoint(outer, fn);
    return retryingTransaction(
      'postgres',
      options,
      (e) => this.dialect.isRetryable(e),
      (attempt) => 5 * 2 ** attempt + Math.random() * 10,
      () => this.topLevel(fn, options),
    );
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private current(): TxState | undefined {
    return this.context.current();
  }

  private query(query: Sql, client?: pg.PoolClient): Promise<pg.QueryResult> {
    const { text, values } = query.render('postgres');
    const inTransaction = client ?? this.current()?.client;
    const target = inTransaction ?? this.pool;
    const params = values.map((v) => (v === undefined ? null : v));
    const send = (): Promise<pg.QueryResult> => {
      const name = this.names.of(text, params.length);
      return name === undefined ? target.query(text, params) : target.query({ name, text, values: params });
    };
    // A stale plan is retried at once outside a transaction; inside, the transaction fails (its
    // statements already ran), retried when its options allow (dialect.isRetryable), and every
    // text has a new name for the next one.
    const run = () =>
      send().catch((e: unknown) => {
        if (!isStalePlan(e)) throw e;
        this.names.forget();
        if (inTransaction) throw e;
        return send();
      });
    const traced = tracing;
    if (traced) return traced.statement('postgresql', text, run);
    return run();
  }

  private async topLevel<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions): Promise<T> {
    const client = await this.pool.connect();
    const state: TxState = { done: false, savepoints: 0, client, handle: undefined as never };
    state.handle = this.handle(state);
    let broken: Error | boolean = false;
    // pg-pool listens for a client's errors only while it is idle: a connection that dies inside
    // the transaction (server restart, pg_terminate_backend) would raise an unhandled 'error' and
    // end the process. It fails this transaction only (its statements reject), and the client is
    // released as broken so the pool opens a fresh connection for the next one.
    const onError = (e: Error) => {
      broken = e;
    };
    client.on('error', onError);
    try {
      const level = (options.isolation ?? 'read committed').toUpperCase();
      await client.query(`BEGIN ISOLATION LEVEL ${level}${options.readOnly ? ' READ ONLY' : ''}`);
      try {
        const result = await this.context.run(state, () => fn(state.handle));
        await client.query('COMMIT');
        return result;
      } catch (e) {
        if (!broken) {
          try {
            await client.query('ROLLBACK');
          } catch {
            broken = true;
          }
        }
        throw e;
      }
    } finally {
      state.done = true;
      client.off('error', onError);
      client.release(broken);
    }
  }

  private async savepoint<T>(state: TxState, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const name = `sp${++state.savepoints}`;
    await state.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn(state.handle);
      await state.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (e) {
      await state.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      await state.client.query(`RELEASE SAVEPOINT ${name}`);
      throw e;
    }
  }

  private handle(state: TxState): Queryable {
    const open = () => {
      if (state.done) throw new Error('store: the transaction has already ended');
      return state.client;
    };
    return {
      dialect: this.dialect,
      lockWaitMs: this.lockWaitMs,
      all: async (q) => (await this.query(q, open())).rows as never[],
      get: async (q) => (await this.query(q, open())).rows[0] as never,
      run: async (q) => ({ changes: (await this.query(q, open())).rowCount ?? 0 }),
      exec: async (t) => {
        await open().query(t);
      },
      transaction: (fn) => this.savepoint(state, fn),
    };
  }
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
