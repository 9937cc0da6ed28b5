/**
 * `flowmark run FILE.bpmn` of a model with lanes, through the built CLI (bin/flowmark.js in a child
 * process) on each engine (SQLite under FLOWMARK_DATA; PostgreSQL in a schema of its own when
 * FLOWMARK_TEST_PG is set): its tasks run in the account's lanes the BPMN lanes name
 * (docs/hosts.md, "Lanes"), and a lane naming none refuses the run (exit 1), naming it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { flowmark } from '../support/cli.js';
import { availableEngines, createTestSchema, dropTestSchema } from '../support/engines.js';

const fixture = (name: string) => new URL(`../fixtures/bpmn/${name}`, import.meta.url).pathname;

for (const engine of availableEngines())
  describe(`flowmark run FILE.bpmn with lanes [${engine}]`, () => {
    let dir = '';
    let schema = '';
    let databaseUrl = '';
    const lanes = { staff: 0, approvers: 0 };
    const env = () => ({ ...process.env, FLOWMARK_DATA: join(dir, 'data'), DATABASE_URL: databaseUrl });
    const store = (): Promise<Store> =>
      openStore(databaseUrl ? { databaseUrl } : { dataDir: join(dir, 'data'), databaseUrl: undefined });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'flowmark-lanes-'));
      if (engine === 'postgres') ({ schema, databaseUrl } = await createTestSchema('lanes'));
      const s = await store();
      try {
        const platform = createPlatform(s);
        await platform.accounts.create({ id: 'default', name: 'Default' });
        const pool = await platform.directory.lanes.createPool('default', { name: 'Company' });
        lanes.staff = (await platform.directory.lanes.createLane('default', pool.id, { name: 'Staff' })).id;
        lanes.approvers = (
          await platform.directory.lanes.createLane('default', pool.id, { name: 'Approvers' })
        ).id;
      } finally {
        await s.close();
      }
    });
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
      if (schema) await dropTestSchema(schema);
    });

    it('runs each task in the lane its bpmn:lane names', async () => {
      const run = await flowmark(['run', fixture('lanes.bpmn'), '--mode', 'LIVE', '--quiet'], {
        env: env(),
        timeoutMs: 30_000,
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const id = /^request (\S+): 102 WAITING/.exec(run.stdout)?.[1];
      expect(id).toBeDefined();
      const s = await store();
      try {
        const platform = createPlatform(s);
        const steps = await platform.processes.steps.list('default', id!);
        expect(steps.map((step) => [step.stepId, step.laneId])).toEqual([
          [1, lanes.staff],
          [2, lanes.approvers],
        ]);
        const [task] = await platform.processes.tasks.list('default', id!);
        expect(task).toMatchObject({ stepId: 2, laneId: lanes.approvers, status: 'OPEN' });
      } finally {
        await s.close();
      }
    });

    it('refuses a model whose lane names no lane of the account, naming the lane, the task and their lines (exit 1)', async () => {
      const file = join(dir, 'clerks.bpmn');
      writeFileSync(
        file,
        readFileSync(fixture('lanes.bpmn'), 'utf8').replace('name="Staff"', 'name="Clerks"'),
      );
      const run = await flowmark(['run', file], { env: env(), timeoutMs: 30_000 });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        'flowmark run: process "Expense" cannot run: outside the executable subset: bpmn:ScriptTask (in bpmn:Lane "Lane_staff", line 7: no lane of the account is named "Clerks") "Claim" (line 17)\n',
      );
    });
  });
