/**
 * Cells (docs/deploy.md, "Cells"): one store over several PostgreSQL databases, each account's rows
 * in one of them. A `CellStore` is a `Store` whose every statement goes to the cell of the current
 * async context (`inCell(name, fn)`), or to the directory cell `main` outside one. So the platform's
 * services, written against one store, need no change: whoever starts a piece of work for an
 * account (an HTTP request, an evaluation task, a sweep) runs it in the account's cell.
 *
 * Only a deployment with FLOWMARK_CELLS opens a CellStore; without, nothing here runs (the
 * AsyncLocalStorage below is never entered, so it costs nothing).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ConfigError, MAIN_CELL } from '../config/index.js';
import { sql } from './sql.js';
import type { Dialect, Queryable, Row, RunResult, Store, TransactionOptions } from './types.js';
import type { Sql } from './sql.js';

const context = new AsyncLocalStorage<string>();

/** How long a server trusts an account's placement it read (a move is done with the account at rest). */
const PLACEMENT_TTL_MS = 10_000;

/** The cell store this thread opened, for the loops that visit every cell (`eachCell`). */
let opened: CellStore | undefined;

export class CellStore implements Store {
  readonly dialect: Dialect;
  readonly lockWaitMs: number | undefined;
  readonly location: string;
  private readonly main: Store;
  private readonly placements = new Map<string, { cell: string; until: number }>();

  /** `stores`: every cell by name, `main` (the directory) first. */
  private constructor(private readonly stores: ReadonlyMap<string, Store>) {
    const main = stores.get(MAIN_CELL);
    if (!main) throw new Error(`CellStore: no cell "${MAIN_CELL}"`);
    this.main = main;
    this.dialect = main.dialect;
    this.lockWaitMs = main.lockWaitMs;
    this.location = `${main.location} and the cells ${[...stores.keys()].filter((n) => n !== MAIN_CELL).join(', ')}`;
  }

  /** Opens a cell store over `stores` (`main` first) as this thread's, the one `eachCell` visits. */
  static over(stores: ReadonlyMap<string, Store>): CellStore {
    const cells = new CellStore(stores);
    opened = cells;
    return cells;
  }

  /** The cells' names, `main` first. */
  get names(): string[] {
    return [...this.stores.keys()];
  }

  /** The store of a cell; an unknown name is an error naming the configured cells. */
  cell(name: string): Store {
    const store = this.stores.get(name);
    if (!store) throw unknownCell(name, this.names);
    return store;
  }

  /** The store of the current async context's cell (`main` outside any). */
  private get active(): Store {
    const name = context.getStore();
    return name === undefined ? this.main : this.cell(name);
  }

