// The hosts' own cost, in process (no HTTP; the server bench measures that against bare Fastify):
// 1. a composite API call with a trivial script (route lookup, context, response) against rendering
//    the same template with plain data — what the host adds to the language;
// 2. a process request of three script steps, start to end (run, step records, data document,
//    typing rule) against evaluating the same three templates in one context with the eval host.
// SQLite in a temporary directory. Prints microseconds per call and the ratios.
//
//   npm run bench -- hosts            (BENCH_SECONDS=2 per measure by default)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextFor } from '../src/functions/request/index.js';
import { evaluate } from '../src/hosts/evaluate.js';
import { CompositeHost, ProcessHost } from '../src/hosts/index.js';
import { createPlatform } from '../src/platform/index.js';
import { openStore } from '../src/store/index.js';
import { compile } from '../src/template/index.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);

/** Mean microseconds per call of `f`, after a warm-up, over about SECONDS. */
async function measure(f: () => Promise<unknown>): Promise<number> {
  const warmUntil = performance.now() + 300;
  while (performance.now() < warmUntil) await f();
  let calls = 0;
  const start = performance.now();
  const until = start + SECONDS * 1000;
  while (performance.now() < until) {
    for (let i = 0; i < 50; i++) await f();
    calls += 50;
  }
  return ((performance.now() - start) * 1000) / calls;
}

const dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-hosts-'));
const store = await openStore({ dataDir: dir, databaseUrl: undefined });
try {
  const platform = createPlatform(store);
  await platform.accounts.create({ id: 'bench' });

  const source = 'Hello ${P_query.name!"bench"}';
  await platform.compositeApis.create('bench', { path: 'hello', template: source, isPublic: true });
  const composite = new CompositeHost(platform);
  const exchange = {
    accountId: 'bench',
    caller: null,
    method: 'GET',
    path: 'hello',
    headers: { host: '127.0.0.1', 'user-agent': 'bench' },
    query: { name: 'bench' },
    body: undefined,
  };
  const answer = await composite.handle(exchange);
  if (answer.body !== 'Hello bench') throw new Error(`composite answered ${JSON.stringify(answer)}`);
  const template = compile(source);
  const render = await measure(() => template.render({ P_query: { name: 'bench' } }));
  const call = await measure(async () => composite.handle(exchange));
  console.log(`template render, plain data               ${render.toFixed(1).padStart(8)} µs`);
  console.log(
    `composite API call, trivial script         ${call.toFixed(1).padStart(8)} µs   ratio ${(call / render).toFixed(2)} × the render`,
  );

  const steps = ['${a + 1}', '{"b": ${a * 2}}', '[1, 2, ${a}]'];
  const definition = {
    name: 'three scripts',
    steps: steps.map((s, i) => ({ id: i + 1, input: { [`v${i}`]: s } })),
  };
  const processes = new ProcessHost(platform);
  const done = await processes.start('bench', { definition, data: { a: 1 } });
  if (done.request.status !== 201) throw new Error(`the process ended with ${done.request.status}`);
  const ctx = await contextFor({ platform, account: 'bench' });
  const evals = await measure(async () => {
    for (const s of steps) await evaluate(s, ctx, { a: 1 });
  });
  const run = await measure(() => processes.start('bench', { definition, data: { a: 1 } }));
  console.log(`3 templates through the eval host          ${evals.toFixed(1).padStart(8)} µs`);
  console.log(
    `process request of 3 script steps          ${run.toFixed(1).padStart(8)} µs   ratio ${(run / evals).toFixed(1)} × the evaluations (${(1e6 / run).toFixed(0)} requests/s)`,
  );
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
