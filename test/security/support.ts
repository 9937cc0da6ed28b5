/**
 * The public surfaces the hostile-template suites go through: `flowmark render` spawned from the
 * built CLI (bin/flowmark.js runs dist/), and POST /api/v1/eval on a real server whose /health is
 * asked while the evaluation runs.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { call, type TestServer } from '../server/support.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number | null;
  out: string;
  err: string;
  ms: number;
}

/** `flowmark render -` of `template` from stdin, with FLOWMARK_EVAL_* settings in `env`. */
export function renderCli(template: string, env: Record<string, string> = {}): Promise<CliResult> {
  if (!existsSync(`${root}dist/cli/main.js`))
    throw new Error('dist/ is missing: run `npm run build` (npm test does)');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${root}bin/flowmark.js`, 'render', '-'], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err, ms: performance.now() - started }));
    child.stdin.end(template);
  });
}

/** The first line of a CLI error (the message; the FTL stack follows). */
export function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

export interface EvalReply {
  output: string;
  variables: Record<string, unknown>;
  error?: { message: string; kind?: string };
  ms: number;
}

/**
 * POST /api/v1/eval of `template` as acme's administrator (evaluating is a design right: the
 * hostile author here is someone allowed to write scripts); while it runs, /health is asked and must answer
 * within a second (the event loop is not blocked), and again after.
 */
export async function evalOnServer(server: TestServer, template: string): Promise<EvalReply> {
  const started = performance.now();
  const pending = call(server.url, 'POST', '/api/v1/eval', {
    token: server.acme.admin.token,
    body: { template },
  });
  await new Promise((r) => setTimeout(r, 100));
  const asked = performance.now();
  const during = await call(server.url, 'GET', '/health');
  expect(during.status).toBe(200);
  expect(performance.now() - asked).toBeLessThan(1000);
  const reply = await pending;
  const ms = performance.now() - started;
  expect(reply.status).toBe(200);
  const after = await call(server.url, 'GET', '/health');
  expect(after.status).toBe(200);
  return { ...(reply.body as Omit<EvalReply, 'ms'>), ms };
}
