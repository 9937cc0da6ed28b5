/**
 * Issue 13, bounded template evaluation: values a template builds are charged to the evaluation's
 * budget before they exist, and printing or serialising shared (DAG) structure stops at the limit
 * instead of exhausting the heap. Through `flowmark render` (the built CLI) and POST /api/v1/eval.
 *
 * Both run here with an eighth of the default memory and output (FLOWMARK_EVAL_MEMORY and
 * FLOWMARK_EVAL_OUTPUT_CHARS; the eval host's evaluation limits), the sizes scaled with them: each
 * template overshoots its limit by the same factor as it would at the defaults.
 */
import { describe, expect, it } from 'vitest';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { useServer } from '../server/support.js';
import { evalOnServer, firstLine, renderCli } from './support.js';

/** A sequence of 2^30 leaves made of 30 arrays: [h, h] nested 30 times. */
const SEQ_DAG = '<#assign h = []><#list 1..30 as i><#assign h = [h, h]></#list>';
/** The same with hash concatenation. */
const HASH_DAG = '<#assign h = {}><#list 1..30 as i><#assign h = h + {"a": h, "b": h}></#list>';
const LIMITS = { FLOWMARK_EVAL_MEMORY: '32MiB', FLOWMARK_EVAL_OUTPUT_CHARS: '2500000' };
/** A 2M-character string (a rope of 21 doublings). */
const BIG = '<#assign s = "x"><#list 1..21 as i><#assign s = s + s></#list>';

const PRINT_STOPPED =
  'Template execution stopped: printing a hash or sequence as JSON: the output would exceed the limit of 2500000 characters for one evaluation.';
/** One text a function writes is one string: the per-string (output) limit binds first. */
const text = (what: string) =>
  `Template execution stopped: ${what}: the output would exceed the limit of 2500000 characters for one evaluation.`;
const memory = (what: string, limit = '32 MB') =>
  `Template execution stopped: ${what}: the value would exceed the ${limit} limit for one evaluation.`;

/** [template, first line of the error] */
const REFUSED: [string, string][] = [
  [`${SEQ_DAG}\${h}`, PRINT_STOPPED],
  [`${HASH_DAG}\${h}`, PRINT_STOPPED],
  [`${SEQ_DAG}\${"x" + h}`, PRINT_STOPPED],
  [`${SEQ_DAG}\${P_json_stringify(h)?length}`, text('P_json_stringify')],
  [`${HASH_DAG}\${P_json_stringify(h)?length}`, text('P_json_stringify')],
  [`${SEQ_DAG}\${to_xml("r", {"h": h})?length}`, text('to_xml')],
  [`${SEQ_DAG}\${json_to_csv([h])?length}`, text('json_to_csv')],
  [
    `${BIG}<#assign keep = []><#list 1..300 as i><#assign keep = keep + [s?replace("x", "y" + i, "f")]></#list>\${keep?size}`,
    memory('?replace'),
  ],
  [
    `${BIG}<#assign keep = []><#list 1..300 as i><#assign keep = keep + [s?upper_case]></#list>\${keep?size}`,
    memory('?upper_case'),
  ],
  [`${BIG}\${s?split("")?size}`, memory('?split')],
  // a long rope that is not an accumulator is charged whole: a built-in reading it copies it flat
  [
    `${BIG}<#assign keep = []><#list 1..300 as i><#assign keep = keep + [s + i]></#list>\${keep?size}`,
    memory('string concatenation'),
  ],
  [
    '<#assign keep = []><#list 1..100 as i><#assign keep = keep + [(1..500000)?reverse]></#list>${keep?size}',
    memory('?reverse'),
  ],
  [
    '<#assign s = "x"><#list 1..40 as i><#assign s = s + s></#list>${s?length}',
    'Template execution stopped: a string of 4194304 characters exceeds the output limit (2500000).',
  ],
  [
    '<#assign csv = "a,b,c,d\\n"><#list 1..18 as i><#assign csv = csv + csv></#list>${csv_to_json(csv)?length}',
    memory('csv_to_json'),
  ],
];

