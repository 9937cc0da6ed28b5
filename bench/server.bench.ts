// Requests per second of the flowmark server against a bare Fastify route, in the same run and
// the same server process: autocannon (in this process) loads a child process serving all of them,
// with the hosts `flowmark serve` wires (evalHost + createHosts) on SQLite.
// Targets: a public composite API with a trivial script (the goal: ≥ 0.85 × the bare route, issue 20), the
// same called with a Bearer token, and the eval endpoint with a trivial template. A second server
// whose composite host answers at once shows the server's own share (routing, access hook, cookie
// plugin, the live route's exchange and answer): the ceiling of the composite rows. A third server
// runs its evaluations as `flowmark serve` does since the isolation work (src/isolation: every
// evaluation in a worker thread of the evaluation pool); its composite row against the in-process
// one is the cost of the hop (issue 25's goal: server CPU per request ≤ 1.3 × in-process).
//
//   npm run bench -- server            (BENCH_SECONDS=5 per round, 3 rounds per side by default)
//   BENCH_ONLY=public                  only the targets whose name contains it, or one of a|b|c (and the bare route)
//   BENCH_PROFILE=/tmp/prof            the server process writes a V8 CPU profile there (--cpu-prof)
//   BENCH_TRACES=1                     the servers trace (docs/deploy.md "Traces"), into an exporter that drops the spans
//   BENCH_BASELINE=<dir>               also a server of another build (its compiled src/, e.g. the dist/src of
//                                      3506dde, the build before the isolation work, beside a node_modules),
//                                      in a process of its own, its composite API in-process as its `serve` ran
//                                      it: issue 25's goal is this build's pool ÷ that one (composite-cpu-vs-before)
//   BENCH_ALONE=1                      also the pool's server alone in a process of its own, as `flowmark serve`
//                                      runs it (the goals against the build before then take this one)
//   BENCH_OTHER=<dir>                  A/B of two builds of this branch: also this bench's servers from that
//                                      copy of a dist/ (inside the checkout, for its imports), in a process of
//                                      its own, its targets named "… [B]" (BENCH_OTHER_FLAGS: node flags of it)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { builtCode, flowmarkCode, HELLO_API, type Code } from './code.js';

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  expect: string;
  /** Which server process answers it: 0 this build's, 1 the baseline's. */
  server?: number;
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
const GOAL = 0.85;
const POOL_GOAL = 1.3;
const ONLY = process.env.BENCH_ONLY;
const PROFILE = process.env.BENCH_PROFILE;
const BASELINE = process.env.BENCH_BASELINE;
const BEFORE = 'composite API, public, build before isolation';
const ALONE = 'composite API, public, evaluation pool, own process';

if (process.argv[2] === '--serve') await serve();
else if (process.argv[2] === '--serve-baseline') await serveBaseline(process.argv[3]!);
else await measure();

