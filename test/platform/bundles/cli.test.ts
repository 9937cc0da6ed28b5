/**
 * Project bundles through the built CLI (`npm run build` first): a project exported from a SQLite
 * data dir and imported into PostgreSQL (FLOWMARK_TEST_PG; another SQLite dir without it) answers
 * the same composite API call and runs the same process request the same; a second export is
 * byte-identical; a dry run lists the changes and writes nothing; an import that fails half-way
 * leaves the store as it was; a damaged or unknown bundle is refused naming the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalHost } from '../../../src/hosts/eval-host.js';
import { createHosts } from '../../../src/hosts/index.js';
import { createPlatform, type Platform } from '../../../src/platform/index.js';
import { readBpmn } from '../../../src/platform/processes/bpmn/index.js';
import { createServer } from '../../../src/server/index.js';
import { openStore, type Store } from '../../../src/store/index.js';
import { flowmark } from '../../support/cli.js';
import { createTestSchema, dropTestSchema } from '../../support/engines.js';
import { call, login, PASSWORD } from '../../server/support.js';

const PG = Boolean(process.env.FLOWMARK_TEST_PG);
// One key for this process and the CLI's children, whatever the stores' key files.
process.env.FLOWMARK_SECRET_KEY = 'ab'.repeat(32);
const TEMPLATE =
  '${P_params.id}|${P_load_project_vault().apiKey}|${get_custom_list("colors")?size}|' +
  '${get_i18n("hello", "", "en")}|${count_objects({"kind": "big"}, "orders")}';

/** A store the CLI reaches through the environment, and the same store opened in the test. */
interface Target {
  env: NodeJS.ProcessEnv;
  open(): Promise<Store>;
  cleanUp(): Promise<void>;
}

