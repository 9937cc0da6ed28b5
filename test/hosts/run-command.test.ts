/** flowmark run: a process definition run as a request from the command line (SQLite under FLOWMARK_DATA). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

async function flowmark(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const code = await main(args, { stdin: new PassThrough(), stdout, stderr });
  return { code, out, err };
}

describe('flowmark run', () => {
  let dir: string;
  const saved = { data: process.env.FLOWMARK_DATA, url: process.env.DATABASE_URL };
  const file = (name: string, value: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-run-'));
    process.env.FLOWMARK_DATA = join(dir, 'data');
    process.env.DATABASE_URL = '';
  });
  afterAll(() => {
    process.env.FLOWMARK_DATA = saved.data;
    process.env.DATABASE_URL = saved.url;
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the steps, submits tasks given with --task, prints progress, status and data', async () => {
    const process = file('approval.json', {
      name: 'Approval',
      steps: [
        { id: 1, name: 'Prepare', input: { total: '${(amount * 2)?c}' } },
        { id: 2, type: 'manual', name: 'Approve', output: { approved: '${P_result.ok?c}' } },
      ],
    });
    const waiting = await flowmark(['run', process, '--data', '{"amount": 21}']);
    expect(waiting.code).toBe(0);
    const id = /^request (\S+): 102 WAITING$/m.exec(waiting.out)![1]!;
    const short = id.slice(0, 8);
    const token = /\?token=([\w-]{43})\n/.exec(waiting.out)![1]!;
    expect(waiting.out).toBe(
      `[${short}] started "Approval"\n` +
        `[${short}] step 1 (Prepare) done → {"total":42}\n` +
        `[${short}] waits: manual task of step 2 at http://localhost:8080/live/default/task/${id}/2/0\n` +
        `request ${id}: 102 WAITING\n` +
        `open task: http://localhost:8080/live/default/task/${id}/2/0\n` +
        `  public URL (no login needed): http://localhost:8080/live/default/task/${id}/2/0?token=${token}\n` +
        '{\n  "amount": 21,\n  "total": 42\n}\n',
    );
    const done = await flowmark([
      'run',
      process,
      '--data',
      '{"amount": 1}',
      '--task',
      '{"ok": true}',
      '--quiet',
    ]);
    expect(done.code).toBe(0);
    expect(done.out).toMatch(
      /^request \S+: 201 COMPLETED\n\{\n {2}"amount": 1,\n {2}"total": 2,\n {2}"ok": true,\n {2}"approved": true\n\}\n$/,
    );
  });

  it('exits 1 with P_message when the request fails, 2 on a usage error', async () => {
    const failing = file('fails.json', { name: 'Fails', steps: [{ id: 1, script: '${throw("no")}' }] });
    const r = await flowmark(['run', failing, '--quiet']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^request \S+: 301 ABORTED\nP_message: step 1 script, line 1, column 3: no\n\{\}\n$/,
    );
    expect((await flowmark(['run', failing, '--mode', 'PROD'])).err).toContain(
      'flowmark run: --mode: LIVE, ACCEPTANCE or TEST',
    );
    const bad = await flowmark(['run', file('bad.json', { name: 'x', steps: [] })]);
    expect(bad).toMatchObject({
      code: 1,
      err: 'flowmark run: process definition.steps: must be a non-empty array of steps\n',
    });
    expect((await flowmark(['run', failing, '--data', '[1]'])).err).toBe(
      'flowmark run: --data: a JSON object is expected\n',
    );
    expect((await flowmark(['run'])).code).toBe(2);
  });

  it('holds the data document to --data-document-limit, else FLOWMARK_DATA_DOCUMENT_LIMIT', async () => {
    const fill = file('fill.json', {
      name: 'Fill',
      steps: [{ id: 1, name: 'Fill', input: { a: 'x', b: '${"y"?left_pad(110, "y")}' } }],
    });
    const stopped = (limit: number) =>
      new RegExp(
        `^request \\S+: 301 ABORTED\nP_message: step 1 \\(Fill\\), input variable b: the data document would reach 126 bytes, over its maximum of ${limit} bytes: the process is stopped\n\\{\n {2}"a": "x"\n\\}\n$`,
      );
    expect(await flowmark(['run', fill, '--quiet'])).toMatchObject({ code: 0, err: '' });
    const flag = await flowmark(['run', fill, '--quiet', '--data-document-limit', '120']);
    expect(flag.code).toBe(1);
    expect(flag.out).toMatch(stopped(120));

    process.env.FLOWMARK_DATA_DOCUMENT_LIMIT = '124';
    try {
      const env = await flowmark(['run', fill, '--quiet']);
      expect(env.code).toBe(1);
      expect(env.out).toMatch(stopped(124));
      // The option wins over the environment.
      expect((await flowmark(['run', fill, '--quiet', '--data-document-limit', '1KiB'])).code).toBe(0);
      process.env.FLOWMARK_DATA_DOCUMENT_LIMIT = 'lots';
      expect(await flowmark(['run', fill, '--quiet'])).toMatchObject({
        code: 2,
        err: expect.stringMatching(
          /^flowmark run: FLOWMARK_DATA_DOCUMENT_LIMIT: expected a size from 1 byte to 1 GiB, in bytes or with KiB or MiB \(e\.g\. 10MiB\), got "lots"\nusage: /,
        ),
      });
    } finally {
      delete process.env.FLOWMARK_DATA_DOCUMENT_LIMIT;
    }
    expect((await flowmark(['run', fill, '--data-document-limit', '0'])).err).toMatch(
      /^flowmark run: --data-document-limit: expected a size from 1 byte to 1 GiB, .*, got "0"\n/,
    );
  });
});
