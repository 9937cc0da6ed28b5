import { resolve } from 'node:path';

/**
 * Process-wide settings read from the environment. Every command (render, serve, …) uses the same
 * data directory and database, so `flowmark render` sees what `flowmark serve` stored.
 */
export interface Config {
  /** Directory of the embedded SQLite database and other local state: FLOWMARK_DATA or ./data. */
  dataDir: string;
  /** PostgreSQL connection string (DATABASE_URL); when absent the embedded SQLite store is used. */
  databaseUrl: string | undefined;
  /** SQLite: a commit reaches the disk at each checkpoint (`normal`) or at each commit (`full`): FLOWMARK_SQLITE_SYNCHRONOUS. */
  sqliteSynchronous: 'normal' | 'full';
  /**
   * The cells besides DATABASE_URL's (FLOWMARK_CELLS: `name=url,name=url`; docs/deploy.md "Cells");
   * undefined when unset: one store.
   */
  cells: readonly CellSetting[] | undefined;
  /**
   * PostgreSQL: how many statement texts a connection prepares (names), at most
   * (FLOWMARK_PG_PREPARED_STATEMENTS, 0 to 10000; 0 for a pooler in transaction mode that does not
   * keep prepared statements); undefined: the store's default.
   */
  pgPreparedStatements: number | undefined;
}

/** One cell of FLOWMARK_CELLS: its name and its PostgreSQL URL. */
export interface CellSetting {
  name: string;
  url: string;
}

/** The cell of DATABASE_URL, which is also the directory of every account's cell. */
export const MAIN_CELL = 'main';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    dataDir: resolve(env.FLOWMARK_DATA || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    sqliteSynchronous: sqliteSynchronous(env.FLOWMARK_SQLITE_SYNCHRONOUS),
    cells: cellsFromEnv(env.FLOWMARK_CELLS),
    pgPreparedStatements: preparedStatements(env.FLOWMARK_PG_PREPARED_STATEMENTS),
  };
}

function preparedStatements(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 10_000)
    throw new ConfigError(
      `FLOWMARK_PG_PREPARED_STATEMENTS: expected a whole number from 0 to 10000, got ${JSON.stringify(text)}`,
    );
  return value;
}

function sqliteSynchronous(text: string | undefined): 'normal' | 'full' {
  const value = (text ?? '').trim().toLowerCase();
  if (value === '' || value === 'normal') return 'normal';
  if (value === 'full') return 'full';
  throw new ConfigError(`FLOWMARK_SQLITE_SYNCHRONOUS: expected normal or full, got ${JSON.stringify(text)}`);
}

const CELL_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** FLOWMARK_CELLS parsed and checked; undefined when unset or blank. */
export function cellsFromEnv(text: string | undefined): CellSetting[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const cells: CellSetting[] = [];
  for (const entry of text.split(',')) {
    const m = /^\s*([^=\s]*)\s*=\s*(\S+)\s*$/.exec(entry);
    if (!m)
      throw new ConfigError(
        `FLOWMARK_CELLS: expected name=postgres://… entries separated by commas, got ${JSON.stringify(entry.trim())}`,
      );
    const name = m[1]!;
    const url = m[2]!;
    if (name === MAIN_CELL)
      throw new ConfigError(
        `FLOWMARK_CELLS: "${MAIN_CELL}" is the cell of DATABASE_URL and cannot be listed`,
      );
    if (!CELL_NAME.test(name))
      throw new ConfigError(
        `FLOWMARK_CELLS: invalid cell name ${JSON.stringify(name)}: lower-case letters, digits, _ and - (at most 32), starting with a letter`,
      );
    if (cells.some((c) => c.name === name))
      throw new ConfigError(`FLOWMARK_CELLS: cell "${name}" is listed twice`);
    if (!/^postgres(ql)?:\/\//.test(url))
      throw new ConfigError(`FLOWMARK_CELLS: cell "${name}": expected a postgres:// or postgresql:// URL`);
    cells.push({ name, url });
  }
  return cells;
}

/** A setting with a value it cannot use; the message names the variable or option. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The largest data-document limit accepted (1 GiB): documents are parsed and stored whole. */
export const MAX_DATA_DOCUMENT_BYTES = 1024 ** 3;

/**
 * A size in bytes: an integer, or one followed by KiB or MiB (`5242880`, `512KiB`, `5 MiB`;
 * case-insensitive), from 1 byte to 1 GiB. `what` names the setting in the error.
 */
export function parseByteSize(text: string, what: string): number {
  const m = /^\s*(\d{1,10})\s*(b|kib|mib)?\s*$/i.exec(text);
  const unit = { b: 1, kib: 1024, mib: 1024 ** 2 }[(m?.[2] ?? 'b').toLowerCase() as 'b' | 'kib' | 'mib'];
  const bytes = m ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > MAX_DATA_DOCUMENT_BYTES)
    throw new ConfigError(
      `${what}: expected a size from 1 byte to 1 GiB, in bytes or with KiB or MiB (e.g. 10MiB), got ${JSON.stringify(text)}`,
    );
  return bytes;
}

/**
 * The maximum size of a request's data document (inject_objects, process steps …) set for the
 * deployment by FLOWMARK_DATA_DOCUMENT_LIMIT; undefined when unset (the hosts' default, 5 MiB).
 * Read by the commands that evaluate (serve, run, render), not by loadConfig, so a bad value
 * stops those commands with its message without affecting what only opens the store.
 */
export function dataDocumentLimit(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env.FLOWMARK_DATA_DOCUMENT_LIMIT;
  return text === undefined || text.trim() === ''
    ? undefined
    : parseByteSize(text, 'FLOWMARK_DATA_DOCUMENT_LIMIT');
}

/** How long a statement waits on the store for another connection's lock by default when serving. */
export const DEFAULT_LOCK_WAIT_MS = 10_000;

/**
 * FLOWMARK_LOCK_WAIT_MS: the bound of waiting on the store (a lock another connection or process
 * holds, SQLite's write lock, PostgreSQL's lock_timeout), 100 ms to 10 min; undefined when unset.
 * Beyond it a call answers `409 contention` with Retry-After.
 */
export function lockWaitMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env.FLOWMARK_LOCK_WAIT_MS;
  if (text === undefined || text.trim() === '') return undefined;
  const value = /^\s*\d{1,9}\s*$/.test(text) ? Number(text) : NaN;
  if (!(value >= 100 && value <= 600_000))
    throw new ConfigError(
      `FLOWMARK_LOCK_WAIT_MS: expected milliseconds from 100 to 600000, got ${JSON.stringify(text)}`,
    );
  return value;
}

/**
 * The integer setting `name` of the environment, from min to max; undefined when unset or blank.
 * A bad value is a ConfigError naming the variable and the range.
 */
export function integerFromEnv(
  env: NodeJS.ProcessEnv,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === '') return undefined;
  const n = /^\s*\d{1,6}\s*$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max))
    throw new ConfigError(`${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return n;
}
