// Cost of calling a library function through the registry (bind(ctx) → callable: arity check,
// coercion, defaults, surface checks) beside calling its implementation directly with arguments
// already of the right types, in the same run. Goal: bound / direct < 2 for every function.
import { performance } from 'node:perf_hooks';
import { createExecutionContext } from '../src/functions/context.js';
import { defaultRegistry, type BoundFunction, type CallEnv } from '../src/functions/registry.js';

const ctx = createExecutionContext({ random: () => 0.5, clock: () => 1_705_276_800_000 });
const env: CallEnv = {
  getVariable: () => undefined,
  templateName: 'bench',
  locale: 'en_US',
  timeZone: 'UTC',
};
const registry = defaultRegistry();
const scope = registry.bind(ctx);

/** name, the arguments a template passes, the arguments the implementation gets (coerced, defaults filled). */
const cases: Array<[string, unknown[], unknown[]]> = [
  ['P_to_array', [{ entry: 1 }, 'entry'], [{ entry: 1 }, 'entry']],
  ['P_quoted', ["it's"], ["it's", "'"]],
  ['P_json_put', [{ a: 1 }, 'b', 'x'], [{ a: 1 }, 'b', 'x', false]],
  ['P_json_put_ext', [{ a: { b: 1 } }, 'a.c', 2, 'true'], [{ a: { b: 1 } }, 'a.c', 2, true]],
  ['get_random', [], []],
  ['transpose', [{ a: [1, 2], b: [3, 4] }], [{ a: [1, 2], b: [3, 4] }]],
  ['encrypt', ['MD5', 'hello'], ['MD5', 'hello', undefined]],
  ['R_hmac_hash', ['data', 'key'], ['data', 'key', 'SHA256', 'BASE64']],
];

type Impl = (c: typeof ctx, args: unknown[], e: CallEnv, name: string) => unknown;

/**
 * The two calls as a caller holding the values would write them: `fn.call(env, a, b)` (how the
 * template engine calls a method) and `impl(ctx, [a, b], env, name)`.
 */
function callers(
  fn: BoundFunction,
  t: unknown[],
  impl: Impl,
  d: unknown[],
  name: string,
): [() => unknown, () => unknown] {
  const bound = [
    () => fn.call(env),
    () => fn.call(env, t[0]),
    () => fn.call(env, t[0], t[1]),
    () => fn.call(env, t[0], t[1], t[2]),
    () => fn.call(env, t[0], t[1], t[2], t[3]),
  ][t.length]!;
  const direct = [
    () => impl(ctx, [], env, name),
    () => impl(ctx, [d[0]], env, name),
    () => impl(ctx, [d[0], d[1]], env, name),
    () => impl(ctx, [d[0], d[1], d[2]], env, name),
    () => impl(ctx, [d[0], d[1], d[2], d[3]], env, name),
  ][d.length]!;
  return [bound, direct];
}

function time(run: () => unknown, iterations: number): number {
  const start = performance.now();
  for (let i = 0; i < iterations; i++) run();
  return ((performance.now() - start) * 1e6) / iterations; // ns per call
}

/** Best of several rounds, alternating the two sides so drift hits both. */
function measure(bound: () => unknown, direct: () => unknown): { bound: number; direct: number } {
  let iterations = 1000;
  while (time(direct, iterations) * iterations < 5e6 && iterations < 1e7) iterations *= 2; // ≥ 5 ms a round
  let b = Infinity;
  let d = Infinity;
  // Many short rounds: on a shared machine the best of them is the one least disturbed.
  for (let round = 0; round < 41; round++) {
    d = Math.min(d, time(direct, iterations));
    b = Math.min(b, time(bound, iterations));
  }
  return { bound: b, direct: d };
}

const rows: string[] = [];
let worst = 0;
const over: string[] = [];
let logSum = 0;
const pairs = cases.map(([name, templateArgs, implArgs]) => {
  const fn = scope.get(name) as BoundFunction;
  const impl = registry.get(name)!.forms.find((f) => f.params.length >= implArgs.length)!.impl;
  return { name, callers: callers(fn, templateArgs, impl, implArgs, name) };
});
// Warm every call site with every function first, as a process running many scripts would.
for (let i = 0; i < 20_000; i++) {
  for (const pair of pairs) {
    pair.callers[0]();
    pair.callers[1]();
  }
}

for (const {
  name,
  callers: [bound, direct],
} of pairs) {
  const m = measure(bound, direct);
  const ratio = m.bound / m.direct;
  worst = Math.max(worst, ratio);
  logSum += Math.log(ratio);
  rows.push(
    `${name.padEnd(16)} direct ${m.direct.toFixed(0).padStart(7)} ns   bound ${m.bound.toFixed(0).padStart(7)} ns   ` +
      `overhead ${(m.bound - m.direct).toFixed(0).padStart(5)} ns   ratio ${ratio.toFixed(2)}${ratio >= 2 ? '  (over the goal)' : ''}`,
  );
  if (ratio >= 2) over.push(name);
}
console.log(rows.join('\n'));
console.log(
  `geometric mean ratio ${Math.exp(logSum / cases.length).toFixed(2)}, worst ${worst.toFixed(2)}; ` +
    `goal < 2 met by ${cases.length - over.length} of ${cases.length}${over.length ? ` (not: ${over.join(', ')})` : ''}`,
);
