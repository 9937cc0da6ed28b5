import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../../src/cli/commands/seed.js';
import { contextFor } from '../../src/functions/request/index.js';
import { seedDemo, type DemoSummary } from '../../src/platform/demo.js';
import { createPlatform, type Platform } from '../../src/platform/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, errorOf } from './world.js';

describeEachEngine('demo account', (engine) => {
  let platform: Platform;
  let demo: DemoSummary;
  beforeAll(async () => {
    platform = createPlatform(engine.store);
    demo = await seedDemo(platform, { accountId: 'demo', password: 'pw-demo' });
  });

  it('lets the User and Request functions be tried at once', async () => {
    const ctx = await contextFor({
      platform,
      account: 'demo',
      user: 'ann',
      mode: 'LIVE',
      project: demo.projectId,
    });
    expect(await call(ctx, 'get_lanes')).toEqual([
      { id: demo.lanes.Clerks, name: 'Clerks', pool: demo.pools.Orders },
      { id: demo.lanes['French speakers'], name: 'French speakers', pool: demo.pools.Orders },
    ]);
    expect(await call(ctx, 'get_i18n', 'greeting')).toBe('Bonjour');
    expect(await call(ctx, 'get_manager', 'carl', 2)).toBe('dora');
    expect(((await call(ctx, 'get_applications')) as Array<{ title: string }>).map((a) => a.title)).toEqual([
      'Order entry',
      'Reports',
    ]);
    expect(await call(ctx, 'get_custom_list', 'countries')).toHaveLength(3);
    expect(await call(ctx, 'P_load_project_vault')).toEqual({ apiKey: 'demo-live-key' });
    // The request is carl's: ann may not read it, an administrator may.
    expect(await errorOf(ctx, 'get_request_info', demo.requestId)).toBe(
      "get_request_info: only an administrator of the account or the request's initiator may read another request",
    );
    const admin = await contextFor({
      platform,
      account: 'demo',
      user: 'admin',
      mode: 'LIVE',
      project: demo.projectId,
    });
    expect(await call(admin, 'get_request_info', demo.requestId)).toMatchObject({
      data: { order: 42, customer: 'ACME' },
    });
    // dora designs the project: she fills its runtime lane, ann may not.
    const dora = await contextFor({
      platform,
      account: 'demo',
      user: 'dora',
      mode: 'LIVE',
      project: demo.projectId,
    });
    expect(await call(dora, 'P_add_user_to_lane', demo.lanes['On call'], 'carl')).toEqual([demo.users.carl]);
    expect(await errorOf(ctx, 'P_add_user_to_lane', demo.lanes['On call'], 'ann')).toBe(
      `P_add_user_to_lane: only an administrator of the account or a designer of a project using the pool of lane ${demo.lanes['On call']} may change its users`,
    );
    expect(demo.designers).toEqual(['dora']);
    expect((await platform.directory.users.verifyPassword('demo', 'admin', 'pw-demo'))?.isAdmin).toBe(true);
    await expect(seedDemo(platform, { accountId: 'demo' })).rejects.toThrow('account demo already exists');
  });
});

describe('flowmark seed', () => {
  async function run(args: string[], env: Record<string, string | undefined>) {
    const saved = { FLOWMARK_DATA: process.env.FLOWMARK_DATA, DATABASE_URL: process.env.DATABASE_URL };
    Object.assign(process.env, env);
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c) => (out += c));
    stderr.on('data', (c) => (err += c));
    try {
      const code = await seed.run(args, { stdin: new PassThrough(), stdout, stderr });
      return { code, out, err };
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  }

  it('creates the demo account in the configured store, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowmark-seed-'));
    try {
      const env = { FLOWMARK_DATA: dir, DATABASE_URL: undefined };
      const first = await run(['--demo', '--account', 'trial'], env);
      expect(first.code).toBe(0);
      expect(first.out).toContain('Demo account "trial" created in');
      expect(first.out).toMatch(
        /users \(password [A-Za-z0-9_-]{12}\): admin=\d+, ann=\d+, bob=\d+, carl=\d+, dora=\d+/,
      );
      expect(first.out).toMatch(
        /\| npx flowmark render - --account trial --user ann --mode LIVE --project \d+\n$/,
      );
      const again = await run(['--demo', '--account', 'trial'], env);
      expect(again).toMatchObject({
        code: 1,
        err: 'flowmark seed: account trial already exists (choose another id with --account)\n',
      });
      expect((await run([], env)).code).toBe(2);
      expect((await run(['--nope'], env)).err).toContain('flowmark seed: unknown option --nope');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
