import { randomBytes } from 'node:crypto';
import type { Command } from '../main.js';
import { ConfigError, MAIN_CELL } from '../../config/index.js';
import { createPlatform, PlatformError } from '../../platform/index.js';
import {
  cellsOf,
  inCell,
  openStore,
  StoreOpenError,
  unknownCell,
  type CellStore,
  type Store,
} from '../../store/index.js';
import { FIRST_ADMIN } from '../../server/bootstrap.js';
import { commandErrors } from '../command-errors.js';

const USAGE =
  'flowmark accounts create ID [--name NAME] [--cell CELL]\n' +
  '       flowmark accounts list\n\n' +
  '`create` makes an account and its administrator `admin`, whose random password it prints (shown\n' +
  'only once). With cells (FLOWMARK_CELLS, docs/deploy.md "Cells") the account is placed in CELL, or\n' +
  'in the cell holding the fewest accounts. `list` prints each account: id, cell, name. Uses the same\n' +
  'store as `flowmark serve` (FLOWMARK_DATA / DATABASE_URL, FLOWMARK_CELLS).';

export const accounts: Command = {
  name: 'accounts',
  usage: USAGE,
  async run(args, io) {
    const parsed = parse(io, args, { name: { type: 'string' }, cell: { type: 'string' } });
    if (typeof parsed === 'number') return parsed;
    const { values, positionals } = parsed;
    const [action, id, ...rest] = positionals;
    if (action !== 'create' && action !== 'list')
      return usageError(io, action ? `unknown action ${JSON.stringify(action)}` : 'an action is required');
    if (action === 'create' && id === undefined) return usageError(io, 'create: the account ID is required');
    const extra = action === 'list' ? [id, ...rest].filter((a) => a !== undefined) : rest;
    if (extra.length > 0) return usageError(io, `unexpected argument ${extra[0]}`);
    if (action === 'list' && values.cell !== undefined) return usageError(io, 'list: --cell is for create');

    let store: Store;
    try {
      store = await openStore();
    } catch (e) {
      if (e instanceof ConfigError || e instanceof StoreOpenError) return failure(io, e.message);
      throw e;
    }
    try {
      const cells = cellsOf(store);
      const platform = createPlatform(store);
      if (action === 'list') {
        const all = cells
          ? await cells.accounts()
          : (await platform.accounts.list()).map((a) => ({ id: a.id, name: a.name, cell: MAIN_CELL }));
        for (const a of all) io.stdout.write(`${a.id}  ${a.cell}  ${a.name}\n`);
        return 0;
      }
      const names = cells?.names ?? [MAIN_CELL];
      if (values.cell !== undefined && !names.includes(values.cell))
        return failure(io, unknownCell(values.cell, names).message);
      const cell = values.cell ?? (cells ? await emptiest(cells) : MAIN_CELL);
      const account = { id: id!, ...(values.name !== undefined ? { name: values.name } : {}) };
      // The directory first (its row and the placement, in one transaction), then the cell's copy.
      await store.transaction(async () => {
        await platform.accounts.create(account);
        if (cell !== MAIN_CELL) await cells!.place(account.id, cell);
      });
      const password = randomBytes(18).toString('base64url');
      await inCell(cell === MAIN_CELL ? undefined : cell, async () => {
        if (cell !== MAIN_CELL) await platform.accounts.create(account);
        await platform.directory.users.create(account.id, {
          login: FIRST_ADMIN,
          name: 'Administrator',
          profile: 'ADMIN',
          isAdmin: true,
          password,
        });
      });
      io.stdout.write(
        `created the account "${account.id}" in cell ${cell}, and its administrator. This password is shown only once:\n\n` +
          `  account:  ${account.id}\n  login:    ${FIRST_ADMIN}\n  password: ${password}\n`,
      );
      return 0;
    } catch (e) {
      if (e instanceof PlatformError || e instanceof ConfigError) return failure(io, e.message);
      throw e;
    } finally {
      await store.close();
    }
  },
};

/** The cell holding the fewest accounts (the first listed on a tie, `main` first). */
async function emptiest(cells: CellStore): Promise<string> {
  let best: [string, number] | undefined;
  for (const entry of await cells.population()) if (!best || entry[1] < best[1]) best = entry;
  return best![0];
}

const { parse, usageError, failure } = commandErrors('accounts', USAGE);
