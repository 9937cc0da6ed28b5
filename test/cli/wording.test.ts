/**
 * The CLI's own words for a bad invocation, through the built bin/flowmark.js in a child process:
 * an unknown option or a missing value is refused as `flowmark <command>: unknown option --x`
 * (never node:util's parseArgs wording), with the usage and exit 2; a file that cannot be read is
 * named with the reason, exit 1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowmark } from '../support/cli.js';

describe('the CLI refuses in its own words', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-wording-'));
    env = { ...process.env, FLOWMARK_DATA: join(dir, 'data'), DATABASE_URL: '' };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The first line of stderr and the exit code. */
  const refusal = async (args: string[]) => {
    const r = await flowmark(args, { env, timeoutMs: 30_000 });
    return { code: r.code, line: r.stderr.split('\n')[0], usage: r.stderr.split('\n')[1] ?? '' };
  };

  it('an unknown option, in every command that parses options', async () => {
    for (const [args, line] of [
      [['run', 'p.json', '--foo'], 'flowmark run: unknown option --foo'],
      [['users', 'list', '--nope'], 'flowmark users: unknown option --nope'],
      [['token', 'create', '--user', 'x', '--nope'], 'flowmark token: unknown option --nope'],
      [['serve', '--nope'], 'flowmark serve: unknown option --nope'],
      [['version', '--nope'], 'flowmark version: unknown option --nope'],
      [['render', 't.ftl', '--nope'], 'flowmark render: unknown option --nope'],
      [['seed', '--nope'], 'flowmark seed: unknown option --nope'],
    ] as const) {
      const r = await refusal([...args]);
      expect({ args, code: r.code, line: r.line }).toEqual({ args, code: 2, line });
      expect(r.usage).toMatch(new RegExp(`^usage: flowmark ${args[0]}`));
    }
  });

  it('an option without its value, an argument a command does not take', async () => {
    expect(await refusal(['run', 'p.json', '--data'])).toMatchObject({
      code: 2,
      line: 'flowmark run: --data needs a value',
    });
    expect(await refusal(['serve', 'now'])).toMatchObject({
      code: 2,
      line: 'flowmark serve: unexpected argument now',
    });
    expect(await refusal(['version', 'now'])).toMatchObject({
      code: 2,
      line: 'flowmark version: unexpected argument now',
    });
  });

  it('a file that cannot be read, named with the reason', async () => {
    const missing = join(dir, 'missing');
    const template = join(dir, 'hello.ftl');
    writeFileSync(template, 'Hello ${who}');
    const process = join(dir, 'p.json');
    writeFileSync(process, JSON.stringify({ name: 'P', steps: [{ id: 1, input: { x: '1' } }] }));
    for (const [args, line] of [
      [['render', `${missing}.ftl`], `flowmark render: cannot read ${missing}.ftl: no such file`],
      [
        ['render', template, '--data', `${missing}.json`],
        `flowmark render: --data: cannot read ${missing}.json: no such file`,
      ],
      [['render', dir], `flowmark render: cannot read ${dir}: it is a directory`],
      [['run', `${missing}.json`], `flowmark run: PROCESS.json: cannot read ${missing}.json: no such file`],
      [
        ['run', process, '--data', `@${missing}.json`],
        `flowmark run: --data: cannot read ${missing}.json: no such file`,
      ],
      [
        ['collections', 'import', `${missing}.csv`, 'orders'],
        `flowmark collections: cannot read ${missing}.csv: no such file`,
      ],
    ] as const) {
      const r = await refusal([...args]);
      expect({ args, code: r.code, line: r.line }).toEqual({ args, code: 1, line });
    }
    // Readable files render (with no store there, as a template alone does).
    const ok = await flowmark(['render', template, '--data', '{"who": "team"}'], {
      env: { ...env, FLOWMARK_DATA: join(dir, 'no-store') },
    });
    expect([ok.code, ok.stdout]).toEqual([0, 'Hello team']);
  });
});
