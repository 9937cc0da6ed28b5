/** flowmark render --account/--user/--mode/--project/--request: a render in a platform context. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { seedDemo, type DemoSummary } from '../../src/platform/demo.js';
import { createPlatform } from '../../src/platform/index.js';
import { openStore } from '../../src/store/index.js';

describe('flowmark render in a platform context', () => {
  let dir: string;
  let demo: DemoSummary;
  const saved = { FLOWMARK_DATA: process.env.FLOWMARK_DATA, DATABASE_URL: process.env.DATABASE_URL };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-render-'));
    process.env.FLOWMARK_DATA = dir;
    delete process.env.DATABASE_URL;
    const store = await openStore();
    try {
      demo = await seedDemo(createPlatform(store), { password: 'pw' });
    } finally {
      await store.close();
    }
  });
  afterAll(() => {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    rmSync(dir, { recursive: true, force: true });
  });

  async function render(template: string, ...args: string[]) {
    const stdin = new PassThrough();
    stdin.end(template);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c) => (out += c));
    stderr.on('data', (c) => (err += c));
    const code = await main(['render', '-', ...args], { stdin, stdout, stderr });
    return { code, out, err };
  }

  it('runs as a user, in a mode and a project of an account', async () => {
    const result = await render(
      '${P_customer} ${P_mode} ${P_user.login} v${P_version} ${get_lanes()?size} ${get_i18n("greeting")} ' +
        '${get_manager("carl")} ${next_value("cli")} ${next_value("cli")} ' +
        '<#list get_applications() as a>${a.title}<#sep>,</#list>',
      '--account',
      'demo',
      '--user',
      'ann@demo.example',
      '--mode',
      'live',
      '--project',
      String(demo.projectId),
    );
    expect(result).toEqual({
      code: 0,
      out: 'demo LIVE ann v1.0 2 Bonjour ann 1 2 Order entry,Reports',
      err: '',
    });
    // The counter persisted in the store.
    expect((await render('${next_value("cli")}', '--account', 'demo')).out).toBe('3');
  });

  it('runs inside a request', async () => {
    const result = await render(
      '${P_request.id == "' +
        demo.requestId +
        '"} ${P_initiator.login} ${get_request_info().data.customer} ' +
        '${P_mode} ${P_log("SEVERE", "from the CLI")} [${P_message}]',
      '--account',
      'demo',
      '--request',
      demo.requestId,
      '--setting',
      'boolean_format=yes,no',
    );
    expect(result).toEqual({ code: 0, out: 'yes carl ACME LIVE from the CLI [from the CLI]', err: '' });
  });

  it('keeps the store-less default without --account, and --mode sets its mode', async () => {
    expect((await render('${P_customer} ${P_mode} ${P_user???c}')).out).toBe('default TEST false');
    expect((await render('${P_mode}', '--mode', 'ACCEPTANCE')).out).toBe('ACCEPTANCE');
  });

  it('reports bad options and unknown accounts, users, projects, requests', async () => {
    expect(await render('x', '--user', 'ann')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^flowmark render: --user needs --account\n/),
    });
    expect(await render('x', '--account', 'demo', '--mode', 'PROD')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^flowmark render: --mode must be LIVE, ACCEPTANCE or TEST, got "PROD"\n/),
    });
    expect(await render('x', '--account')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^flowmark render: --account needs a value\n/),
    });
    expect(await render('x', '--account', 'demo', '--project', 'one')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^flowmark render: --project must be a project id \(a number\)\n/),
    });
    expect(await render('x', '--account', 'nope')).toEqual({
      code: 1,
      out: '',
      err: 'flowmark render: Account nope not found.\n',
    });
    expect(await render('x', '--account', 'demo', '--user', 'bob')).toEqual({
      code: 1,
      out: '',
      err: 'flowmark render: user bob is blocked\n',
    });
    expect(await render('x', '--account', 'demo', '--user', 'zed')).toEqual({
      code: 1,
      out: '',
      err: 'flowmark render: user zed not found in account demo\n',
    });
    expect(await render('x', '--account', 'demo', '--project', '999999')).toEqual({
      code: 1,
      out: '',
      err: 'flowmark render: Project not found.\n',
    });
    expect(await render('x', '--account', 'demo', '--request', 'nope')).toEqual({
      code: 1,
      out: '',
      err: 'flowmark render: Request not found.\n',
    });
  });
});