/** Answers the parent's lines with this process's CPU (see serve) until stdin closes, then `close`. */
function answerCpu(close: () => Promise<void>): void {
  // Each line the parent sends asks for this process's CPU time so far (µs, user + system), its
  // resident set size (bytes), and the CPU time of its main thread, the HTTP thread (µs; Linux).
  const lines = createInterface({ input: process.stdin });
  lines.on('line', () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${user + system} ${process.memoryUsage.rss()} ${mainThreadCpu()}\n`);
  });
  lines.on('close', async () => {
    await close();
    process.exit(0);
  });
}

/**
 * The baseline child: another build's server (modules from `dist`) with the hosts its `serve`
 * wired (evalHost + createHosts, evaluations on the HTTP thread), the same composite API on SQLite.
 */
async function serveBaseline(dist: string): Promise<void> {
  const { load } = builtCode(dist);
  const { createPlatform } = await load<typeof import('../src/platform/index.js')>('platform/index');
  const { createServer } = await load<typeof import('../src/server/index.js')>('server/index');
  const { evalHost } = await load<typeof import('../src/hosts/eval-host.js')>('hosts/eval-host');
  const { createHosts } = await load<typeof import('../src/hosts/index.js')>('hosts/index');
  const { openStore } = await load<typeof import('../src/store/index.js')>('store/index');
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-base-'));
  const store = await openStore({ dataDir: dir, databaseUrl: undefined });
  const platform = createPlatform(store);
  await platform.accounts.create({ id: 'bench' });
  await platform.compositeApis.create('bench', HELLO_API);
  const app = await createServer({
    store,
    platform,
    hosts: { ...evalHost(platform), ...createHosts(platform) },
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const targets: Target[] = [
    {
      name: BEFORE,
      url: `${address}/live/bench/composite/hello?name=bench`,
      method: 'GET',
      headers: {},
      expect: 'Hello bench',
    },
  ];
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  answerCpu(async () => {
    await app.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

/** The child: a bare Fastify route and a flowmark server on SQLite, both on free ports. */
async function serve(): Promise<void> {
  const other = process.env.BENCH_CODE;
  const code: Code = other ? builtCode(other) : flowmarkCode();
  const { createPlatform } = await code.load<typeof import('../src/platform/index.js')>('platform/index');
  const { ApiTokens, createServer } =
    await code.load<typeof import('../src/server/index.js')>('server/index');
  const { evalHost } = await code.load<typeof import('../src/hosts/eval-host.js')>('hosts/eval-host');
  const { createHosts } = await code.load<typeof import('../src/hosts/index.js')>('hosts/index');
  const { openStore } = await code.load<typeof import('../src/store/index.js')>('store/index');

  if (process.env.BENCH_TRACES) {
    const { startTracing } = await code.load<typeof import('../src/traces/setup.js')>('traces/setup');
    const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
    const dropped = {
      export: (_: unknown, done: (r: { code: 0 }) => void) => done({ code: 0 }),
      shutdown: async () => {},
    };
    await startTracing({ processors: [new BatchSpanProcessor(dropped)] });
  }
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-'));
  const store = await openStore({ dataDir: dir, databaseUrl: undefined });
  const platform = createPlatform(store);
  await platform.accounts.create({ id: 'bench' });
  const user = await platform.directory.users.create('bench', { login: 'bench', isAdmin: true }); // the eval endpoint without a project needs it
  const { token } = await new ApiTokens(store, Date.now).create(
    { accountId: 'bench', userId: user.id },
    { name: 'bench' },
  );

  const hosts = { ...evalHost(platform), ...createHosts(platform) }; // as `flowmark serve`
  await platform.compositeApis.create('bench', HELLO_API);

  /** The composite API as `flowmark serve` answers it: its evaluations in the pool's threads. */
  async function poolServer() {
    // The pool's threads open the same store from the environment, as `flowmark serve`'s do.
    process.env.FLOWMARK_DATA = dir;
    process.env.DATABASE_URL = '';
    const { EvaluationPool } = await code.load<typeof import('../src/isolation/pool.js')>('isolation/pool');
    const { remoteHosts } = await code.load<typeof import('../src/isolation/remote.js')>('isolation/remote');
    const { poolSettingsFromEnv } =
      await code.load<typeof import('../src/isolation/settings.js')>('isolation/settings');
    const pool = new EvaluationPool(poolSettingsFromEnv(), { limits: {}, evaluationLimits: {}, scripts: {} });
    const pooled = await createServer({ store, platform, hosts: remoteHosts(pool) });
    const pooledAddress = await pooled.listen({ port: 0, host: '127.0.0.1' });
    return { pool, pooled, pooledAddress };
  }
  if (process.env.BENCH_SERVE_ALONE) {
    // only the pool's server in this process, as in `flowmark serve` (no in-process evaluations on its heap)
    const { pool, pooled, pooledAddress } = await poolServer();
    const alone: Target = {
      name: ALONE,
      url: `${pooledAddress}/live/bench/composite/hello?name=bench`,
      method: 'GET',
      headers: {},
      expect: 'Hello bench',
    };
    process.stdout.write(`${JSON.stringify([alone])}\n`);
    answerCpu(async () => {
      await pooled.close();
      await pool.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return;
  }
  const bare = Fastify();
  bare.get('/bare', async () => ({ output: 'Hello bench' }));
  const bareAddress = await bare.listen({ port: 0, host: '127.0.0.1' });
  const app = await createServer({ store, platform, hosts });
  const appAddress = await app.listen({ port: 0, host: '127.0.0.1' });
  const instant = async () => ({
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: 'Hello bench',
  });
  const floor = await createServer({ store, platform, hosts: { ...hosts, composite: instant } });
  const floorAddress = await floor.listen({ port: 0, host: '127.0.0.1' });
  const { pool, pooled, pooledAddress } = await poolServer();

  const targets: Target[] = [
    {
      name: 'bare Fastify route',
      url: `${bareAddress}/bare`,
      method: 'GET',
      headers: {},
      expect: '{"output":"Hello bench"}',
    },
    {
      name: 'composite API, public, trivial script',
      url: `${appAddress}/live/bench/composite/hello?name=bench`,
      method: 'GET',
      headers: {},
      expect: 'Hello bench',
    },
    {
      name: 'composite API, public, evaluation pool',
      url: `${pooledAddress}/live/bench/composite/hello?name=bench`,
      method: 'GET',
      headers: {},
      expect: 'Hello bench',
    },
    {
      name: 'composite route, host answering at once',
      url: `${floorAddress}/live/bench/composite/hello?name=bench`,
      method: 'GET',
      headers: {},
      expect: 'Hello bench',
    },
    {
      name: 'composite API, Bearer token',
      url: `${appAddress}/live/bench/composite/hello?name=bench`,
      method: 'GET',
      headers: { authorization: `Bearer ${token}` },
      expect: 'Hello bench',
    },
    {
      name: 'eval endpoint, trivial template, Bearer token',
      url: `${appAddress}/api/v1/eval`,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ template: 'Hello ${name}', data: { name: 'bench' } }),
      expect: '"output":"Hello bench"',
    },
  ];
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  answerCpu(async () => {
    await app.close();
    await pooled.close();
    await pool.close();
    await floor.close();
    await bare.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

/** The CPU time of this process's main thread (µs), from /proc (clock ticks of 10 ms); NaN elsewhere. */
function mainThreadCpu(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}

/** The parent: checks each target answers as expected, then alternates rounds of load on each. */
async function measure(): Promise<void> {
  const profile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [];
  const servers = [start([...profile, '--import', 'tsx', fileURLToPath(import.meta.url), '--serve'])];
  if (BASELINE)
    servers.push(
      start([...profile, '--import', 'tsx', fileURLToPath(import.meta.url), '--serve-baseline', BASELINE]),
    );
  if (process.env.BENCH_ALONE)
    servers.push(
      start([...profile, '--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
        BENCH_SERVE_ALONE: '1',
      }),
    );
  const OTHER = process.env.BENCH_OTHER;
  if (OTHER)
    servers.push(
      start(
        [
          ...(process.env.BENCH_OTHER_FLAGS ?? '').split(' ').filter(Boolean),
          ...profile,
          '--import',
          'tsx',
          fileURLToPath(import.meta.url),
          '--serve',
        ],
        { BENCH_CODE: OTHER },
      ),
    );
  const [bare, ...every] = JSON.parse(await servers[0]!.nextLine()) as Target[];
  for (let i = 1; i < servers.length; i++) {
    const [otherBare, ...more] = JSON.parse(await servers[i]!.nextLine()) as Target[];
    // the other build's bare route is not measured: the first line of a baseline is its composite
    if (otherBare!.name !== bare!.name) more.unshift(otherBare!);
    const named = (t: Target) => (otherBare!.name === bare!.name ? { ...t, name: `${t.name} [B]` } : t);
    for (const t of more) every.push({ ...named(t), server: i });
  }
  const targets = ONLY ? every.filter((t) => ONLY.split('|').some((o) => t.name.includes(o))) : every;
  /** The CPU time so far (µs) of the server process answering `t`. */
  const serverState = async (t: Target) => {
    const server = servers[t.server ?? 0]!;
    server.child.stdin!.write('cpu\n');
    const [cpu, rss, http] = (await server.nextLine()).split(' ').map(Number);
    return { cpu: cpu!, rss: rss!, http: http! };
  };
  /** The server's RSS: idle (before any load), then after each round of the goal's target. */
  const rss: { idle: number; rounds: number[] } = { idle: (await serverState(bare!)).rss, rounds: [] };
  /** Requests per second, and the server's CPU µs per request (what the load on its neighbours does not bend). */
  const measured = async (t: Target, seconds: number) => {
    const before = await serverState(t);
    const { rps, requests } = await load(t, seconds);
    const after = await serverState(t);
    if (t === targets[0]) rss.rounds.push(after.rss);
    return {
      rps,
      cpu: (after.cpu - before.cpu) / requests,
      http: (after.http - before.http) / requests,
      requests,
    };
  };
  try {
    for (const t of [bare!, ...targets]) {
      const r = await fetch(t.url, { method: t.method, headers: t.headers, body: t.body });
      const text = await r.text();
      if (r.status !== 200 || !text.includes(t.expect)) throw new Error(`${t.name}: ${r.status} ${text}`);
    }
    const all = [bare!, ...targets];
    const rps = new Map<string, number[]>(all.map((t) => [t.name, []]));
    const cpu = new Map<string, number[]>(all.map((t) => [t.name, []]));
    const http = new Map<string, number[]>(all.map((t) => [t.name, []]));
    for (const t of all) await load(t, 1); // warm-up
    // Each round measures every target, in a rotating order, so drift and neighbours hit all alike.
    for (let round = 0; round < ROUNDS; round++)
      for (let i = 0; i < all.length; i++) {
        const t = all[(i + round) % all.length]!;
        const m = await measured(t, SECONDS);
        rps.get(t.name)!.push(m.rps);
        cpu.get(t.name)!.push(m.cpu);
        http.get(t.name)!.push(m.http);
      }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const base = median(rps.get(bare!.name)!);
    const baseCpu = median(cpu.get(bare!.name)!);
    console.log(`flowmark from ${flowmarkCode().from}`);
    console.log(`${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS}s per target (median requests/s)`);
    for (const t of all) {
      const m = median(rps.get(t.name)!);
      const ratio = t === bare ? '' : `   ratio ${(m / base).toFixed(2)}`;
      console.log(
        `${t.name.padEnd(46)} ${m.toFixed(0).padStart(7)} req/s${ratio}   rounds ${rps
          .get(t.name)!
          .map((x) => x.toFixed(0))
          .join(', ')}`,
      );
    }
    console.log(
      'server CPU per request (median µs; bare ÷ target: the same ratio without the load of neighbours)',
    );
    for (const t of all) {
      const c = median(cpu.get(t.name)!);
      const ratio = t === bare ? '' : `   ratio ${(baseCpu / c).toFixed(2)}`;
      const rounds = cpu
        .get(t.name)!
        .map((x) => x.toFixed(1))
        .join(', ');
      console.log(`${t.name.padEnd(46)} ${c.toFixed(1).padStart(7)} µs${ratio}   rounds ${rounds}`);
    }
    console.log('of which on the HTTP thread (median µs per request; the rest: evaluation threads, GC, I/O)');
    for (const t of all)
      console.log(`${t.name.padEnd(46)} ${median(http.get(t.name)!).toFixed(1).padStart(7)} µs`);
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    console.log(
      `server RSS: idle ${mb(rss.idle)}; after each round of ${targets[0]!.name}: ${rss.rounds.map(mb).join(', ')}`,
    );
    const goal = median(rps.get(targets[0]!.name)!) / base;
    console.log(
      `goal: ${targets[0]!.name} ≥ ${GOAL.toFixed(2)} × bare: ${goal.toFixed(2)} (${goal >= GOAL ? 'met' : 'NOT met'})`,
    );
    const inProcess = cpu.get('composite API, public, trivial script');
    const inPool = cpu.get('composite API, public, evaluation pool');
    if (inProcess && inPool) {
      const pooledRatio = median(inPool) / median(inProcess);
      console.log(
        `goal: composite-pool-cpu-ratio ${pooledRatio.toFixed(2)} x (server CPU per request, pool ÷ in-process; ≤ ${POOL_GOAL}) ${pooledRatio <= POOL_GOAL ? 'met' : 'NOT met'}`,
      );
      const cpuRatio = baseCpu / median(inPool);
      console.log(
        `goal: composite-cpu-ratio ${cpuRatio.toFixed(2)} x (server CPU per request, bare Fastify ÷ the composite API ` +
          `with evaluations off the HTTP thread; ≥ 0.80) ${cpuRatio >= 0.8 ? 'met' : 'NOT met'}`,
      );
    }
    const inPoolB = cpu.get('composite API, public, evaluation pool [B]');
    if (inPool && inPoolB)
      console.log(
        `A/B: composite API through the pool, server CPU per request, this build ÷ [B] ${(median(inPool) / median(inPoolB)).toFixed(2)} x`,
      );
    const before = cpu.get(BEFORE);
    const alone = cpu.get(ALONE);
    if (alone && before) {
      const ratio = median(alone) / median(before);
      console.log(
        `goal: composite-cpu-vs-before (pool server in a process of its own) ${ratio.toFixed(2)} x ` +
          `(≤ ${POOL_GOAL}) ${ratio <= POOL_GOAL ? 'met' : 'NOT met'}`,
      );
    }
    if (inPool && before) {
      const ratio = median(inPool) / median(before);
      console.log(
        `goal: composite-cpu-vs-before ${ratio.toFixed(2)} x (server CPU per request, the composite API with evaluations ` +
          `off the HTTP thread ÷ the build before isolation, ${BASELINE}; ≤ ${POOL_GOAL}) ${ratio <= POOL_GOAL ? 'met' : 'NOT met'}`,
      );
    }
  } finally {
    const ended = servers.map((s) => new Promise((resolve) => s.child.once('exit', resolve)));
    for (const s of servers) s.child.stdin!.end();
    if (PROFILE && servers.some((s) => s.child.exitCode === null)) {
      await Promise.all(ended); // the profile is written as the server exits
      console.log(`CPU profile of the server in ${PROFILE}`);
    }
  }
}

/** A server child process, and its next line of output. */
function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const answers = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`))),
  );
  exited.catch(() => undefined);
  const nextLine = async () => {
    const line = await Promise.race([answers.next(), exited]);
    if (line.done) throw new Error('bench server closed its output');
    return line.value;
  };
  return { child, nextLine };
}

async function load(t: Target, seconds: number): Promise<{ rps: number; requests: number }> {
  const result = await autocannon({
    url: t.url,
    method: t.method,
    headers: t.headers,
    body: t.body,
    connections: CONNECTIONS,
    duration: seconds,
  });
  if (result.errors || result.non2xx)
    throw new Error(`${t.name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { rps: result.requests.average, requests: result.requests.total };
}
