/**
 * A store command's `--account` with cells (docs/deploy.md "Cells"): the command runs in that
 * account's cell, so `flowmark users|token|project|collections|files|run … --account ID` reads and
 * writes where the account lives. Loaded only when FLOWMARK_CELLS is set.
 */
import { ConfigError } from '../config/index.js';
import { cellsOf, inCell, openStore, StoreOpenError } from '../store/index.js';
import type { CliIo } from './main.js';

/** The value of `--account ID` / `--account=ID` among a command's arguments. */
export function accountArgument(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--account') return args[i + 1];
    if (args[i]!.startsWith('--account=')) return args[i]!.slice('--account='.length);
  }
  return undefined;
}

/** Runs `run` in the cell of `accountId`; a store that cannot be opened is the command's failure. */
export async function inCellOfAccount(
  command: string,
  accountId: string,
  io: CliIo,
  run: () => Promise<number>,
): Promise<number> {
  let cell: string | undefined;
  try {
    const store = await openStore();
    try {
      cell = await cellsOf(store)?.cellOf(accountId);
    } finally {
      await store.close();
    }
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof StoreOpenError)) throw e;
    io.stderr.write(`flowmark ${command}: ${e.message}\n`);
    return 1;
  }
  return inCell(cell, run);
}
