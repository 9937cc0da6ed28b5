/**
 * # Storage: one async interface, two engines
 *
 * Platform services are written against `Store` only, never against an engine:
 *
 *   const store = await openStore();            // loadConfig(): FLOWMARK_DATA, DATABASE_URL
 *   const rows = await store.all(sql`SELECT id, name FROM uploads WHERE account_id = ${accountId}`);
 *
 * - Engines: SQLite (better-sqlite3, WAL, file `<dataDir>/flowmark.db`) by default; PostgreSQL
 *   (`pg` pool) when `DATABASE_URL` is set. Migrations are applied by `openStore`.
 * - SQL is written once with the `sql` tag: `${value}` binds a parameter, `${sql`...`}` nests a
 *   fragment, `sql.join(list)`, `sql.raw(trustedText)`, `sql.literal(v)` (inlined, for DDL and
 *   partial-index predicates), `sql.ident(name)`. Both engines accept the same
 *   `INSERT … ON CONFLICT (…) DO UPDATE SET x = excluded.x … RETURNING …` (upsert, returning)
 *   and `INSERT … ON CONFLICT DO NOTHING`.
 * - `store.dialect` holds the rest: column types for CREATE TABLE (`types.id`, `bigint`, `json`,
 *   `blob`, `boolean`, `binaryText` …), `forUpdate` (row lock on PostgreSQL, empty on SQLite),
 *   `cast(v, type)` (for VALUES lists), `jsonText(column, path)` (JSON extraction),
 *   `uniqueViolation(err)`, `isRetryable(err)`, `binaryTextOrder`, and `documents`: the document
 *   dialect of collections (documents.ts — field expressions, pushed conditions, index DDL).
 * - Lock waits: a statement waits for a lock another process holds up to `lockWaitMs` (SQLite's
 *   write lock, default 10 s; PostgreSQL's `lock_timeout`, default none), then fails with an
 *   error `isRetryable` accepts.
 * - Values: parameters are strings, numbers, booleans (1/0 on SQLite), null, Buffers; JSON is
 *   passed as its text. Rows come back with BIGINT as a number, JSON columns as their text,
 *   BLOB/BYTEA as a Buffer, booleans as true/false (PostgreSQL) or 1/0 (SQLite): read them with
 *   `Boolean(row.flag)`.
 * - Transactions: `await store.transaction(async (tx) => { … })` commits when the callback
 *   resolves and rolls back when it throws. Every query made through `store` (or `tx`) inside the
 *   callback's async context joins the transaction; a nested `transaction` is a savepoint.
 *   Options: `{ isolation: 'serializable' }` (PostgreSQL; SQLite write transactions are always
 *   serializable), `{ readOnly: true }`, `{ retries: n }` (the callback is re-run after a
 *   serialization failure / deadlock / busy database; default 5 for serializable). For
 *   read-modify-write of one row, `SELECT … ${tx.dialect.forUpdate}` locks it on PostgreSQL; on
 *   SQLite the write transaction already holds the database's write lock. Counters and locks are
 *   best written as one upsert-and-return statement.
 * - Tenancy: every table has an `account_id` column and every query names one.
 * - Migrations: one module per migration in `src/store/migrations/` (`NNNN_what.ts`, default
 *   export `defineMigration({ id: 'NNNN_what', async up(db) { await db.exec(`CREATE TABLE …`) } })`)
 *   plus one line in `src/store/migrations/index.ts`. Each runs once, in its own transaction,
 *   recorded in `schema_migrations`.
 * - Tests: `test/support/engines.ts` runs a suite on SQLite and, when FLOWMARK_TEST_PG is set, on
 *   PostgreSQL (a fresh schema per suite).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig, MAIN_CELL, type CellSetting, type Config } from '../config/index.js';
import { CellStore } from './cells.js';
import { migrate, type Migration } from './migrate.js';
import { migrations as allMigrations } from './migrations/index.js';
import type { Store } from './types.js';
import type { CheckpointOptions } from './sqlite-checkpointer.js';

export { sql, Sql, quoteIdent, quoteString, type EngineName } from './sql.js';
export { prefixedColumns, unprefixed } from './prefixed.js';
export { defineMigration, migrate, pendingMigrations, type Migration } from './migrate.js';
export { allMigrations as migrations };
export { CONTENTION_MESSAGE, CONTENTION_RETRY_AFTER_SECONDS, isContention } from './contention.js';
export {
  isStorageFull,
  isUnavailable,
  storeFaultAnswer,
  type StoreFaultAnswer,
  STORAGE_FULL_MESSAGE,
  UNAVAILABLE_MESSAGE,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from './faults.js';
export {
  isAddressablePath,
  JSON_ARRAY,
  JSON_BOOLEAN,
  JSON_HIGH_STRING,
  JSON_NULL,
  JSON_NUMBER,
  JSON_OBJECT,
  JSON_STRING,
  type Atom,
  type Bound,
  type DocumentDialect,
  type DocumentIndexDefinition,
  type FieldChange,
  type GroupQuery,
  type SetUpdate,
  type KeyColumns,
  type Scalar,
} from './documents.js';
import { errorMessage } from '../errors/index.js';
export {
  cellsOf,
  currentCell,
  eachCell,
  firstInCells,
  inAccountCell,
  inCell,
  unknownCell,
  type CellStore,
} from './cells.js';
export type { Dialect, Isolation, Queryable, Row, RunResult, Store, TransactionOptions } from './types.js';

export interface OpenStoreOptions extends Partial<Config> {
  /** SQLite: a file path instead of `<dataDir>/flowmark.db` (':memory:' for a private database). */
  sqliteFile?: string;
  /** PostgreSQL: the schema holding the tables (created if missing); default the search_path. */
  pgSchema?: string;
  /** PostgreSQL: pool size (default 10). */
  poolSize?: number;
  /**
   * How long one statement waits for a lock another connection or process holds before the engine
   * reports a (retryable) conflict: SQLite's wait for the write lock (default 10 s), PostgreSQL's
   * `lock_timeout` (default the server's, normally none: it waits); on PostgreSQL also how long
   * opening a connection, or waiting for a free one of the pool, may take (at least 2 s; default
   * no limit).
   */
  lockWaitMs?: number;
  /** SQLite: how the WAL is checkpointed (default: by a thread of the store's own; sqlite.ts). */
  sqliteCheckpoint?: CheckpointOptions | false;
  /** The migrations to apply (default: all of src/store/migrations). */
  migrations?: readonly Migration[];
}

