/** flowmark render --account/--user/--mode/--project/--request: a render in a platform context. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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

  it("defaults to the store's only account without --account, like run, and --mode sets its mode", async () => {
    expect(await render('${P_customer} ${P_mode} ${P_user???c} ${list_objects({"a": 1}, "c")?size}')).toEqual(
      {
        code: 0,
        out: 'demo TEST false 0',
        err: '',
      },
    );
    expect((await render('${P_mode}', '--mode', 'ACCEPTANCE')).out).toBe('ACCEPTANCE');
    expect((await render('${P_user.login}', '--user', 'ann')).out).toBe('ann');
  });

  it('reports bad options and unknown accounts, users, projects, requests', async () => {
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
      err: 'flowmark render: no user zed in account demo\n',
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

describe('flowmark render without a store, or with several accounts', () => {
  let dir: string;
  const saved = { FLOWMARK_DATA: process.env.FLOWMARK_DATA, DATABASE_URL: process.env.DATABASE_URL };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-render-'));
    process.env.FLOWMARK_DATA = dir;
    delete process.env.DATABASE_URL;
  });
  afterAll(() => {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(command: string, input: string, ...args: string[]) {
    const stdin = new PassThrough();
    stdin.end(input);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c) => (out += c));
    stderr.on('data', (c) => (err += c));
    const code = await main([command, ...(command === 'render' ? ['-'] : []), ...args], {
      stdin,
      stdout,
      stderr,
    });
    return { code, out, err };
  }

  const hint = (): string =>
    `(flowmark render found no store in ${dir}: \`npx flowmark serve\` or \`npx flowmark seed --demo\` ` +
    'creates one; FLOWMARK_DATA or DATABASE_URL chooses another, --account ID an account)';

  it('renders store-less when FLOWMARK_DATA holds no store, without creating one, and says how to get one', async () => {
    expect(await run('render', '${P_customer} ${P_mode}')).toEqual({ code: 0, out: 'default TEST', err: '' });
    const r = await run('render', '${list_objects({"a":1}, "c")}');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^list_objects: the collection service is not available in this context\n/);
    expect(r.err.endsWith(`\n${hint()}\n`)).toBe(true);
    const batch = await run(
      'render-batch',
      '{"id": 1, "template": "${list_objects({\\"a\\":1}, \\"c\\")}"}\n',
    );
    expect(batch.code).toBe(0);
    expect((JSON.parse(batch.out) as { error: string }).error.endsWith(`\n${hint()}`)).toBe(true);
    expect(await run('render', 'x', '--user', 'ann')).toEqual({
      code: 1,
      out: '',
      err: `flowmark render: --user needs a store: ${hint()}\n`,
    });
    expect(existsSync(join(dir, 'flowmark.db'))).toBe(false);
  });

  it('renders in "default" among several accounts, and asks for --account when none is "default"', async () => {
    const store = await openStore();
    try {
      const platform = createPlatform(store);
      await platform.accounts.create({ id: 'one', name: 'One' });
      await platform.accounts.create({ id: 'two', name: 'Two' });
      await platform.directory.users.create('two', { login: 'ann', password: 'a password 1' });
    } finally {
      await store.close();
    }
    const several = 'the store has several accounts and none is "default": choose one with --account\n';
    expect(await run('render', '${P_customer}')).toEqual({
      code: 1,
      out: '',
      err: `flowmark render: ${several}`,
    });
    expect(await run('render-batch', '{"id": 1, "template": "${P_customer}"}\n')).toEqual({
      code: 1,
      out: '',
      err: `flowmark render-batch: ${several}`,
    });
    expect((await run('render', '${P_customer}', '--account', 'two')).out).toBe('two');
    expect(await run('render', 'x', '--account', 'one', '--user', 'ann')).toEqual({
      code: 1,
      out: '',
      err: 'flowmark render: no user ann in account one; account two has one: choose it with --account two\n',
    });
    expect(
      (await run('render-batch', '{"id": 1, "template": "${P_customer}"}\n', '--account', 'one')).out,
    ).toBe('{"id":1,"ok":true,"output":"one"}\n');
    const again = await openStore();
    try {
      await createPlatform(again).accounts.create({ id: 'default', name: 'Default' });
    } finally {
      await again.close();
    }
    expect((await run('render', '${P_customer}')).out).toBe('default');
  });
});
