// The evaluation pool's hop without HTTP (docs/performance.md "The evaluation pool's hop"): CPU
// per composite API call through the pool (src/isolation: remoteHosts over an EvaluationPool)
// against the same call on the in-process hosts, with K calls in flight, all the process's threads
// counted (/proc/self/task/*/schedstat, ns) and the calling thread apart. The composite is the
// trivial one of bench/server.bench.ts, on SQLite.
//
//   node --import tsx bench/pool-hop.bench.ts
//   BENCH_K=10,1             calls in flight (default 10 and 1)
//   BENCH_MS=2000            per measure;  BENCH_ROUNDS=3
//   BENCH_IN_PROCESS=0       only the pool (as in `flowmark serve`, whose HTTP thread evaluates
//                            nothing: the in-process calls between the pool's make its heap busier)
//   BENCH_DIST=<dir>         load the built modules from there (another build's dist/, copied
//                            inside this checkout so its imports resolve) instead of this one's
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCode, flowmarkCode, HELLO_API, type Code } from './code.js';

const DIST = process.env.BENCH_DIST;
const code: Code = DIST ? builtCode(DIST) : flowmarkCode();
const { createPlatform } = await code.load<typeof import('../src/platform/index.js')>('platform/index');
const { createHosts } = await code.load<typeof import('../src/hosts/index.js')>('hosts/index');
const { openStore } = await code.load<typeof import('../src/store/index.js')>('store/index');
const dir = mkdtempSync(join(tmpdir(), 'flowmark-hop-'));
const store = await openStore({ dataDir: dir, databaseUrl: undefined });
const platform = createPlatform(store);
await platform.accounts.create({ id: 'bench' });
await platform.compositeApis.create('bench', HELLO_API);
const local = createHosts(platform);
// the pool's threads open the same store from the environment, as `flowmark serve`'s do
process.env.FLOWMARK_DATA = dir;
process.env.DATABASE_URL = '';
const { EvaluationPool } = await code.load<typeof import('../src/isolation/pool.js')>('isolation/pool');
const { remoteHosts } = await code.load<typeof import('../src/isolation/remote.js')>('isolation/remote');
const { poolSettingsFromEnv } =
  await code.load<typeof import('../src/isolation/settings.js')>('isolation/settings');
const pool = new EvaluationPool(poolSettingsFromEnv(), { limits: {}, evaluationLimits: {}, scripts: {} });
const remote = remoteHosts(pool);

/** An exchange as the live route builds it for autocannon's requests. */
const exchange = () => ({
  accountId: 'bench',
  caller: null,
  method: 'GET',
  path: 'hello',
  headers: { host: '127.0.0.1:34567', connection: 'keep-alive' },
  query: { name: 'bench' },
  body: undefined,
});

/** A thread's CPU time so far (µs), from its schedstat (ns); 0 for a thread that ended meanwhile. */
function threadCpu(tid: string | number): number {
  try {
    return Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    return 0;
  }
}
const allCpu = () => readdirSync('/proc/self/task').reduce((sum, tid) => sum + threadCpu(tid), 0);

/** CPU µs per call, all threads and the calling thread, with `k` calls in flight for `ms`. */
async function measure(call: () => Promise<unknown>, k: number, ms: number) {
  let calls = 0;
  const end = performance.now() + ms;
  const all = allCpu();
  const main = threadCpu(process.pid);
  await Promise.all(
    Array.from({ length: k }, async () => {
      while (performance.now() < end) {
        await call();
        calls++;
      }
    }),
  );
  return { all: (allCpu() - all) / calls, main: (threadCpu(process.pid) - main) / calls };
}

const composite = local.composite!;
for (const host of [async () => composite(exchange()), async () => remote.composite(exchange())]) {
  const answer = (await host()) as { body: unknown };
  if (answer.body !== 'Hello bench') throw new Error(`unexpected answer ${String(answer.body)}`);
}
const ks = (process.env.BENCH_K ?? '10,1').split(',').map(Number);
const ms = Number(process.env.BENCH_MS ?? 2000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
console.log(`flowmark from ${code.from}; ${rounds} rounds of ${ms} ms per measure`);
for (const k of ks) await measure(async () => remote.composite(exchange()), k, 500); // warm-up
for (let round = 0; round < rounds; round++)
  for (const k of ks) {
    const inProcess =
      process.env.BENCH_IN_PROCESS === '0'
        ? { all: 0, main: 0 }
        : await measure(async () => composite(exchange()), k, ms);
    const pooled = await measure(async () => remote.composite(exchange()), k, ms);
    console.log(
      `k=${k}: in-process ${inProcess.all.toFixed(1)} µs (calling thread ${inProcess.main.toFixed(1)}), ` +
        `pool ${pooled.all.toFixed(1)} µs (calling thread ${pooled.main.toFixed(1)}), ` +
        `hop ${(pooled.all - inProcess.all).toFixed(1)} µs per call`,
    );
  }
await pool.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
