/**
 * The built CLI as a user runs it: `node bin/flowmark.js …` in a child process (run `npm run build`
 * first; `npm test` does). A command that does not exit by itself within its bound fails the test.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/flowmark.js', import.meta.url));

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From the start to the exit. */
  ms: number;
}

export interface RunOptions {
  input?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The command must have exited by then (default 10 s); else it is killed and the call rejects. */
  timeoutMs?: number;
  /** In a process group of its own (what a terminal's Ctrl-C reaches: `process.kill(-pid, 'SIGINT')`). */
  detached?: boolean;
}

/** Runs `flowmark …args` to its end. */
export function flowmark(args: string[], options: RunOptions = {}): Promise<Finished> {
  const child = spawnFlowmark(args, options);
  if (options.input !== undefined) child.stdin.end(options.input);
  else child.stdin.end();
  return finished(child, options.timeoutMs ?? 10_000);
}

export function spawnFlowmark(args: string[], options: RunOptions = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    detached: options.detached ?? false,
  });
}

/** Output so far of a running child, kept up to date. */
export function collect(child: ChildProcessWithoutNullStreams): { out: string; err: string } {
  const text = { out: '', err: '' };
  child.stdout.on('data', (c: Buffer) => (text.out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (text.err += c.toString()));
  return text;
}

/** Resolves when the child exits; rejects (after killing it) when it is still running after `timeoutMs`. */
export function finished(child: ChildProcessWithoutNullStreams, timeoutMs: number): Promise<Finished> {
  const started = Date.now();
  const text = collect(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `still running after ${timeoutMs} ms: ${child.spawnargs.join(' ')}\nstdout: ${text.out}\nstderr: ${text.err}`,
        ),
      );
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: text.out, stderr: text.err, ms: Date.now() - started });
    });
  });
}

/** Polls `probe` until it gives a value (every 25 ms, up to `timeoutMs`). */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * `flowmark run`'s report with its request's id as <id>, the id's short form as <short> and task
 * tokens as <token>, so tests compare it exactly.
 */
export function anonymousRun(text: string): string {
  const id = /request (\S+)(:| stays)/.exec(text)?.[1];
  return id === undefined
    ? text
    : text
        .replaceAll(id, '<id>')
        .replaceAll(id.slice(0, 8), '<short>')
        .replace(/\?token=[\w-]{43}\n/g, '?token=<token>\n');
}