/** [template, output]: the same constructions, small, or built the ordinary way, still work. */
const ALLOWED: [string, string][] = [
  [
    '<#assign h = [1]><#list 1..3 as i><#assign h = [h, h]></#list>${h} ${P_json_stringify(h)}',
    '[[[[1],[1]],[[1],[1]]],[[[1],[1]],[[1],[1]]]] [[[[1],[1]],[[1],[1]]],[[[1],[1]],[[1],[1]]]]',
  ],
  [
    '<#assign h = {"n": 1}><#list 1..2 as i><#assign h = h + {"a": h}></#list>${h}',
    '{"n":1,"a":{"n":1,"a":{"n":1}}}',
  ],
  [`${SEQ_DAG}\${P_to_array({"k": h}, "k")?size}`, '2'],
  // building a list item by item is charged its final size, not every copy (10000 items: 400 MB of copies)
  ['<#assign l = []><#list 1..10000 as i><#assign l = l + [i]></#list>${l?size?c}', '10000'],
  ['<#assign h = {}><#list 1..2000 as i><#assign h = h + {i?c: i}></#list>${h?size?c}', '2000'],
  // s = s + x is charged what it appends: 1 MB of text in 100000 appends
  ['<#assign s = ""><#list 1..100000 as i><#assign s = s + "0123456789"></#list>${s?length?c}', '1000000'],
  ['<#assign h = []><#list 1..10000 as i><#assign h = [h]></#list>${P_json_stringify(h)?length}', '206'],
];

describe('template budget: flowmark render', () => {
  it.each(REFUSED)('refuses %s', async (template, message) => {
    const r = await renderCli(template, LIMITS);
    expect(firstLine(r.err)).toBe(message);
    expect(r.out).toBe('');
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(5000);
  });

  it.each(ALLOWED)('renders %s', async (template, output) => {
    const r = await renderCli(template, LIMITS);
    expect(r.err).toBe('');
    expect(r.out).toBe(output);
  });

  it('takes the allocation limit from FLOWMARK_EVAL_MEMORY', async () => {
    const r = await renderCli('${""?left_pad(600000)?length}', { FLOWMARK_EVAL_MEMORY: '1MiB' });
    expect(firstLine(r.err)).toBe(memory('?left_pad', '1 MB'));
    const fits = await renderCli('${""?left_pad(400000)?length?c}', { FLOWMARK_EVAL_MEMORY: '1MiB' });
    expect(fits.out).toBe('400000');
  });

  it('charges a document load parses before parsing it', async () => {
    const r = await renderCli(`${BIG}\${load(s, "XML")?size}`, { FLOWMARK_EVAL_MEMORY: '8MiB' });
    expect(firstLine(r.err)).toBe(memory('load', '8 MB'));
    expect(r.ms).toBeLessThan(5000);
  });

  it('keeps a bad-quote error short: the quoted field is cut to 64 characters', async () => {
    const r = await renderCli(`${BIG}\${csv_to_json("a,b\\n" + s + "\\"z")}`, LIMITS);
    expect(firstLine(r.err)).toBe(
      `csv_to_json: argument 1 (input) invalid CSV: Invalid Opening Quote: a quote is found on field 0 at line 2, value is "${'x'.repeat(64)}…"`,
    );
    expect(r.err.length).toBeLessThan(2000);
  });
});

describeEachEngine('template budget: POST /api/v1/eval', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: evalHost(platform, {
      limits: { evaluation: { maxAllocBytes: 32 * 1024 * 1024, maxOutputChars: 2_500_000 } },
    }),
  }));

  it.each(REFUSED.filter((_, i) => i % 2 === 0))(
    'refuses %s, /health answering',
    async (template, message) => {
      const r = await evalOnServer(server, template);
      expect(firstLine(r.error!.message)).toBe(message);
      expect(r.error!.kind).toBe('LimitExceeded');
      expect(r.output).toBe('');
      expect(r.ms).toBeLessThan(5000);
    },
  );

  it('refuses variables left holding shared structure, which the response would print', async () => {
    const r = await evalOnServer(server, `${SEQ_DAG}done`);
    expect(r.error).toMatchObject({
      kind: 'LimitExceeded',
      message:
        'Template execution stopped: the variables the template set: the output would exceed the limit of 2500000 characters for one evaluation.',
    });
    expect(r.variables).toEqual({});
    expect(r.ms).toBeLessThan(5000);
  });

  it('returns small shared structure in the variables', async () => {
    const r = await evalOnServer(server, '<#assign h = [1]><#assign h = [h, h]>${h}');
    expect(r.error).toBeUndefined();
    expect(r.output).toBe('[[1],[1]]');
    expect(r.variables).toEqual({ h: [[1], [1]] });
  });
});