/** Opens the configured engine and brings its schema up to date. */
export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  const config = { ...loadConfig(), ...options };
  if (config.cells?.length) return openCells(config.databaseUrl, config.cells, options);
  return openOne(config, options);
}

/** The directory cell (DATABASE_URL, `main`) and every cell of FLOWMARK_CELLS, each migrated (cells.ts). */
async function openCells(
  databaseUrl: string | undefined,
  cells: readonly CellSetting[],
  options: OpenStoreOptions,
): Promise<Store> {
  if (!databaseUrl)
    throw new ConfigError(
      `FLOWMARK_CELLS: cells need PostgreSQL: set DATABASE_URL (the directory cell, ${MAIN_CELL}) too`,
    );
  const stores = new Map<string, Store>();
  try {
    stores.set(
      MAIN_CELL,
      await openOne({ ...loadConfig(), ...options, databaseUrl, cells: undefined }, options),
    );
    for (const cell of cells)
      stores.set(
        cell.name,
        await openOne(
          { ...loadConfig(), ...options, databaseUrl: cell.url, cells: undefined },
          {
            ...options,
            pgSchema: undefined,
          },
          `FLOWMARK_CELLS, cell ${cell.name}`,
        ),
      );
  } catch (e) {
    await Promise.all([...stores.values()].map((s) => s.close()));
    throw e;
  }
  return CellStore.over(stores);
}

async function openOne(config: Config, options: OpenStoreOptions, setting = 'DATABASE_URL'): Promise<Store> {
  let store: Store;
  if (config.databaseUrl) {
    const { PostgresStore } = await import('./postgres.js'); // its driver loads only when used
    try {
      store = await PostgresStore.open(config.databaseUrl, {
        schema: options.pgSchema,
        poolSize: options.poolSize,
        lockTimeoutMs: options.lockWaitMs,
        preparedStatements: config.pgPreparedStatements,
        // A connection takes a few round trips (and a busy machine longer): never under 2 s.
        connectTimeoutMs: options.lockWaitMs === undefined ? undefined : Math.max(options.lockWaitMs, 2000),
      });
    } catch (e) {
      throw new StoreOpenError(`PostgreSQL at ${serverOf(config.databaseUrl)} (${setting})`, e);
    }
  } else {
    let file = options.sqliteFile;
    const { SqliteStore } = await import('./sqlite.js');
    try {
      if (!file) {
        mkdirSync(config.dataDir, { recursive: true });
        file = join(config.dataDir, 'flowmark.db');
      }
      store = new SqliteStore(file, {
        busyWaitMs: options.lockWaitMs,
        checkpoint: options.sqliteCheckpoint,
        synchronous: config.sqliteSynchronous,
      });
    } catch (e) {
      const where = file ?? config.dataDir;
      throw new StoreOpenError(
        `the SQLite database ${where}${options.sqliteFile ? '' : ' (FLOWMARK_DATA)'}`,
        e,
      );
    }
  }
  try {
    await migrate(store, options.migrations ?? allMigrations);
  } catch (e) {
    await store.close();
    throw e;
  }
  return store;
}

/** The store could not be opened: the message names what was being opened (never a password). */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
  constructor(
    readonly what: string,
    override readonly cause: unknown,
  ) {
    super(`cannot open ${what}: ${errorMessage(cause)}`);
  }
}

/** host:port of a PostgreSQL URL (the parts that say where, without credentials). */
function serverOf(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
    return `${host}:${parsed.port || '5432'}`;
  } catch {
    return 'an unreadable URL';
  }
}
