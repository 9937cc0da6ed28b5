/**
 * Issue 25, families 3 and 5: steps weighted by work and budget gaps of the template engine.
 * String built-ins on huge strings count by length, hash `+` by the entries copied, a call more
 * than a directive; sequence built-ins that copy are charged before they build; an escaping
 * built-in's result (up to 6× its input, 12× for `?url`) is checked against the per-string limit
 * before it is built. Through `flowmark render` (the built CLI).
 *
 * The CLI runs here with an eighth of the default steps, memory and output (FLOWMARK_EVAL_STEPS,
 * FLOWMARK_EVAL_MEMORY, FLOWMARK_EVAL_OUTPUT_CHARS), every size scaled with them: each template
 * passes or overshoots its limit by the same factor as it would at the defaults, in a fraction
 * of the work.
 */
import { describe, expect, it } from 'vitest';
import { firstLine, renderCli } from './support.js';

const LIMITS = {
  FLOWMARK_EVAL_STEPS: '625000',
  FLOWMARK_EVAL_MEMORY: '32MiB',
  FLOWMARK_EVAL_OUTPUT_CHARS: '2500000',
};
/** 524,288 copies of `c` (a rope of 19 doublings). */
const big = (c: string) => `<#assign s = "${c}"><#list 1..19 as i><#assign s = s + s></#list>`;
/** "ab" × 1,048,576: a 2.1M-character string. */
const HUGE = '<#assign s = "ab"><#list 1..20 as i><#assign s = s + s></#list>';
const STEPS = 'Template execution stopped: the render exceeded 625000 steps.';
const memory = (what: string) =>
  `Template execution stopped: ${what}: the value would exceed the 32 MB limit for one evaluation.`;
const tooLong = (n: number) =>
  `Template execution stopped: a string of ${n} characters exceeds the output limit (2500000).`;

const REFUSED: [string, string][] = [
  // string built-ins read their whole target: a loop over a 2.1M-character string
  [`${HUGE}<#list 1..1000 as i><#if s?matches(".*c.*")>y</#if></#list>`, STEPS],
  [`${HUGE}<#list 1..1000 as i>\${s?index_of("c")}</#list>`, STEPS],
  [`${HUGE}<#list 1..1000 as i>\${s?contains("c")?c}</#list>`, STEPS],
  [`${HUGE}<#list 1..1000 as i><#assign n = s?replace("c", "d")?length></#list>`, STEPS],
  // hash + copies every entry; a doubly recursive function
  ['<#assign h = {}><#list 1..100000 as i><#assign h = h + {i?c: i}></#list>${h?size}', STEPS],
  ['<#function f n><#if n == 0><#return 0></#if><#return f(n-1) + f(n-1)></#function>${f(25)}', STEPS],
  // sequence built-ins that copy are charged before they build
  ['<#assign x = (1..625000)?chunk(1)>${x?size}', memory('?chunk')],
  [
    '<#assign k = []><#list 1..100 as i><#assign k = k + [(1..500000)?sort]></#list>${k?size}',
    memory('?sort'),
  ],
  [
    '<#assign l = (1..375000)?map(x -> x)><#assign k = []><#list 1..100 as i><#assign k = k + [l?reverse]></#list>${k?size}',
    memory('?reverse'),
  ],
  // escaping: 524,288 characters that each escape to 6 (&quot;, \u0000 …) or 9 (%E2%82%AC)
  [`${big('\\"')}\${s?html?length}`, tooLong(3145728)],
  [`${big("'")}\${s?xml?length}`, tooLong(3145728)],
  [`${big('\\"')}\${s?xhtml?length}`, tooLong(3145728)],
  [`${big('\\x2028')}\${s?js_string?length}`, tooLong(3145728)],
  [`${big('\\x01')}\${s?json_string?length}`, tooLong(3145728)],
  [`${big('\\x01')}\${s?j_string?length}`, tooLong(3145728)],
  [`${big('€')}\${s?url("UTF-8")?length}`, tooLong(4718592)],
  [`${big('€')}\${s?url_path("UTF-8")?length}`, tooLong(4718592)],
  // escapes that fit one string still add up in memory
  [
    `${big('<')}<#assign k = []><#list 1..20 as i><#assign k = k + [s?html]></#list>\${k?size}`,
    memory('?html'),
  ],
];

/** The same built-ins on ordinary sizes: unchanged results. */
const ALLOWED: [string, string][] = [
  [`${big('<')}\${s?html?length?c} \${s?xml?length?c}`, '2097152 2097152'],
  [
    '<#assign s = "a<b\\"\'&"><#list 1..10 as i><#assign s = s + s></#list>${s?html?length?c} ${s?url("UTF-8")?length?c} ${s?js_string?length?c}',
    '22528 12288 8192',
  ],
  [
    '${"a<b"?html} ${"a b/€"?url("UTF-8")} ${"a b/€"?url_path("UTF-8")} ${"\\x01\\""?js_string} ${"{x}"?rtf}',
    'a&lt;b a%20b%2F%E2%82%AC a%20b/%E2%82%AC \\x01\\" \\{x\\}',
  ],
  ['<#assign h = {}><#list 1..600 as i><#assign h = h + {i?c: i}></#list>${h?size?c}', '600'],
  ['<#function f n><#if n == 0><#return 1></#if><#return f(n-1) + f(n-1)></#function>${f(12)?c}', '4096'],
  [
    '${(1..10)?chunk(4)?size} ${[3, 1, 2]?sort?join(",")} ${[3, 1, 2]?reverse?join(",")} ${(1..3)?map(x -> x * 2)?join(",")}',
    '3 1,2,3 2,1,3 2,4,6',
  ],
];

describe('template work and budget gaps: flowmark render', () => {
  it.each(REFUSED)('refuses %s', async (template, message) => {
    const r = await renderCli(template, LIMITS);
    expect(firstLine(r.err)).toBe(message);
    expect(r.out).toBe('');
    expect(r.ms).toBeLessThan(15_000);
  });

  it.each(ALLOWED)('renders %s', async (template, output) => {
    const r = await renderCli(template, LIMITS);
    expect(r.err).toBe('');
    expect(r.out).toBe(output);
  });
});