async function sqliteTarget(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-bundle-'));
  return {
    env: { FLOWMARK_DATA: dir, DATABASE_URL: '' },
    open: () => openStore({ dataDir: dir, databaseUrl: undefined }),
    cleanUp: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function pgTarget(): Promise<Target> {
  const { schema, databaseUrl } = await createTestSchema('bundle');
  return {
    env: { DATABASE_URL: databaseUrl, FLOWMARK_DATA: mkdtempSync(join(tmpdir(), 'flowmark-bundle-')) },
    open: () => openStore({ databaseUrl: process.env.FLOWMARK_TEST_PG!, pgSchema: schema }),
    cleanUp: () => dropTestSchema(schema),
  };
}

async function withPlatform<T>(target: Target, work: (platform: Platform, store: Store) => Promise<T>) {
  const store = await target.open();
  try {
    return await work(createPlatform(store), store);
  } finally {
    await store.close();
  }
}

async function newAccount(platform: Platform): Promise<void> {
  await platform.accounts.create({ id: 'acme', name: 'ACME' });
  await platform.directory.users.create('acme', { login: 'admin', isAdmin: true, password: PASSWORD });
}

/** The source project: one of each artefact a bundle carries. */
async function buildSource(platform: Platform): Promise<number> {
  await newAccount(platform);
  const project = await platform.projects.create('acme', { title: 'Shop', metadata: { owner: 'sales' } });
  await platform.projects.addVersion('acme', project.id, { name: 'v1', mode: 'LIVE' });
  await platform.projects.addVersion('acme', project.id, { name: 'v2', mode: 'TEST' });
  const pool = await platform.directory.lanes.createPool('acme', { name: 'Sales' });
  const clerks = await platform.directory.lanes.createLane('acme', pool.id, { name: 'Clerks' });
  await platform.projects.attachPool('acme', project.id, pool.id);
  await platform.customLists.create('acme', {
    id: 'colors',
    name: 'Colors',
    projectId: project.id,
    content: [
      { label: 'Red', value: 'r' },
      { label: 'Blue', value: 'b' },
    ],
  });
  await platform.i18n.set('acme', project.id, 'en', { hello: 'Hello', bye: 'Bye' });
  await platform.i18n.set('acme', project.id, 'fr', { hello: 'Bonjour' });
  await platform.vaults.save('acme', project.id, 'LIVE', { apiKey: 'k-123', region: 'eu' });
  const admin = { accountId: 'acme', user: { id: 1, login: 'admin', isAdmin: true } };
  await platform.collections.createCollection(admin, 'orders', { isPublic: false, isReadonly: false });
  await platform.collections.createIndex(admin, 'orders', 'by_kind', {
    keys: ['kind'],
    unique: false,
    ascending: true,
  });
  await platform.collections.save(admin, 'orders', [
    { _id: 'o1', kind: 'big', qty: 10 },
    { _id: 'o2', kind: 'small', qty: 1 },
    { _id: 'o3', kind: 'big', qty: 7 },
  ]);
  await platform.compositeApis.create('acme', {
    method: 'GET',
    path: 'orders/:id',
    template: TEMPLATE,
    projectId: project.id,
    description: 'one order',
  });
  await platform.processes.definitions.create('acme', {
    name: 'quote',
    project: project.id,
    steps: [
      {
        id: 1,
        type: 'script',
        name: 'Price',
        lane: clerks.id,
        input: {
          total: '${qty * 5}',
          greeting: '${get_i18n("hello", "", "fr")}',
          colors: '${get_custom_list("colors")?size}',
        },
      },
    ],
  });
  // A definition saved from BPMN: its document travels beside its JSON, as it came.
  const xml = readFileSync(new URL('../../fixtures/bpmn/approval.bpmn', import.meta.url), 'utf8');
  await platform.processes.definitions.create('acme', { ...(await readBpmn(xml)), project: project.id });
  const wi = await platform.webInterfaces.create('acme', project.id, {
    title: 'Order entry',
    tags: ['sales'],
    lanes: [clerks.id],
  });
  await platform.webInterfaceTemplates.set('acme', wi.id, '<h1>${i18n("hello", "")}</h1>');
  return project.id;
}

/** Runs the composite API and the process request on a store, through the real server. */
async function answers(target: Target): Promise<{ composite: string; request: unknown }> {
  return withPlatform(target, async (platform, store) => {
    const app = await createServer({
      store,
      platform,
      hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = app.server.address() as { port: number };
      const url = `http://127.0.0.1:${address.port}`;
      const cookie = await login(url, 'acme', 'admin');
      const composite = await call(url, 'GET', '/live/acme/composite/orders/42', { cookie });
      expect(composite.status).toBe(200);
      const started = await call(url, 'POST', '/api/v1/requests', {
        cookie,
        body: { process: 'quote', mode: 'LIVE', data: { qty: 3 } },
      });
      expect(started.status).toBe(201);
      const { status, data, mode } = started.body as Record<string, unknown>;
      return { composite: composite.body as string, request: { status, data, mode } };
    } finally {
      await app.close();
    }
  });
}

describe(`project bundles: SQLite → ${PG ? 'PostgreSQL' : 'SQLite'} through the CLI`, () => {
  const work = mkdtempSync(join(tmpdir(), 'flowmark-bundles-'));
  const bundle = join(work, 'shop.zip');
  let source: Target;
  let target: Target;
  let projectId: number;

  beforeAll(async () => {
    source = await sqliteTarget();
    target = PG ? await pgTarget() : await sqliteTarget();
    projectId = await withPlatform(source, buildSource);
    await withPlatform(target, newAccount);
  });
  afterAll(async () => {
    await source?.cleanUp();
    await target?.cleanUp();
    rmSync(work, { recursive: true, force: true });
  });

  it('exports a project: one pretty-printed file per artefact, the same bytes twice', async () => {
    const first = await flowmark(
      ['project', 'export', String(projectId), '--out', bundle, '--with-documents', '--with-secrets'],
      { env: source.env },
    );
    expect(first.stderr).toBe(`${bundle} holds the project's vault values in clear: keep it as a secret\n`);
    expect(first.stdout).toBe(
      `exported project ${projectId} "Shop" (account acme) to ${bundle}: 17 file(s)\n`,
    );
    expect(first.code).toBe(0);
    const again = join(work, 'again.zip');
    expect(
      (
        await flowmark(
          ['project', 'export', String(projectId), '--out', again, '--with-documents', '--with-secrets'],
          { env: source.env },
        )
      ).code,
    ).toBe(0);
    expect(readFileSync(again).equals(readFileSync(bundle))).toBe(true);
  });

  it('imports it into another engine, where the composite API and the process answer the same', async () => {
    const dry = await flowmark(['project', 'import', bundle, '--dry-run'], { env: target.env });
    expect(dry.stdout).toBe(
      [
        'create  collections/orders.documents.json',
        'create  collections/orders.json',
        'create  composite-apis/GET orders%2F%3Aid.ftl',
        'create  composite-apis/GET orders%2F%3Aid.json',
        'create  custom-lists/colors.json',
        'create  i18n/en.json',
        'create  i18n/fr.json',
        'create  pools/Sales.json',
        'create  processes/Approval.bpmn',
        'create  processes/Approval.json',
        'create  processes/quote.json',
        'create  project.json',
        'create  vaults/LIVE.json',
        'create  versions.json',
        'create  web-interfaces/Order%20entry.html',
        'create  web-interfaces/Order%20entry.json',
        'dry run: 16 change(s) to a new project "Shop" (account acme); nothing written',
        '',
      ].join('\n'),
    );
    expect(dry.code).toBe(0);
    const imported = await flowmark(['project', 'import', bundle], { env: target.env });
    expect(imported.stderr).toBe('');
    expect(imported.stdout.split('\n').at(-2)).toBe(
      `imported ${bundle} into project 1 "Shop" (account acme): 16 change(s)`,
    );
    expect(imported.code).toBe(0);

    const before = await answers(source);
    expect(before).toEqual({
      composite: '42|k-123|2|Hello|2',
      request: { status: 201, mode: 'LIVE', data: { qty: 3, total: 15, greeting: 'Bonjour', colors: 2 } },
    });
    expect(await answers(target)).toEqual(before);

    // The imported project exports to the same bytes, and a second import has nothing to do.
    const back = join(work, 'back.zip');
    expect(
      (
        await flowmark(['project', 'export', '1', '--out', back, '--with-documents', '--with-secrets'], {
          env: target.env,
        })
      ).code,
    ).toBe(0);
    expect(readFileSync(back).equals(readFileSync(bundle))).toBe(true);
    const again = await flowmark(['project', 'import', bundle], { env: target.env });
    expect(again.stdout).toBe(`project 1 "Shop" (account acme) is up to date with ${bundle}\n`);
  });

  it('lists the creates, updates and deletes of a changed project on a dry run, and writes nothing', async () => {
    await withPlatform(source, async (platform) => {
      const api = (await platform.compositeApis.list('acme'))[0]!;
      await platform.compositeApis.replace('acme', api.id, { ...api, template: `v2 ${TEMPLATE}` });
      await platform.customLists.delete('acme', 'colors');
      await platform.i18n.set('acme', projectId, 'de', { hello: 'Hallo' });
      await platform.projects.addVersion('acme', projectId, { name: 'v3', mode: 'ACCEPTANCE' });
    });
    const changed = join(work, 'changed.zip');
    expect(
      (await flowmark(['project', 'export', String(projectId), '--out', changed], { env: source.env })).code,
    ).toBe(0);
    const dry = await flowmark(['project', 'import', changed, '--dry-run'], { env: target.env });
    expect(dry.stdout).toBe(
      [
        'update  composite-apis/GET orders%2F%3Aid.ftl',
        'delete  custom-lists/colors.json',
        'create  i18n/de.json',
        'update  versions.json',
        'dry run: 4 change(s) to project 1 "Shop" (account acme); nothing written',
        '',
      ].join('\n'),
    );
    expect(dry.code).toBe(0);
    expect((await flowmark(['project', 'import', changed, '--dry-run'], { env: target.env })).stdout).toBe(
      dry.stdout,
    );
  });

  it('applies all or nothing: an import failing half-way leaves the store as it was', async () => {
    const store = PG ? await pgTarget() : await sqliteTarget();
    try {
      await withPlatform(store, async (platform) => {
        await newAccount(platform);
        const shop = await platform.projects.create('acme', { title: 'Shop' });
        await platform.projects.addVersion('acme', shop.id, { name: 'v0', mode: 'LIVE' });
        const other = await platform.projects.create('acme', { title: 'Other' });
        // Composite APIs are imported last: this route of another project makes the import fail then.
        await platform.compositeApis.create('acme', {
          path: 'orders/:id',
          template: 'other',
          projectId: other.id,
        });
      });
      const before = join(work, 'before.zip');
      expect((await flowmark(['project', 'export', '1', '--out', before], { env: store.env })).code).toBe(0);
      const failed = await flowmark(['project', 'import', bundle], { env: store.env });
      expect(failed.stderr).toBe('flowmark project: a composite API answers GET orders/:id already\n');
      expect(failed.code).toBe(1);
      const after = join(work, 'after.zip');
      expect((await flowmark(['project', 'export', '1', '--out', after], { env: store.env })).code).toBe(0);
      expect(readFileSync(after).equals(readFileSync(before))).toBe(true);
      await withPlatform(store, async (platform) => {
        expect((await platform.projects.list('acme')).map((p) => p.title)).toEqual(['Shop', 'Other']);
        expect(await platform.directory.lanes.listPools('acme')).toEqual([]);
        expect(await platform.customLists.list('acme')).toEqual([]);
        expect(await platform.processes.definitions.list('acme')).toEqual([]);
        expect((await platform.compositeApis.list('acme')).map((a) => a.template)).toEqual(['other']);
      });
      const collections = await flowmark(['collections', 'list'], { env: store.env });
      expect(collections.stdout).toBe('no collections in account acme\n');
    } finally {
      await store.cleanUp();
    }
  });

  it('refuses a damaged zip and an unknown format, naming the file', async () => {
    const damaged = join(work, 'damaged.zip');
    writeFileSync(damaged, readFileSync(bundle).subarray(0, 200));
    const r1 = await flowmark(['project', 'import', damaged], { env: target.env });
    expect(r1.stderr).toMatch(
      new RegExp(
        `^flowmark project: ${damaged.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: damaged bundle: the file is not a valid zip archive: .+\\n$`,
      ),
    );
    expect(r1.code).toBe(1);
    const { packBundle } = await import('../../../src/platform/bundles/index.js');
    const future = join(work, 'future.zip');
    writeFileSync(
      future,
      await packBundle(
        new Map([
          [
            'bundle.json',
            '{"format": "flowmark-bundle/2", "project": {"title": "Shop"}, "collections": []}\n',
          ],
        ]),
      ),
    );
    const r2 = await flowmark(['project', 'import', future], { env: target.env });
    expect(r2.stderr).toBe(
      `flowmark project: ${future}: unknown bundle format "flowmark-bundle/2" (this flowmark reads flowmark-bundle/1)\n`,
    );
    expect(r2.code).toBe(1);
    const missing = await flowmark(['project', 'import', join(work, 'nope.zip')], { env: target.env });
    expect(missing.stderr).toBe(`flowmark project: cannot read ${join(work, 'nope.zip')}\n`);
    expect(missing.code).toBe(1);
  });
});
