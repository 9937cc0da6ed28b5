/**
 * `?eval_json` of a 100 KB document beside the least any reader of it must do: `JSON.parse` and
 * building the template's values from its result (objects → `Map`s in key order, `null` → no
 * value), measured alternately in the same run.
 *
 *   npm run bench -- eval-json
 *   BENCH_ROUNDS=5 npm run bench -- eval-json
 *
 * Two documents: one of integers, strings, booleans and nulls (an API's typical answer), and one
 * with decimal amounts (which `?eval_json` keeps exact, as `BigDecimal`s, where `JSON.parse` gives
 * doubles). The goal (issue 32) is judged on their geometric mean:
 * `goal: eval-json-ratio VALUE x` (≤ 1.5).
 */
import { performance } from 'node:perf_hooks';
import { flowmarkCode } from './code.js';

type TemplateApi = typeof import('../src/template/index.js');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_BYTES = 100 * 1024;

/** A document of `records` like an API's answer, `withDecimals` adding a price and a rate to each. */
function document(withDecimals: boolean): string {
  const records: unknown[] = [];
  let text = '';
  for (let i = 0; text.length < TARGET_BYTES; i++) {
    records.push({
      id: 100_000 + i,
      name: `Customer ${i}`,
      email: `customer.${i}@example.com`,
      active: i % 3 !== 0,
      manager: i % 7 === 0 ? null : `M${i % 13}`,
      tags: ['retail', i % 2 ? 'north' : 'south', `tier-${i % 4}`],
      address: { street: `${i} Main Street`, city: 'Lyon', zip: `690${i % 10}0`, country: 'FR' },
      ...(withDecimals ? { price: Number(`${i % 500}.${(i % 99) + 1}`), rate: 0.05 + (i % 10) / 100 } : {}),
      orders: i % 5,
    });
    text = JSON.stringify({ total: records.length, records });
  }
  return text;
}

/** The reference: `JSON.parse`, then the values a template holds. */
function toValues(v: unknown): unknown {
  if (v === null) return undefined;
  if (typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = toValues(v[i]);
    return out;
  }
  const m = new Map<string, unknown>();
  const o = v as Record<string, unknown>;
  for (const k in o) m.set(k, toValues(o[k]));
  return m;
}

async function perCall(run: () => unknown, ms: number): Promise<number> {
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    await run();
    n++;
    now = performance.now();
  }
  return ((now - start) * 1000) / n;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const code = flowmarkCode();
  const api = await code.load<TemplateApi>('template/index');
  console.log(`flowmark from ${code.from}; ${ROUNDS} rounds, alternating`);
  const ratios: number[] = [];
  for (const withDecimals of [false, true]) {
    const text = document(withDecimals);
    const template = api.compile('<#assign d = text?eval_json>${d.total}', { name: 'eval-json.ftl' });
    const model = new Map<string, unknown>([['text', text]]);
    const expected = String(JSON.parse(text).total);
    const out = await template.render(model);
    if (out !== expected) throw new Error(`eval-json bench: the template printed ${out}, not ${expected}`);
    const render = () => template.render(model);
    const reference = (): void => {
      toValues(JSON.parse(text));
    };
    for (let i = 0; i < 20; i++) {
      await render();
      reference();
    }
    const mine: number[] = [];
    const ref: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      ref.push(await perCall(reference, 600));
      mine.push(await perCall(render, 600));
    }
    const ratio = median(mine) / median(ref);
    ratios.push(ratio);
    console.log(
      `${withDecimals ? 'with decimals   ' : 'without decimals'} ${(text.length / 1024).toFixed(0)} KB: ` +
        `?eval_json ${median(mine).toFixed(0)} µs, JSON.parse + values ${median(ref).toFixed(0)} µs: ${ratio.toFixed(2)}×`,
    );
  }
  const geo = Math.sqrt(ratios[0]! * ratios[1]!);
  console.log(
    `goal: eval-json-ratio ${geo.toFixed(2)} x (?eval_json ÷ JSON.parse + values, geometric mean of the two documents; ≤ 1.5) ${geo <= 1.5 ? 'met' : 'NOT met'}`,
  );
}

await main();
