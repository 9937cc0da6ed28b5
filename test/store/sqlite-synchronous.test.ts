/**
 * FLOWMARK_SQLITE_SYNCHRONOUS: when a SQLite commit reaches the disk (docs/deploy.md,
 * "Durability"). `normal` (the default) flushes the WAL at each checkpoint; `full` at each commit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { sql } from '../../src/store/sql.js';
import { flowmark } from '../support/cli.js';

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-sync-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  delete process.env.FLOWMARK_SQLITE_SYNCHRONOUS;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** PRAGMA synchronous of the reader (outside a transaction) and of the writer (inside one). */
async function modes(setting: string | undefined): Promise<number[]> {
  if (setting === undefined) delete process.env.FLOWMARK_SQLITE_SYNCHRONOUS;
  else process.env.FLOWMARK_SQLITE_SYNCHRONOUS = setting;
  const store = await openStore({ dataDir: fresh(), databaseUrl: undefined, sqliteCheckpoint: false });
  try {
    const read = await store.get<{ synchronous: number }>(sql`PRAGMA synchronous`);
    const written = await store.transaction((tx) => tx.get<{ synchronous: number }>(sql`PRAGMA synchronous`));
    return [read!.synchronous, written!.synchronous];
  } finally {
    await store.close();
  }
}

describe('FLOWMARK_SQLITE_SYNCHRONOUS', () => {
  it('is NORMAL (1) on both connections by default, FULL (2) when set to full', async () => {
    expect(await modes(undefined)).toEqual([1, 1]);
    expect(await modes('normal')).toEqual([1, 1]);
    expect(await modes(' FULL ')).toEqual([2, 2]);
  });

  it('stops serve and render with the variable named when its value is not one of the two', async () => {
    const env = { ...process.env, FLOWMARK_DATA: fresh(), FLOWMARK_SQLITE_SYNCHRONOUS: 'sometimes' };
    const serve = await flowmark(['serve', '--port', '0'], { env, timeoutMs: 20_000 });
    expect(serve.stderr).toBe(
      'flowmark serve: FLOWMARK_SQLITE_SYNCHRONOUS: expected normal or full, got "sometimes"\n',
    );
    expect(serve.code).toBe(2);
    const render = await flowmark(['render', '-'], { env, input: 'x', timeoutMs: 20_000 });
    expect(render.stderr).toBe(
      'flowmark render: FLOWMARK_SQLITE_SYNCHRONOUS: expected normal or full, got "sometimes"\n',
    );
    expect(render.code).toBe(1);
  }, 60_000);
});
