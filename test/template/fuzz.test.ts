/**
 * Fuzzing: random and mutated templates must never crash the process, never run past the limits,
 * and always end with output or a TemplateError (ParseError included). Two sources:
 *  - a seeded mutator over the differential corpus and the FreeMarker suite (delete / duplicate /
 *    swap spans, splice in FTL fragments, cut off the end);
 *  - fast-check templates built from a small FTL grammar (directives, expressions, built-ins).
 * FUZZ_RUNS scales both (default keeps the file at a few seconds); FUZZ_SEED varies them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, TemplateError } from '../../src/template/index.js';
import { dataFromJson } from '../../src/template/data.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const SEED = Number(process.env.FUZZ_SEED ?? 20240229);
const LIMITS = { maxSteps: 20_000, maxDepth: 40, maxOutputChars: 200_000 };
/** Wall-clock bound per template (parse + render); generous for slow CI machines. */
const MAX_MS = 5_000;

const corpus: { template: string; data: unknown }[] = readFileSync(
  new URL('../fixtures/template/corpus/expected.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as { template: string; data: unknown });

const suiteDir = new URL('../fixtures/template/suite/templates/', import.meta.url);
const suiteTemplates = readdirSync(suiteDir)
  .filter((f) => f.endsWith('.ftl'))
  .map((f) => readFileSync(new URL(f, suiteDir), 'latin1'));

const seeds = [...corpus.map((c) => c.template), ...suiteTemplates];

const DATA = dataFromJson(
  JSON.stringify({
    s: 'Hello <World> & "friends"',
    n: 42,
    d: 3.14159,
    neg: -7,
    b: true,
    seq: [1, 2, 3, 'x', null],
    h: { a: 1, b: 'two', nested: { c: [1, { d: 2 }] } },
    date: { $datetime: '2024-02-29T13:45:30.123Z' },
    empty: '',
    nil: null,
  }),
);

const FRAGMENTS = [
  '${',
  '}',
  '#{',
  '<#',
  '</#',
  '>',
  '/>',
  '<@',
  '</@',
  '[#',
  '[/#',
  ']',
  '[=',
  '(',
  ')',
  '[',
  '"',
  "'",
  '?',
  '??',
  '!',
  ',',
  ';',
  '..',
  '..<',
  '..*',
  '->',
  '=',
  '==',
  '!=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&&',
  '||',
  'x',
  'n',
  's',
  'seq',
  'h',
  'date',
  'nil',
  '.now',
  '.vars',
  '.locale',
  '1',
  '0',
  '-1',
  '1.5',
  '1e3',
  '<#if n > 1>',
  '<#else>',
  '</#if>',
  '<#list seq as i>',
  '${i}',
  '<#sep>',
  '</#list>',
  '<#items as i>',
  '<#assign x = 1>',
  '<#local y = 2>',
  '<#global z = 3>',
  '<#macro m a b=2>',
  '</#macro>',
  '<@m a=1/>',
  '<#nested>',
  '<#return>',
  '<#function f x>',
  '<#return x * 2>',
  '</#function>',
  '${f(2)}',
  '<#break>',
  '<#continue>',
  '<#switch n>',
  '<#case 42>',
  '<#default>',
  '</#switch>',
  '<#on 1>',
  '<#attempt>',
  '<#recover>',
  '</#attempt>',
  '<#compress>',
  '</#compress>',
  '<#t>',
  '<#lt>',
  '<#rt>',
  '<#nt>',
  '<#noparse>',
  '</#noparse>',
  '<#-- c -->',
  '<#ftl>',
  '<#setting locale="de_DE">',
  '<#stop>',
  '<#include "x.ftl">',
  '<#import "x.ftl" as lib>',
  '<#outputformat "HTML">',
  '</#outputformat>',
  '<#autoesc>',
  '</#autoesc>',
  '<#noautoesc>',
  '</#noautoesc>',
  '<#escape x as x?html>',
  '</#escape>',
  '<#visit>',
  '<#recurse>',
  '<#flush>',
  '<#macro r d><#if d < 100><@r d+1/></#if></#macro><@r 0/>',
  '?c',
  '?string',
  '?string("0.##")',
  '?string.currency',
  '?html',
  '?js_string',
  '?json_string',
  '?url',
  '?upper_case',
  '?cap_first',
  '?length',
  '?size',
  '?keys',
  '?values',
  '?first',
  '?last',
  '?reverse',
  '?sort',
  '?sort_by("a")',
  '?join(",")',
  '?seq_contains(1)',
  '?chunk(2)',
  '?split(",")',
  '?replace("l", "L")',
  '?matches("[a-z]+")',
  '?eval',
  '?eval_json',
  '?interpret',
  '?number',
  '?abs',
  '?round',
  '?floor',
  '?is_number',
  '?has_content',
  '?then(1, 2)',
  '?switch(1, "a", "b")',
  '?filter(i -> i?is_number)',
  '?map(i -> i)',
  '?take_while(i -> true)',
  '?no_esc',
  '?esc',
  '?date',
  '?time',
  '?datetime',
  '?iso_utc',
  '?string.iso',
  '?string("yyyy-MM-dd HH:mm")',
  '?left_pad(5)',
  '?substring(1)',
  '?index_of("l")',
  '?trim',
  '?word_list',
  '?boolean',
  '?new()',
  '?api',
  '?node_type',
  '?with_args({})',
  '?absolute_template_name',
  '[0]',
  '[1..2]',
  '["a"]',
  '{"a": 1}',
  '[1, 2]',
  'r"raw"',
  '"a${n}b"',
  '1..',
  '(1..)',
  '?is_enumerable',
  '?ensure_starts_with("a")',
];

/** A small deterministic PRNG (mulberry32), so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(src: string, r: () => number): string {
  let s = src;
  const ops = 1 + Math.floor(r() * 4);
  for (let k = 0; k < ops; k++) {
    const i = Math.floor(r() * (s.length + 1));
    const j = Math.min(s.length, i + Math.floor(r() * 12));
    switch (Math.floor(r() * 6)) {
      case 0: // delete a span
        s = s.slice(0, i) + s.slice(j);
        break;
      case 1: // duplicate a span
        s = s.slice(0, j) + s.slice(i, j) + s.slice(j);
        break;
      case 2: // splice a fragment
      case 3:
        s = s.slice(0, i) + FRAGMENTS[Math.floor(r() * FRAGMENTS.length)] + s.slice(i);
        break;
      case 4: {
        // swap two characters
        const a = s.charAt(i);
        s = s.slice(0, i) + s.charAt(j) + s.slice(i + 1, j) + a + s.slice(j + 1);
        break;
      }
      default: // cut off the end
        s = s.slice(0, i);
    }
  }
  return s;
}

const templates: Record<string, string> = {
  'x.ftl': '<#macro m>[m]</#macro><#assign v = 1>${n}',
  'loop.ftl': '<#include "loop.ftl">',
};

type Outcome = { kind: 'output'; output: string } | { kind: 'error'; error: TemplateError };

/** Parses and renders `src`; anything but output or a TemplateError fails the test with the source. */
async function run(src: string, data: unknown = DATA): Promise<Outcome> {
  const start = performance.now();
  let outcome: Outcome;
  try {
    const t = compile(src, { name: 'fuzz.ftl' });
    const output = await t.render(data as Record<string, unknown>, {
      limits: LIMITS,
      loader: { load: (n) => templates[n] },
    });
    outcome = { kind: 'output', output };
  } catch (e) {
    if (!(e instanceof TemplateError)) {
      throw new Error(`non-TemplateError ${String(e)} for template ${JSON.stringify(src.slice(0, 300))}`, {
        cause: e,
      });
    }
    expect(typeof e.line).toBe('number');
    expect(typeof e.templateName).toBe('string');
    outcome = { kind: 'error', error: e };
  }
  const ms = performance.now() - start;
  if (ms > MAX_MS) throw new Error(`took ${ms.toFixed(0)} ms: ${JSON.stringify(src.slice(0, 300))}`);
  if (outcome.kind === 'output') expect(outcome.output.length).toBeLessThanOrEqual(LIMITS.maxOutputChars);
  return outcome;
}

describe('fuzz', () => {
  it('mutated corpus and suite templates end with output or a TemplateError', async () => {
    const r = rng(SEED);
    let errors = 0;
    for (let k = 0; k < RUNS; k++) {
      const seed = seeds[Math.floor(r() * seeds.length)];
      const o = await run(mutate(seed, r));
      if (o.kind === 'error') errors++;
    }
    // Both outcomes occur: the mutator is neither too gentle nor always fatal.
    expect(errors).toBeGreaterThan(RUNS / 10);
    expect(errors).toBeLessThan(RUNS);
  }, 120_000);

  it('random fragment soup ends with output or a TemplateError', async () => {
    const r = rng(SEED + 7);
    for (let k = 0; k < RUNS / 2; k++) {
      let s = '';
      const n = 1 + Math.floor(r() * 12);
      for (let i = 0; i < n; i++) s += FRAGMENTS[Math.floor(r() * FRAGMENTS.length)];
      await run(s);
    }
  }, 120_000);

  it('grammar-generated templates (fast-check) end with output or a TemplateError', async () => {
    const { expr, el } = fc.letrec((tie) => ({
      atom: fc.oneof(
        fc.constantFrom('n', 's', 'd', 'neg', 'b', 'seq', 'h', 'h.nested', 'date', 'empty', 'nil', 'missing'),
        fc.integer({ min: -1000, max: 1000 }).map(String),
        fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => String(Math.abs(x) % 1e6)),
        fc.string({ maxLength: 6 }).map((x) => JSON.stringify(x)),
        fc.constantFrom('true', 'false', '[1, "a", 2.5]', '{"k": 1, "v": "w"}', '1..5', '0..<3'),
      ),
      expr: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        tie('atom') as fc.Arbitrary<string>,
        fc
          .tuple(
            tie('expr') as fc.Arbitrary<string>,
            fc.constantFrom('+', '-', '*', '/', '%', '==', '!=', '<', '>=', '&&', '||', '..'),
            tie('expr') as fc.Arbitrary<string>,
          )
          .map(([a, op, b]) => `(${a} ${op} ${b})`),
        fc
          .tuple(
            tie('expr') as fc.Arbitrary<string>,
            fc.constantFrom(...FRAGMENTS.filter((f) => f.startsWith('?'))),
          )
          .map(([a, bi]) => `${a}${bi}`),
        fc
          .tuple(tie('expr') as fc.Arbitrary<string>, tie('expr') as fc.Arbitrary<string>)
          .map(([a, b]) => `${a}[${b}]`),
        fc
          .tuple(tie('expr') as fc.Arbitrary<string>, tie('expr') as fc.Arbitrary<string>)
          .map(([a, b]) => `${a}!${b}`),
        (tie('expr') as fc.Arbitrary<string>).map((a) => `!${a}`),
        (tie('expr') as fc.Arbitrary<string>).map((a) => `(${a})??`),
      ),
      el: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.string({ maxLength: 8 }),
        (tie('expr') as fc.Arbitrary<string>).map((e) => '${' + e + '}'),
        fc
          .tuple(
            tie('expr') as fc.Arbitrary<string>,
            tie('el') as fc.Arbitrary<string>,
            tie('el') as fc.Arbitrary<string>,
          )
          .map(([c, a, b]) => `<#if ${c}>${a}<#else>${b}</#if>`),
        fc
          .tuple(tie('expr') as fc.Arbitrary<string>, tie('el') as fc.Arbitrary<string>)
          .map(([c, a]) => `<#list ${c} as it>${a}\${it}<#sep>,</#list>`),
        fc
          .tuple(tie('expr') as fc.Arbitrary<string>, tie('el') as fc.Arbitrary<string>)
          .map(([c, a]) => `<#assign v = ${c}>${a}\${v!}`),
        fc
          .tuple(tie('el') as fc.Arbitrary<string>, tie('el') as fc.Arbitrary<string>)
          .map(([a, b]) => `<#macro mm p=1>${a}<#nested p></#macro><@mm; q>${b}</@mm>`),
        fc
          .tuple(tie('el') as fc.Arbitrary<string>, tie('el') as fc.Arbitrary<string>)
          .map(([a, b]) => `<#attempt>${a}<#recover>${b}</#attempt>`),
        fc.tuple(tie('el') as fc.Arbitrary<string>, tie('el') as fc.Arbitrary<string>).map(([a, b]) => a + b),
      ),
    }));
    void expr;
    await fc.assert(
      fc.asyncProperty(el as fc.Arbitrary<string>, async (src) => {
        await run(src);
      }),
      { numRuns: Math.max(100, Math.floor(RUNS / 3)), seed: SEED },
    );
  }, 120_000);

  it('asynchronous methods survive the same mutations', async () => {
    const asyncData = new Map<string, unknown>([
      ...DATA,
      ['af', (x: unknown) => Promise.resolve(x)],
      ['rej', () => Promise.reject(new Error('rejected'))],
    ]);
    const asyncSeeds = [
      '<#list seq as i>${af(i)!"-"}<#sep>, </#list>',
      '<#macro m x>${af(x)}<#nested af(x)></#macro><@m 1; y>${y}</@m>',
      '<#function f x><#return af(x) + 1></#function>${f(2)}${rej()!"r"}',
      '<#attempt>${rej()}<#recover>${af("rec")}</#attempt>',
      '<#assign v = af(h)>${v.a}${(af(seq)?size > 2)?c}',
    ];
    const r = rng(SEED + 99);
    for (let k = 0; k < RUNS / 5; k++) {
      await run(mutate(asyncSeeds[Math.floor(r() * asyncSeeds.length)], r), asyncData);
    }
  }, 120_000);

  it('pathological templates end quickly with a TemplateError', async () => {
    const hazards = [
      '${"x"?left_pad(100000000)}',
      '<#assign s = "x"><#list 1..40 as i><#assign s = s + s></#list>${s?length}',
      '<#assign s = "x"><#list 1..40 as i><#assign s = "${s}${s}"></#list>${s?length}',
      '<#assign s = [1]><#list 1..40 as i><#assign s = s + s></#list>${s?size}',
      '<#assign h = {}><#list 1..100000 as i><#assign h = h + {i?c: i}></#list>${h?size}',
      '${(1..100000000)?join(",")}',
      // ?map of a range knows its size without mapping (FreeMarker's lazy result); ?filter must count
      '${(1..10000000)?filter(x -> true)?size}',
      '${(1..)?filter(x -> x < 0)?first!"none"}',
      '<#assign evens = (1..)?filter(x -> x % 2 == 0)>',
      '${(1..)?join(",")}',
      '${"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"?matches("(a+)+b")?c}z${(1..)?size / 0}',
      '<#macro r><@r/></#macro><@r/>',
      '<#function f n><#return f(n + 1)></#function>${f(0)}',
      '<#assign t = "\\${t?eval}">${t?eval}',
      '<#assign src = "<#assign x = src?interpret><@x/>"><#assign x = src?interpret><@x/>',
      '<#include "loop.ftl">',
      '<#list 1.. as i>${i}</#list>',
      '${' + '('.repeat(5000) + '1' + ')'.repeat(5000) + '}',
      '<#if true>'.repeat(3000),
      '${' + '-'.repeat(20000) + '1}',
      '${a' + '.b'.repeat(20000) + '}',
      '${x' + '!'.repeat(5000) + '}',
    ];
    for (const src of hazards) {
      const o = await run(src);
      expect(o.kind, src.slice(0, 80)).toBe('error');
    }
  }, 60_000);
});
