import type { DocumentDialect } from './documents.js';
import type { EngineName, Sql } from './sql.js';

/** One result row: column name → value (see the value rules in index.ts). */
export type Row = Record<string, unknown>;

export interface RunResult {
  /** Rows inserted, updated or deleted by the statement. */
  changes: number;
}

export type Isolation = 'read committed' | 'repeatable read' | 'serializable';

export interface TransactionOptions {
  /**
   * PostgreSQL isolation level (default read committed). SQLite write transactions are always
   * serializable (BEGIN IMMEDIATE takes the database's write lock).
   */
  isolation?: Isolation;
  /** Only reads: SQLite uses a deferred (shared) transaction, PostgreSQL `READ ONLY`. */
  readOnly?: boolean;
  /**
   * Re-run the whole callback this many extra times when the engine reports a serialization
   * failure or deadlock (PostgreSQL 40001/40P01) or a busy database (SQLite). The callback must
   * then be safe to repeat. Default: 5 for serializable, 0 otherwise.
   */
  retries?: number;
}

/** What both a store and an open transaction can do. */
export interface Queryable {
  readonly dialect: Dialect;
  /**
   * How long one statement waits for a lock another connection or process holds (SQLite's write
   * lock, PostgreSQL's lock_timeout); retries of a conflict stay within it too. Undefined: the
   * engine's default (SQLite 10 s, PostgreSQL none).
   */
  readonly lockWaitMs?: number;
  /** Every row of a query (statements without a result set give []). */
  all<T extends Row = Row>(query: Sql): Promise<T[]>;
  /** The first row, or undefined. */
  get<T extends Row = Row>(query: Sql): Promise<T | undefined>;
  /** A statement for its effect: the number of rows it changed. */
  run(query: Sql): Promise<RunResult>;
  /** Raw SQL text without parameters, possibly several statements (DDL, migrations). */
  exec(text: string): Promise<void>;
  /**
   * Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. Inside
   * one, a nested call is a savepoint. Every query made through the store while `fn` runs (in its
   * async context) joins the transaction, so services need not pass the handle around.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

export interface Store extends Queryable {
  /** Closes the database (SQLite file / PostgreSQL pool). */
  close(): Promise<void>;
  /** Where the data lives, for messages: the SQLite file or the PostgreSQL database name. */
  readonly location: string;
}

/** The differences between the engines, for SQL written once. */
export interface Dialect {
  readonly name: EngineName;
  /** Column types for CREATE TABLE. */
  readonly types: {
    /** Auto-incremented integer primary key. */
    id: string;
    /** 64-bit integer (epoch milliseconds, counters); read back as a JS number. */
    bigint: string;
    integer: string;
    real: string;
    text: string;
    /** Text compared and ordered by code point (`COLLATE "C"` on PostgreSQL). */
    binaryText: string;
    /** JSON kept verbatim (key order preserved); read back as its text. */
    json: string;
    blob: string;
    /** Read back as true/false on PostgreSQL and 1/0 on SQLite: use `Boolean(row.x)`. */
    boolean: string;
  };
  /** ` FOR UPDATE` on PostgreSQL (row lock); empty on SQLite, whose write transactions lock the database. */
  readonly forUpdate: Sql;
  /**
   * ` FOR NO KEY UPDATE` on PostgreSQL: the row lock an UPDATE that keeps the key takes, which a
   * foreign key's check (KEY SHARE) from another transaction does not wait for; empty on SQLite.
   */
  readonly forNoKeyUpdate: Sql;
  /**
   * True when a transaction locks rows one at a time (PostgreSQL), so two transactions that lock
   * the same rows in different orders can deadlock; false on SQLite, whose write transaction
   * holds the whole database.
   */
  readonly locksRows: boolean;
  /**
   * ` FOR UPDATE SKIP LOCKED` on PostgreSQL, ending the sub-select of a claim (`UPDATE … WHERE id
   * IN (SELECT … LIMIT n<skipLocked>)`): two claimers never wait on nor take the same rows. Empty on
   * SQLite, where the writer lock already makes the statement atomic.
   */
  readonly skipLocked: Sql;
  /**
   * True when text comparison and ORDER BY follow code-point order: always on SQLite; on
   * PostgreSQL when the database collation is C / POSIX / C.UTF-8.
   */
  readonly binaryTextOrder: boolean;
  /**
   * True when an `UPDATE … FROM` may return the joined table's columns (PostgreSQL); SQLite's
   * `RETURNING` sees the updated table only.
   */
  readonly returnsJoined: boolean;
  /** True when a data-modifying statement may stand in a `WITH` (PostgreSQL); not on SQLite. */
  readonly modifyingWith: boolean;
  /** JSON documents in SQL (collections): field expressions, pushed conditions, index DDL (documents.ts). */
  readonly documents: DocumentDialect;
  /** A parameter cast to a type, for places where PostgreSQL cannot infer it (VALUES lists, CASE). */
  cast(value: unknown, type: 'bigint' | 'integer' | 'text' | 'json' | 'boolean' | 'real'): Sql;
  /** The text of a scalar inside a JSON column at a path of keys (null when absent). */
  jsonText(column: Sql, path: readonly string[]): Sql;
  /** The name of the unique index/constraint an error violated, or undefined for other errors. */
  uniqueViolation(error: unknown): { constraint: string } | undefined;
  /**
   * True for errors worth retrying the transaction for: serialization failure, deadlock, a lock
   * wait over PostgreSQL's lock_timeout, a busy SQLite database.
   */
  isRetryable(error: unknown): boolean;
}
