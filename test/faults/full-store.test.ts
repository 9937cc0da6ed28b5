/**
 * A full store (docs/deploy.md, "Faults"): every write the server reports as done is stored, and
 * a write the storage refuses answers `507 insufficient-storage`, never a success.
 *
 * - SQLite on a real full disk: a tiny tmpfs (root only; skipped otherwise), filled, then written
 *   until a few writes fail at their commit (the WAL cannot grow: the checkpoint thread cannot copy
 *   it into the full database file, so the WAL is not started over), then freed and every reported
 *   write checked.
 * - SQLite with `PRAGMA max_page_count` lowered on the writer (any machine).
 * - PostgreSQL: a disk cannot be filled from a test without a cluster of its own, so the server's
 *   own error is raised where the disk would refuse the row (a trigger raising SQLSTATE 53100
 *   disk_full): the answer is the same 507 and nothing reported is missing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalHost } from '../../src/hosts/eval-host.js';
import { openStore, sql, type Store } from '../../src/store/index.js';
import { createTestSchema, dropTestSchema } from '../support/engines.js';
import { call, login, useServer, type TestServer } from '../server/support.js';
import { canMount, mountTinyDisk, storeHolder } from './support.js';

const FULL = {
  status: 507,
  code: 'insufficient-storage',
  message: 'the database could not store the change (its storage is full or failing): nothing was written',
};

interface Written {
  processes: number[];
  tokens: string[];
  values: number[];
  refused: number;
}

/** acme's administrator (seeded by useServer): a session cookie and its token. */
async function admin(server: TestServer): Promise<{ cookie: string; token: string }> {
  return { cookie: await login(server.url, 'acme', 'admin'), token: server.acme.admin.token };
}

/**
 * Writes through the API until `rounds` rounds are done, or with `untilRefused` until 3 rounds
 * after the first refusal (at most `rounds`); every answer is a success or FULL.
 */
async function writeWhileFull(
  server: TestServer,
  who: { cookie: string; token: string },
  rounds: number,
  untilRefused = false,
): Promise<Written> {
  const written: Written = { processes: [], tokens: [], values: [], refused: 0 };
  let last = rounds;
  for (let i = 0; i < last; i++) {
    if (untilRefused && written.refused > 0 && last === rounds) last = Math.min(rounds, i + 3);
    const created = await call(server.url, 'POST', '/api/v1/processes', {
      token: who.token,
      body: { name: `p${i}`, steps: [{ id: 1, name: 'One', script: `${i}`.padEnd(3000, '.') }] },
    });
    if (created.status === 201) written.processes.push(created.body.id as number);
    else {
      expect(created.body).toEqual(FULL);
      written.refused++;
    }
    const token = await call(server.url, 'POST', '/api/v1/tokens', {
      cookie: who.cookie,
      body: { name: `t${i}`.padEnd(100, '.') },
    });
    if (token.status === 201) written.tokens.push(token.body.token as string);
    else {
      expect(token.body).toEqual(FULL);
      written.refused++;
    }
    const next = await call(server.url, 'POST', '/api/v1/eval', {
      token: who.token,
      body: { template: '${next_value("n")?c}' },
    });
    if (next.status === 200 && next.body.error === undefined) written.values.push(Number(next.body.output));
    else {
      expect(next.body).toEqual(FULL);
      written.refused++;
    }
  }
  return written;
}

/** Everything reported as written is there: each process, each token, each next_value once and below the counter. */
async function expectAllStored(server: TestServer, who: { token: string }, written: Written): Promise<void> {
  for (const id of written.processes) {
    const r = await call(server.url, 'GET', `/api/v1/processes/${id}`, { token: who.token });
    expect(r.status, `process ${id}`).toBe(200);
  }
  for (const token of written.tokens) {
    const r = await call(server.url, 'GET', '/api/v1/account', { token });
    expect(r.status, `token ${token.slice(0, 8)}…`).toBe(200);
  }
  expect(new Set(written.values).size).toBe(written.values.length);
  const after = await call(server.url, 'POST', '/api/v1/eval', {
    token: who.token,
    body: { template: '${next_value("n")?c}' },
  });
  expect(Number(after.body.output)).toBeGreaterThan(Math.max(0, ...written.values));
}

