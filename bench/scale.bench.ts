// Horizontal scale on PostgreSQL: throughput of process requests of three script steps with one
// `flowmark serve` and then with two, on one database (docs/deploy.md). Each server is the built
// CLI (`bin/flowmark.js serve`, dist/) with `--workers 1`; each phase has a fresh schema of the
// database FLOWMARK_BENCH_PG. After a warm-up, BENCH_REQUESTS requests are started through the REST
// API (`POST /api/v1/requests`, which answers when the request has ended), BENCH_CONCURRENCY in
// flight at once, spread round-robin over the servers; a phase ends when every one has answered
// 201 COMPLETED (checked in the database too). Prints requests/s for 1 and 2 servers and the ratio.
//
//   FLOWMARK_BENCH_PG=postgres://flowmark@127.0.0.1:54329/bench npm run bench -- scale
//   (BENCH_REQUESTS=600, BENCH_CONCURRENCY=16, BENCH_MAX_SECONDS=120 per phase, BENCH_ROUNDS=1 by
//   default; with several rounds the phases alternate and the medians are compared.
//   BENCH_STEP_LOOP=N makes each step's script loop N times first: work for the servers' CPU only)
//
// Without FLOWMARK_BENCH_PG it prints why it skips and exits 0.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { adminToken, call, serve, type Server } from './flowmark-serve.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PG = process.env.FLOWMARK_BENCH_PG;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 120);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const WARM_UP = 40;
/** BENCH_STEP_LOOP: iterations of a loop each step's script runs first (CPU in the server only), default 0. */
const LOOP = Number(process.env.BENCH_STEP_LOOP ?? 0);
const work = LOOP > 0 ? `<#assign s = 0><#list 1..${LOOP} as i><#assign s = s + i></#list>` : '';

const PROCESS = {
  name: 'Scale',
  steps: [
    { id: 1, name: 'One', script: `${work}\${(a + 1)?c}`, output: { b: '${P_result?c}' } },
    { id: 2, name: 'Two', script: `${work}{"c": \${(b * 2)?c}}` },
    { id: 3, name: 'Three', script: `${work}[1, 2, \${a?c}, \${P_result.c?c}]` },
  ],
};

if (!PG) {
  console.log(
    'bench scale: skipped — set FLOWMARK_BENCH_PG to a PostgreSQL connection string (a database the ' +
      'bench may create and drop schemas in), e.g. FLOWMARK_BENCH_PG=postgres://flowmark@127.0.0.1:54329/bench',
  );
  process.exit(0);
}
if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
  console.error('bench scale: no dist/ — run `npm run build` (`npm run bench` does) first');
  process.exit(1);
}
for (const [name, value] of [
  ['BENCH_REQUESTS', REQUESTS],
  ['BENCH_CONCURRENCY', CONCURRENCY],
  ['BENCH_MAX_SECONDS', MAX_SECONDS],
  ['BENCH_ROUNDS', ROUNDS],
  ['BENCH_STEP_LOOP', LOOP + 1],
] as const)
  if (!(Number.isInteger(value) && value > 0)) {
    console.error(`bench scale: ${name} must be a positive integer`);
    process.exit(2);
  }

const loadBefore = loadavg();
// Rounds alternate the two phases, so drift and neighbours hit both alike; medians are reported.
const ones: number[] = [];
const twos: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  ones.push(await phase(1, round));
  twos.push(await phase(2, round));
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const one = median(ones);
const two = median(twos);
const loadAfter = loadavg();
console.log(
  `machine: ${cpus().length} cores (the servers, PostgreSQL and this client share them); ` +
    `load average before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter
      .map((x) => x.toFixed(2))
      .join(' ')}`,
);
console.log(
  `${REQUESTS} requests of 3 script steps${LOOP ? ` (each looping ${LOOP} times first)` : ''} per phase, ` +
    `${CONCURRENCY} in flight, round-robin over the servers (--workers 1 each)`,
);
const rounds = (xs: number[]) => (ROUNDS > 1 ? `   rounds ${xs.map((x) => x.toFixed(0)).join(', ')}` : '');
console.log(`1 server   ${one.toFixed(0).padStart(6)} requests/s${rounds(ones)}`);
console.log(
  `2 servers  ${two.toFixed(0).padStart(6)} requests/s${rounds(twos)}   ratio ${(two / one).toFixed(2)}`,
);

/** One phase: `count` servers on a fresh schema; answers the requests per second measured. */
async function phase(count: number, round: number): Promise<number> {
  const schema = `bench_scale_${process.pid}_${round}_${count}`;
  const admin = new pg.Client({ connectionString: PG });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(PG!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-scale-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url.toString(), FLOWMARK_DATA: dir };
  const servers: Server[] = [];
  try {
    // The first server alone first: it migrates the schema and prints the administrator's password.
    servers.push(await serve(ROOT, env, true));
    for (let i = 1; i < count; i++) servers.push(await serve(ROOT, env, false));
    const auth = await adminToken(servers[0]!, MAX_SECONDS * 1000);
    const stored = await call(servers[0]!.url, '/api/v1/processes', auth, PROCESS, MAX_SECONDS * 1000);
    if (stored.status !== 201) throw new Error(`process: ${stored.status} ${await stored.text()}`);

    await run(servers, auth, WARM_UP * count, CONCURRENCY);
    const started = performance.now();
    await run(servers, auth, REQUESTS, CONCURRENCY);
    const seconds = (performance.now() - started) / 1000;

    const { rows } = await admin.query<{ status: number; n: string }>(
      `SELECT status, COUNT(*) AS n FROM ${schema}.requests GROUP BY status`,
    );
    const statuses = rows.map((r) => `${r.status}: ${r.n}`).join(', ');
    if (
      rows.length !== 1 ||
      Number(rows[0]!.status) !== 201 ||
      Number(rows[0]!.n) !== REQUESTS + WARM_UP * count
    )
      throw new Error(`requests in the database by status: ${statuses}`);
    const rate = REQUESTS / seconds;
    console.log(
      `${count} server${count > 1 ? 's' : ' '}: ${REQUESTS} requests in ${seconds.toFixed(2)} s, ${rate.toFixed(0)}/s ` +
        `(database: ${statuses})`,
    );
    return rate;
  } finally {
    for (const s of servers)
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
    await Promise.all(servers.map((s) => s.exited));
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `total` requests, `inFlight` at a time, request i on server i mod n; throws on any other answer than 201 COMPLETED. */
async function run(
  servers: Server[],
  auth: Record<string, string>,
  total: number,
  inFlight: number,
): Promise<void> {
  const deadline = Date.now() + MAX_SECONDS * 1000;
  let next = 0;
  const lane = async () => {
    while (next < total) {
      if (Date.now() > deadline) throw new Error(`not done within BENCH_MAX_SECONDS=${MAX_SECONDS}`);
      const i = next++;
      const r = await call(
        servers[i % servers.length]!.url,
        '/api/v1/requests',
        auth,
        { process: 'Scale', mode: 'TEST', data: { a: i } },
        MAX_SECONDS * 1000,
      );
      const text = await r.text();
      if (r.status !== 201 || (JSON.parse(text) as { status?: number }).status !== 201)
        throw new Error(`request ${i}: ${r.status} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, lane));
}
