/**
 * `flowmark run` through the built CLI (a child process, SQLite under FLOWMARK_DATA): a request left
 * waiting on a manual task prints the task's URL and its public URL, whose token is the task's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/index.js';
import { isTaskToken } from '../../src/platform/processes/index.js';
import { openStore } from '../../src/store/index.js';
import { flowmark } from '../support/cli.js';

const fixture = new URL('../fixtures/bpmn/approval.json', import.meta.url).pathname;

describe('flowmark run: the public URL of an open task', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-task-url-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the open task with its URL and its public URL carrying the task token', async () => {
    const env = { ...process.env, FLOWMARK_DATA: join(dir, 'data'), DATABASE_URL: '' };
    const run = await flowmark(['run', fixture, '--quiet', '--data', '{"amount": 4}'], {
      env,
      timeoutMs: 30_000,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const id = /^request (\S+): 102 WAITING\n/.exec(run.stdout)![1]!;
    const token = /\?token=([\w-]+)\n/.exec(run.stdout)![1]!;
    const task = `http://localhost:8080/live/default/task/${id}/2/0`;
    expect(run.stdout).toBe(
      `request ${id}: 102 WAITING\n` +
        `open task: ${task}\n` +
        `  public URL (no login needed): ${task}?token=${token}\n` +
        '{\n  "amount": 4,\n  "total": 8\n}\n',
    );

    const store = await openStore({ dataDir: join(dir, 'data'), databaseUrl: '' });
    try {
      const { secret } = await createPlatform(store).processes.runs.require('default', id);
      const ref = { requestId: id, stepId: 2, iteration: 0 };
      expect(isTaskToken(secret, ref, token)).toBe(true);
      expect(isTaskToken(secret, { ...ref, iteration: 1 }, token)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('prints no task URL once the request has gone past its task', async () => {
    const env = { ...process.env, FLOWMARK_DATA: join(dir, 'data'), DATABASE_URL: '' };
    const run = await flowmark(
      ['run', fixture, '--quiet', '--data', '{"amount": 4}', '--task', '{"ok": false}'],
      {
        env,
        timeoutMs: 30_000,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^request \S+: 201 COMPLETED\n\{\n/);
    expect(run.stdout).not.toContain('open task');
  });
});
