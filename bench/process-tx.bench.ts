// What a process request costs PostgreSQL (issue 27: at most 2 transactions per executed flow
// node): one `flowmark serve --workers 1` (the built CLI) on a fresh schema runs BENCH_REQUESTS
// requests of a process of three script tasks through `POST /api/v1/requests` (each answers once
// its request ended), BENCH_CONCURRENCY in flight; the database's transactions are read from
// `pg_stat_database` (commits + rollbacks) before and after, so the server's sweeps, heartbeats
// and lease renewals of the run are counted too. A request executes 5 flow nodes (start event,
// three tasks, end event); the transactions are divided by those.
//
// With FLOWMARK_BENCH_BASELINE=<a checkout of flowmark with dist/ built> the same phase runs on
// that build too, alternating round by round, and the requests/s are compared.
//
//   FLOWMARK_BENCH_PG=postgres://flowmark@127.0.0.1:54329/bench npm run bench -- process-tx
//   (BENCH_REQUESTS=300, BENCH_CONCURRENCY=8, BENCH_ROUNDS=3; the database should have no other
//   clients during the run: pg_stat_database counts the whole database's transactions)
//
// Ends with `goal: tx-per-node VALUE tx` and, with a baseline, `goal: process-rps-ratio VALUE x`.
// Without FLOWMARK_BENCH_PG it prints why it skips and exits 0.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { adminToken, call, serve, type Server } from './flowmark-serve.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PG = process.env.FLOWMARK_BENCH_PG;
const BASELINE = process.env.FLOWMARK_BENCH_BASELINE;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 20;
const NODES_PER_REQUEST = 5;
const TX_GOAL = 2;

const PROCESS = {
  name: 'Tx',
  steps: [
    { id: 1, name: 'One', script: '${(a + 1)?c}', output: { b: '${P_result?c}' } },
    { id: 2, name: 'Two', script: '{"c": ${(b * 2)?c}}' },
    { id: 3, name: 'Three', script: '[1, 2, ${a?c}, ${P_result.c?c}]' },
  ],
};

if (!PG) {
  console.log(
    'bench process-tx: skipped — set FLOWMARK_BENCH_PG to a PostgreSQL connection string (a database ' +
      'the bench may create and drop schemas in, with no other clients during the run)',
  );
  process.exit(0);
}
for (const root of [ROOT, ...(BASELINE ? [BASELINE] : [])])
  if (!existsSync(join(root, 'dist/cli/main.js'))) {
    console.error(`bench process-tx: no dist/ in ${root} — run \`npm run build\` there first`);
    process.exit(1);
  }

interface Phase {
  rps: number;
  txPerNode: number;
}

const builds: [string, string][] = [
  ['this build', ROOT],
  ...(BASELINE ? [['baseline', BASELINE] as [string, string]] : []),
];
const results = new Map<string, Phase[]>(builds.map(([name]) => [name, []]));
const loadBefore = loadavg();
for (let round = 0; round < ROUNDS; round++)
  for (let i = 0; i < builds.length; i++) {
    const [name, root] = builds[(i + round) % builds.length]!;
    const phase = await measure(root, `${round}_${i}`);
    console.log(
      `round ${round + 1} ${name.padEnd(10)} ${phase.rps.toFixed(0).padStart(5)} requests/s, ` +
        `${phase.txPerNode.toFixed(2)} transactions per flow node (${(phase.txPerNode * NODES_PER_REQUEST).toFixed(1)} per request)`,
    );
    results.get(name)!.push(phase);
  }
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
console.log(
  `${REQUESTS} requests of 3 script tasks (${NODES_PER_REQUEST} flow nodes) per phase, ${CONCURRENCY} in flight, ` +
    `one server (--workers 1); load average before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, ` +
    `after ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
);
const mine = results.get('this build')!;
const tx = median(mine.map((p) => p.txPerNode));
console.log(`goal: tx-per-node ${tx.toFixed(2)} tx (≤ ${TX_GOAL})`);
if (BASELINE) {
  const base = results.get('baseline')!;
  console.log(
    `baseline: ${median(base.map((p) => p.rps)).toFixed(0)} requests/s, ` +
      `${median(base.map((p) => p.txPerNode)).toFixed(2)} transactions per flow node`,
  );
  console.log(
    `goal: process-rps-ratio ${(median(mine.map((p) => p.rps)) / median(base.map((p) => p.rps))).toFixed(2)} x`,
  );
}

/** One phase on the build at `root`: a fresh schema, one server, the warm-up, then the measured requests. */
async function measure(root: string, tag: string): Promise<Phase> {
  const schema = `bench_tx_${process.pid}_${tag}`;
  const admin = new pg.Client({ connectionString: PG });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(PG!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-tx-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url.toString(), FLOWMARK_DATA: dir };
  let server: Server | undefined;
  try {
    server = await serve(root, env, true);
    const auth = await adminToken(server);
    const stored = await call(server.url, '/api/v1/processes', auth, PROCESS);
    if (stored.status !== 201) throw new Error(`process: ${stored.status} ${await stored.text()}`);
    await run(server, auth, WARM_UP);
    const before = await transactions(admin);
    const started = performance.now();
    await run(server, auth, REQUESTS);
    const seconds = (performance.now() - started) / 1000;
    // A backend that went idle less than a second after its last report holds its counts for up
    // to 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL); one that exits reports them. So the server
    // stops before the count is read: its shutdown's few transactions are counted too, and the
    // warm-up's late reports land in the phase — both count more, never less.
    server.child.kill('SIGTERM');
    await server.exited;
    const after = await transactions(admin);
    const { rows } = await admin.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM ${schema}.requests WHERE status = 201`,
    );
    if (Number(rows[0]!.n) !== REQUESTS + WARM_UP)
      throw new Error(`${rows[0]!.n} requests completed in the database, not ${REQUESTS + WARM_UP}`);
    // the bench's own two reads of pg_stat_database are transactions too
    return { rps: REQUESTS / seconds, txPerNode: (after - before - 2) / (REQUESTS * NODES_PER_REQUEST) };
  } finally {
    if (server && server.child.exitCode === null) server.child.kill('SIGTERM');
    await server?.exited;
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The database's transactions so far, as its backends have reported them (a second after the last ended). */
async function transactions(admin: pg.Client): Promise<number> {
  await new Promise((r) => setTimeout(r, 1_500));
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]!.n);
}

async function run(server: Server, auth: Record<string, string>, total: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const i = next++;
      const r = await call(server.url, '/api/v1/requests', auth, {
        process: 'Tx',
        mode: 'TEST',
        data: { a: i },
      });
      const text = await r.text();
      if (r.status !== 201 || (JSON.parse(text) as { status?: number }).status !== 201)
        throw new Error(`request ${i}: ${r.status} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, total) }, lane));
}
