/**
 * kill -9 at each point of a request's creation (injected, not by chance): a process of the built
 * code (`npm run build` first) starts a request and SIGKILLs itself at an injection point
 * (RunnerOptions.inject) — after the request row, before its run; after a sub-process child,
 * before its parent's step record. The store then holds no orphan: no request without its run,
 * no child no parent waits for; a second process's sweeper resumes what was committed, once.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, sql, type Store } from '../../src/store/index.js';
import { availableEngines, createTestSchema, dropTestSchema } from '../support/engines.js';
import { ROOT } from '../support/cli.js';

const ACCOUNT = 'killed';

/** The child: starts `definition` and kills itself with SIGKILL at `point`; or (point "sweep") resumes lost runs. */
const CHILD = `
import { openStore } from ${JSON.stringify(join(ROOT, 'dist/store/index.js'))};
import { createPlatform } from ${JSON.stringify(join(ROOT, 'dist/platform/index.js'))};
import { ProcessHost, ProcessSweeper } from ${JSON.stringify(join(ROOT, 'dist/hosts/index.js'))};
const [point, definition] = process.argv.slice(2);
const store = await openStore();
const platform = createPlatform(store);
const lease = { owner: 'child-' + process.pid, ttlMs: 1000 };
if (point === 'sweep') {
  const sweeper = new ProcessSweeper(new ProcessHost(platform, { lease }).runner);
  await new Promise((r) => setTimeout(r, 1200)); // every lease of the killed process has lapsed
  const swept = await sweeper.sweep();
  await sweeper.settled();
  console.log(JSON.stringify(swept));
} else {
  if (!(await platform.accounts.get(${JSON.stringify(ACCOUNT)})))
    await platform.accounts.create({ id: ${JSON.stringify(ACCOUNT)}, name: 'Killed' });
  const inject = (p) => { if (p === point) process.kill(process.pid, 'SIGKILL'); };
  await new ProcessHost(platform, { lease, inject }).start(${JSON.stringify(ACCOUNT)}, { definition: JSON.parse(definition), mode: 'TEST' });
  console.log('not killed');
}
await store.close();
`;

const ONE = { name: 'one', steps: [{ id: 1, script: '1' }] };
const PARENT = {
  name: 'parent',
  steps: [
    { id: 1, type: 'subprocess', wait: true, process: { name: 'child', steps: [{ id: 1, script: '2' }] } },
  ],
};

for (const engine of availableEngines()) {
  describe(`kill -9 while a request is being created [${engine}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowmark-kill-'));
    const env: Record<string, string> = { FLOWMARK_DATA: dir };
    let schema: string | undefined;
    let store: Store;
    beforeAll(async () => {
      writeFileSync(join(dir, 'child.mjs'), CHILD);
      if (engine === 'postgres') {
        const created = await createTestSchema('kill');
        schema = created.schema;
        env.DATABASE_URL = created.databaseUrl;
      }
      store = await openStore({ dataDir: dir, databaseUrl: env.DATABASE_URL });
    });
    afterAll(async () => {
      await store?.close();
      if (schema) await dropTestSchema(schema);
      rmSync(dir, { recursive: true, force: true });
    });

    const child = (point: string, definition: unknown = ONE) => {
      const run = spawnSync(process.execPath, [join(dir, 'child.mjs'), point, JSON.stringify(definition)], {
        env: { ...process.env, DATABASE_URL: '', ...env },
        encoding: 'utf8',
        timeout: 30_000,
      });
      return { signal: run.signal, stdout: run.stdout.trim(), stderr: run.stderr.trim() };
    };
    const count = async (query: ReturnType<typeof sql>) => Number((await store.get<{ n: number }>(query))!.n);

    it('after the request row, before its run: neither is stored', async () => {
      expect(child('request-stored')).toEqual({ signal: 'SIGKILL', stdout: '', stderr: '' });
      expect(await count(sql`SELECT COUNT(*) AS n FROM requests WHERE account_id = ${ACCOUNT}`)).toBe(0);
      expect(await count(sql`SELECT COUNT(*) AS n FROM process_runs WHERE account_id = ${ACCOUNT}`)).toBe(0);
    });

    it('after a sub-process child, before its parent step record: no child; the resumed parent makes one', async () => {
      expect(child('child-created', PARENT)).toEqual({ signal: 'SIGKILL', stdout: '', stderr: '' });
      const parents = await store.all<{ id: string; status: number }>(
        sql`SELECT id, status FROM requests WHERE account_id = ${ACCOUNT} AND parent_id IS NULL`,
      );
      expect(parents.map((p) => p.status)).toEqual([101]);
      const parentId = parents[0]!.id;
      expect(await count(sql`SELECT COUNT(*) AS n FROM requests WHERE parent_id = ${parentId}`)).toBe(0);
      // Another process's sweeper resumes the parent (its lease lapsed): one child, and both complete.
      expect(child('sweep')).toMatchObject({ stdout: '{"resumed":1,"fired":0,"started":0,"orphans":0}' });
      const children = await store.all<{ status: number }>(
        sql`SELECT status FROM requests WHERE parent_id = ${parentId}`,
      );
      expect(children).toEqual([{ status: 201 }]);
      expect((await store.get(sql`SELECT status FROM requests WHERE id = ${parentId}`))!).toEqual({
        status: 201,
      });
    });
  });
}