describe.skipIf(!canMount())('a full disk under SQLite (tmpfs)', () => {
  const engine = storeHolder('sqlite');
  let disk: ReturnType<typeof mountTinyDisk>;
  beforeAll(async () => {
    disk = mountTinyDisk(8 * 1024 * 1024)!;
    engine.set(await openStore({ dataDir: disk.dir, databaseUrl: undefined }));
  });
  const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));
  afterAll(async () => {
    await engine.store.close();
    disk?.unmount();
  });

  it('answers 507 once the disk is full and loses nothing it confirmed', async () => {
    const who = await admin(server);
    // Fill the disk with files of 16 KiB, then free 20 of them: a few writes fit, then none.
    const fillers: string[] = [];
    for (let n = 0; ; n++) {
      const file = join(disk!.dir, `filler-${n}`);
      try {
        writeFileSync(file, Buffer.alloc(16 * 1024, 1));
      } catch {
        rmSync(file, { force: true });
        break;
      }
      fillers.push(file);
    }
    for (const file of fillers.splice(-20)) rmSync(file);
    // A checkpointed WAL is written again from its start: writes fail once it has to grow.
    const written = await writeWhileFull(server, who, 1000, true);
    expect(written.refused).toBeGreaterThan(0);
    for (const file of fillers) rmSync(file);
    await expectAllStored(server, who, written);
  });
});

describe('a full SQLite database (max_page_count)', () => {
  const engine = storeHolder('sqlite');
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-full-'));
    engine.set(await openStore({ dataDir: dir, databaseUrl: undefined }));
  });
  const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));
  afterAll(async () => {
    await engine.store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 507 past the page limit and loses nothing it confirmed', async () => {
    const who = await admin(server);
    const store: Store = engine.store;
    const pages = (await store.get<{ page_count: number }>(sql`PRAGMA page_count`))!.page_count;
    // On the writer connection (exec outside a transaction): room for a few more pages only.
    await store.exec(`PRAGMA max_page_count = ${pages + 6}`);
    const written = await writeWhileFull(server, who, 30);
    expect(written.refused).toBeGreaterThan(0);
    await store.exec('PRAGMA max_page_count = 1073741823');
    await expectAllStored(server, who, written);
  });
});

describe.skipIf(!process.env.FLOWMARK_TEST_PG)(
  'a full disk under PostgreSQL (53100 raised by a trigger)',
  () => {
    const engine = storeHolder('postgres');
    let schema: string;
    beforeAll(async () => {
      const created = await createTestSchema('full');
      schema = created.schema;
      engine.set(await openStore({ databaseUrl: created.databaseUrl, poolSize: 4 }));
    });
    const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));
    afterAll(async () => {
      await engine.store.close();
      await dropTestSchema(schema);
    });

    it('answers 507 when the server reports disk_full and loses nothing it confirmed', async () => {
      const who = await admin(server);
      const store = engine.store;
      // Every third row of each table the test writes is refused as a full disk would refuse it.
      await store.exec(`
      CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF random() < 0.34 THEN
          RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER full_disk BEFORE INSERT ON process_definitions FOR EACH ROW EXECUTE FUNCTION full_disk();
      CREATE TRIGGER full_disk BEFORE INSERT ON api_tokens FOR EACH ROW EXECUTE FUNCTION full_disk();
      CREATE TRIGGER full_disk BEFORE INSERT OR UPDATE ON counters FOR EACH ROW EXECUTE FUNCTION full_disk();
    `);
      const written = await writeWhileFull(server, who, 20);
      expect(written.refused).toBeGreaterThan(0);
      await store.exec(`
      DROP TRIGGER full_disk ON process_definitions;
      DROP TRIGGER full_disk ON api_tokens;
      DROP TRIGGER full_disk ON counters;
    `);
      await expectAllStored(server, who, written);
    });
  },
);