  all<T extends Row = Row>(query: Sql): Promise<T[]> {
    return this.active.all<T>(query);
  }
  get<T extends Row = Row>(query: Sql): Promise<T | undefined> {
    return this.active.get<T>(query);
  }
  run(query: Sql): Promise<RunResult> {
    return this.active.run(query);
  }
  exec(text: string): Promise<void> {
    return this.active.exec(text);
  }
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.active.transaction(fn, options);
  }

  async close(): Promise<void> {
    if (opened === this) opened = undefined;
    await Promise.all([...this.stores.values()].map((s) => s.close()));
  }

  /**
   * The cell of an account: its placement in the directory, else `main` (also for an account the
   * directory does not know: its calls then find nothing, as on one store). At once when known.
   */
  cellOf(accountId: string): string | Promise<string> {
    const known = this.placements.get(accountId);
    if (known && known.until > Date.now()) return known.cell;
    return this.readPlacement(accountId);
  }

  private async readPlacement(accountId: string): Promise<string> {
    const row = await this.main.get<{ cell: string | null }>(sql`
      SELECT c.cell FROM accounts a LEFT JOIN account_cells c ON c.account_id = a.account_id
      WHERE a.account_id = ${accountId}`);
    if (!row) return MAIN_CELL;
    const cell = row.cell ?? MAIN_CELL;
    if (!this.stores.has(cell))
      throw new ConfigError(
        `account ${accountId} is placed in cell "${cell}", which FLOWMARK_CELLS does not list`,
      );
    this.placements.set(accountId, { cell, until: Date.now() + PLACEMENT_TTL_MS });
    return cell;
  }

  /** Records in the directory that an account (whose directory row exists) lives in `cell` (not `main`). */
  async place(accountId: string, cell: string): Promise<void> {
    this.cell(cell);
    await this.main.run(sql`
      INSERT INTO account_cells (account_id, cell, placed_at) VALUES (${accountId}, ${cell}, ${Date.now()})`);
    this.placements.delete(accountId);
  }

  /** Every account of the directory with its cell, by id. */
  async accounts(): Promise<Array<{ id: string; name: string; cell: string }>> {
    const rows = await this.main.all<{ account_id: string; name: string; cell: string | null }>(sql`
      SELECT a.account_id, a.name, c.cell FROM accounts a LEFT JOIN account_cells c ON c.account_id = a.account_id
      ORDER BY a.account_id`);
    return rows.map((r) => ({ id: r.account_id, name: r.name, cell: r.cell ?? MAIN_CELL }));
  }

  /** How many accounts each cell holds, by the directory (cells without any: 0), in list order. */
  async population(): Promise<Map<string, number>> {
    const counts = new Map(this.names.map((n) => [n, 0]));
    const rows = await this.main.all<{ cell: string | null; n: number }>(sql`
      SELECT c.cell, COUNT(*) AS n FROM accounts a LEFT JOIN account_cells c ON c.account_id = a.account_id
      GROUP BY c.cell`);
    for (const row of rows) {
      const cell = row.cell ?? MAIN_CELL;
      counts.set(cell, (counts.get(cell) ?? 0) + Number(row.n));
    }
    return counts;
  }
}

/** The error for a cell name no cell has. */
export function unknownCell(name: string, names: readonly string[]): ConfigError {
  return new ConfigError(`unknown cell ${JSON.stringify(name)}: the cells are ${names.join(', ')}`);
}

/** The store's cells, or undefined for a store of one database. */
export function cellsOf(store: Store): CellStore | undefined {
  return store instanceof CellStore ? store : undefined;
}

/** The cell of the current async context (undefined outside any: `main`, or no cells at all). */
export function currentCell(): string | undefined {
  return context.getStore();
}

/** Runs `fn` in a cell: every statement of a CellStore it makes (in its async context) goes there. */
export function inCell<T>(cell: string | undefined, fn: () => T): T {
  return cell === undefined ? fn() : context.run(cell, fn);
}

/** Runs `fn` in the cell of an account (as it is, for a store without cells). */
export async function inAccountCell<T>(store: Store, accountId: string, fn: () => Promise<T>): Promise<T> {
  const cells = cellsOf(store);
  if (!cells) return fn();
  return inCell(await cells.cellOf(accountId), fn);
}

/**
 * Runs `fn` once in each cell of this thread's cell store, one cell after another (`main` first),
 * or once as it is without cells: the loops that look at the whole store (the sweeper).
 */
export async function eachCell<T>(fn: () => Promise<T>): Promise<T[]> {
  const cells = opened;
  if (!cells) return [await fn()];
  const results: T[] = [];
  for (const name of cells.names) results.push(await inCell(name, fn));
  return results;
}

/**
 * The first answer `find` gives that is not null/undefined, trying each cell in turn (`main`
 * first), with the cell it came from: a credential looked up before its account is known.
 */
export async function firstInCells<T>(
  store: Store,
  find: () => Promise<T | null | undefined>,
): Promise<{ value: T; cell: string | undefined } | undefined> {
  const cells = cellsOf(store);
  if (!cells) {
    const value = await find();
    return value === null || value === undefined ? undefined : { value, cell: undefined };
  }
  for (const cell of cells.names) {
    const value = await inCell(cell, find);
    if (value !== null && value !== undefined) return { value, cell };
  }
  return undefined;
}
