// `flowmark serve`'s start-up: how long until it prints "serving on", and how much CPU its process
// tree (the supervisor, its workers, their evaluation threads) spent by then, for `--workers 0`,
// `1` and `2` on a fresh SQLite data directory (first start: migrations, the administrator) and on
// an existing one. Each server is stopped (SIGTERM) as soon as it serves; the CPU until it has
// exited is reported too (what a test that starts and stops a server pays).
//
// CPU is read from /proc: utime + stime of every process of the tree (its threads included) plus
// what its exited children spent (cutime + cstime), sampled when the line appears; the total at
// exit comes from bash's `times` around the server (Linux only).
//
// Reference, measured in the same run, interleaved: the build at FLOWMARK_BENCH_BASELINE (a
// checkout with dist/ built, e.g. the commit before this work). Without it the goals compare with
// nothing and are not reported.
//
//   npm run build && FLOWMARK_BENCH_BASELINE=/tmp/base-startup npm run bench -- startup
//   BENCH_ROUNDS=5 (default 3)
//
// Goals: `serve-start-cpu-ratio` (CPU until serving, existing data, default --workers 2: this
// build ÷ the baseline; ≤ 0.6) and `serve-start-wall-ms` (wall ms until serving, same case; ≤ 3000).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASELINE = process.env.FLOWMARK_BENCH_BASELINE;
const TICK_MS = 10; // USER_HZ is 100 on Linux
const WORKERS = [0, 1, 2];

interface Sample {
  wallMs: number;
  cpuMs: number;
  exitCpuMs: number;
}

/** utime + stime + cutime + cstime of `pid`, in ms (0 once it is gone). */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** `pid` and its descendants. */
function tree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${all[i]}/task`)) {
        const children = readFileSync(`/proc/${all[i]}/task/${task}/children`, 'utf8').trim();
        if (children) all.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // exited meanwhile
    }
  }
  return all;
}

/** Starts `flowmark serve` of the build at `root` on `data`, stops it once it serves. */
function startOnce(root: string, data: string, workers: number): Promise<Sample> {
  const started = performance.now();
  // bash runs the server in the background (its pid is our handle) and, once it has exited,
  // prints its children's CPU (the server's, its workers' and threads' included: all waited for).
  const child = spawn(
    'bash',
    [
      '-c',
      '"$@" & echo "pid $!" >&2; wait $!; times >&2',
      'bash',
      process.execPath,
      join(root, 'bin/flowmark.js'),
      'serve',
      '--port',
      '0',
      '--workers',
      String(workers),
      '--log-level',
      'error',
    ],
    {
      cwd: root,
      env: { ...process.env, FLOWMARK_DATA: data, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    let sample: Omit<Sample, 'exitCpuMs'> | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      if (sample || !out.includes('serving on')) return;
      const pid = Number(/pid (\d+)/.exec(err)?.[1]);
      const wallMs = performance.now() - started;
      const cpuMs = tree(pid).reduce((sum, p) => sum + cpuOf(p), 0);
      sample = { wallMs, cpuMs };
      process.kill(pid, 'SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('exit', (code) => {
      const times = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/m.exec(err.trimEnd().split('\n').at(-1) ?? '');
      if (code !== 0 || !sample || !times)
        return reject(
          new Error(`flowmark serve (${root}, --workers ${workers}) exit ${code}:\n${out}${err}`),
        );
      const exitCpuMs =
        (Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4])) * 1000;
      resolve({ ...sample, exitCpuMs });
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const builds: [string, string][] = [
  ['this build', ROOT],
  ...(BASELINE ? [['baseline', BASELINE] as [string, string]] : []),
];
const scratch = mkdtempSync(join(tmpdir(), 'flowmark-bench-startup-'));
const results = new Map<string, Sample[]>();
const key = (build: string, data: string, workers: number) => `${build}|${data}|${workers}`;
try {
  // an existing data directory per build (its own migrations), made by one first start
  const existing = new Map<string, string>();
  for (const [name, root] of builds) {
    const dir = join(scratch, `existing-${existing.size}`);
    await startOnce(root, dir, 0);
    existing.set(name, dir);
  }
  let fresh = 0;
  for (let round = 0; round < ROUNDS; round++)
    for (const workers of WORKERS)
      for (const data of ['fresh', 'existing'])
        for (const [name, root] of builds) {
          const dir = data === 'fresh' ? join(scratch, `fresh-${fresh++}`) : existing.get(name)!;
          const sample = await startOnce(root, dir, workers);
          const k = key(name, data, workers);
          results.set(k, [...(results.get(k) ?? []), sample]);
        }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const num = (n: number) => n.toFixed(0).padStart(6);
console.log(
  `flowmark serve start-up, median of ${ROUNDS} rounds (ms; CPU = user + system of the process tree)`,
);
console.log(`${'build'.padEnd(11)} ${'data'.padEnd(9)} workers  wall→serving  CPU→serving  CPU→exit`);
for (const data of ['fresh', 'existing'])
  for (const workers of WORKERS)
    for (const [name] of builds) {
      const s = results.get(key(name, data, workers))!;
      console.log(
        `${name.padEnd(11)} ${data.padEnd(9)} ${String(workers).padStart(7)}  ${num(median(s.map((x) => x.wallMs)))}        ${num(median(s.map((x) => x.cpuMs)))}       ${num(median(s.map((x) => x.exitCpuMs)))}`,
      );
    }

const mine = results.get(key('this build', 'existing', 2))!;
const wall = median(mine.map((s) => s.wallMs));
if (BASELINE) {
  const base = results.get(key('baseline', 'existing', 2))!;
  const ratio = median(mine.map((s) => s.cpuMs)) / median(base.map((s) => s.cpuMs));
  console.log(
    `goal: serve-start-cpu-ratio ${ratio.toFixed(2)} x (CPU until serving, existing data, --workers 2, ÷ baseline; ≤ 0.6) ${ratio <= 0.6 ? 'met' : 'NOT met'}`,
  );
} else console.log('(no FLOWMARK_BENCH_BASELINE: serve-start-cpu-ratio not measured)');
console.log(
  `goal: serve-start-wall-ms ${wall.toFixed(0)} ms (until serving, existing data, --workers 2; ≤ 3000) ${wall <= 3000 ? 'met' : 'NOT met'}`,
);
