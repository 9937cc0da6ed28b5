// The CLI's start-up time and `flowmark serve`'s memory, measured on the build (dist/) as a user
// runs it: `node bin/flowmark.js …`.
//
// Start-up: `node -e ''` (the reference), `flowmark version` and `flowmark render` of the template
// `x`, each spawned BENCH_ROUNDS times (default 10), interleaved; the median wall time of each and
// its ratio to the reference measured in the same run. Goals: version ≤ 2×, render ≤ 3×. Then the
// same by CPU time (user + system of the child, read with bash's `times`; steadier than wall time
// on a busy machine) and the spread (fastest to slowest quartile) of both.
// Serve memory: the RSS of `flowmark serve` (its supervisor and 2 workers) idle, then after each of 3 rounds of BENCH_CALLS
// (default 10,000) calls of a public composite API with a trivial script (keep-alive, 10 at a
// time); the goal is no growth across rounds (the last round within 10 % of the first).
//
//   npm run bench -- cli            (BENCH_ROUNDS=10 BENCH_CALLS=10000)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flowmarkCode } from './code.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CALLS = Number(process.env.BENCH_CALLS ?? 10_000);
const CONCURRENCY = 10;
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'flowmark.js');

const dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-cli-'));
try {
  startup();
  await serveMemory();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Wall milliseconds of one run of `node args…`, which must exit 0 printing `expect`. */
function timed(args: string[], expect: string): number {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, FLOWMARK_DATA: join(dir, 'none') },
    encoding: 'utf8',
  });
  const ms = performance.now() - start;
  if (r.status !== 0 || r.stdout !== expect)
    throw new Error(
      `node ${args.join(' ')}: exit ${r.status}, stdout ${JSON.stringify(r.stdout)}: ${r.stderr}`,
    );
  return ms;
}

/** User + system CPU milliseconds of one run of `node args…` (bash's `times`: its children's). */
function cpuTimed(args: string[], expect: string): number {
  const r = spawnSync(
    'bash',
    ['-c', '"$@"; status=$?; times >&2; exit $status', 'bash', process.execPath, ...args],
    {
      cwd: dir,
      env: { ...process.env, FLOWMARK_DATA: join(dir, 'none') },
      encoding: 'utf8',
    },
  );
  const children = r.stderr.trimEnd().split('\n').at(-1) ?? '';
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(children);
  if (r.status !== 0 || r.stdout !== expect || !m)
    throw new Error(
      `bash -c node ${args.join(' ')}: exit ${r.status}, stdout ${JSON.stringify(r.stdout)}: ${r.stderr}`,
    );
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
}

function quartiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.floor((sorted.length - 1) * p)]!;
  return `${at(0.25).toFixed(0)}–${at(0.75).toFixed(0)} ms`;
}

function startup(): void {
  const template = join(dir, 'x.ftl');
  writeFileSync(template, 'x');
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
  const rows = [
    { name: "node -e ''", args: ['-e', ''], expect: '', times: [] as number[], cpu: [] as number[] },
    {
      name: 'flowmark version',
      args: [bin, 'version'],
      expect: `flowmark ${version}\n`,
      times: [] as number[],
      cpu: [] as number[],
    },
    {
      name: 'flowmark render x',
      args: [bin, 'render', template],
      expect: 'x',
      times: [] as number[],
      cpu: [] as number[],
    },
  ];
  for (const row of rows) timed(row.args, row.expect); // warm the file cache
  for (let i = 0; i < ROUNDS; i++)
    for (const row of rows) {
      row.times.push(timed(row.args, row.expect));
      row.cpu.push(cpuTimed(row.args, row.expect));
    }
  const goals: Record<string, number> = { 'flowmark version': 2, 'flowmark render x': 3 };
  for (const [label, of] of [
    ['wall time', (row: (typeof rows)[number]) => row.times],
    ['CPU time, user + system', (row: (typeof rows)[number]) => row.cpu],
  ] as const) {
    const reference = median(of(rows[0]!));
    console.log(`start-up, median of ${ROUNDS} runs (${label}; quartiles)`);
    for (const row of rows) {
      const ms = median(of(row));
      const ratio = ms / reference;
      const goal = goals[row.name];
      const verdict =
        goal === undefined ? 'reference' : `${ratio <= goal ? 'ok' : 'MISSED'} (goal ≤ ${goal}×)`;
      console.log(
        `  ${row.name.padEnd(20)} ${ms.toFixed(0).padStart(5)} ms  ${ratio.toFixed(2)}×  ${verdict}  [${quartiles(of(row))}]`,
      );
    }
  }
}

/** Resident set size of a process and its descendants (serve's workers), in MiB (Linux: /proc). */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return kb / 1024 + (children ? children.split(/\s+/).reduce((sum, c) => sum + rssMiB(Number(c)), 0) : 0);
}

/** `calls` GETs of `url`, `CONCURRENCY` at a time on keep-alive connections; each must answer `expect`. */
async function load(url: string, calls: number, expect: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < calls) {
      next++;
      const body = await new Promise<string>((resolve, reject) => {
        request(url, { agent }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end();
      });
      if (body !== expect) throw new Error(`${url}: ${JSON.stringify(body.slice(0, 200))}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return calls / ((performance.now() - start) / 1000);
}

async function serveMemory(): Promise<void> {
  const data = join(dir, 'data');
  const code = flowmarkCode();
  const { openStore } = await code.load<typeof import('../src/store/index.js')>('store/index');
  const { createPlatform } = await code.load<typeof import('../src/platform/index.js')>('platform/index');
  const store = await openStore({ dataDir: data, databaseUrl: undefined });
  const platform = createPlatform(store);
  await platform.accounts.create({ id: 'bench' });
  await platform.directory.users.create('bench', { login: 'bench', isAdmin: true });
  await platform.compositeApis.create('bench', {
    method: 'GET',
    path: 'hello',
    template: 'Hello ${P_query.name}',
    isPublic: true,
  });
  await store.close();

  const { DATABASE_URL: _postgres, ...inherited } = process.env; // the store is the SQLite file above
  const env = { ...inherited, FLOWMARK_DATA: data };
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'silent'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /serving on (http:\/\/[^\s]+) /.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`flowmark serve exited (${code}): ${out}`)));
    });
    const pid = child.pid!;
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMiB(pid);
    console.log(`flowmark serve memory (RSS), ${CALLS} calls a round of a public composite API`);
    console.log(`  idle                  ${idle.toFixed(1).padStart(6)} MiB`);
    const url = `${origin}/live/bench/composite/hello?name=bench`;
    const after: number[] = [];
    for (let round = 1; round <= 3; round++) {
      const rate = await load(url, CALLS, 'Hello bench');
      after.push(rssMiB(pid));
      console.log(
        `  after round ${round}         ${after.at(-1)!.toFixed(1).padStart(6)} MiB  (${rate.toFixed(0)} calls/s)`,
      );
    }
    const growth = after[2]! / after[0]!;
    console.log(
      `  growth round 1 → 3    ${growth.toFixed(2)}×  ${growth <= 1.1 ? 'ok' : 'MISSED'} (goal: none, ≤ 1.10×)`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}
