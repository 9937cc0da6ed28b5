/**
 * Issue 13, regex backtracking in the template built-ins: patterns with back-references or
 * look-arounds (which V8's linear-time fallback cannot run) match in a worker thread; past the
 * evaluation's time limit the render ends with a clear error while the server keeps answering.
 * Here the limit is 1500 ms (FLOWMARK_EVAL_TIME_MS, and the eval host's evaluation limits); the
 * catastrophic patterns (which would run for minutes) are stopped by the CLI at 500 ms, and by the
 * regex cap at 500 ms, to keep the wait short. The ordinary results keep the longer limits: their
 * regex worker may take longer than 500 ms to start on a loaded machine.
 */
import { describe, expect, it } from 'vitest';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { useServer } from '../server/support.js';
import { evalOnServer, firstLine, renderCli } from './support.js';

const A30 = 'a'.repeat(29) + 'c';
const TIME = { FLOWMARK_EVAL_TIME_MS: '1500' };
const SHORT_TIME = { FLOWMARK_EVAL_TIME_MS: '500' };
const stopped = (builtin: string, ms = 1500) =>
  `Template execution stopped: ?${builtin}: the evaluation exceeded its time limit of ${ms} ms.`;

/** [template, first line of the error] */
const CATASTROPHIC: [string, string][] = [
  [`\${"${A30}"?matches("(a+)+\\\\1b")?c}`, stopped('matches')],
  [`<#if "${A30}"?matches("(?=(a+)+b)")>y</#if>`, stopped('matches')],
  [`\${"x${A30}"?replace("(?<=b(a+)+)c", "x", "r")}`, stopped('replace')],
  [`\${"${A30}"?split("(a+)+\\\\1b", "r")?size}`, stopped('split')],
  [`\${"${A30}"?keep_after("(?<!x(a+)+)c", "r")}`, stopped('keep_after')],
  [`\${"${A30}"?keep_before_last("(a+)+(?=b)", "r")}`, stopped('keep_before_last')],
  [`\${"${A30}"?ensure_starts_with("(a+)+\\\\1b", "x", "r")}`, stopped('ensure_starts_with')],
];

/** [template, output]: the same built-ins on ordinary input give Java's results. */
const RESULTS: [string, string][] = [
  [
    '${"abcabc"?matches("(abc)\\\\1")?c} ${"xabcabcy"?replace("(abc)\\\\1", "<$1>", "r")} <#list "a1b22c"?split("(?<=\\\\d)", "r") as p>[${p}]</#list>',
    'true x<abc>y [a1][b2][2][c]',
  ],
  [
    '<#list "ab12cd34"?matches("(?<=[a-z])(\\\\d)") as m>${m}:${m?groups[1]} </#list>${"a-b-c"?keep_after_last("(?<=-)", "r")}|${"foo"?ensure_starts_with("(?=f)", "x", "r")}',
    '1:1 3:3 c|foo',
  ],
  [
    '<#assign m = "aabb"?matches("(.)\\\\1(.)\\\\2")>${m?c} ${m?groups[2]} <#list ["aa", "ab"] as w>${w?matches("(.)\\\\1")?c} </#list>',
    'true b true false ',
  ],
  // without back-references or look-arounds V8's linear engine takes over: no worker, no wait
  [`\${"${A30}"?matches("(a+)+b")?c}`, 'false'],
];

describe('regex built-ins: flowmark render', () => {
  it.each(CATASTROPHIC)('stops %s at the time limit', async (template) => {
    const r = await renderCli(template, SHORT_TIME);
    const builtin = /\?(\w+)\(/.exec(template)![1]!;
    expect(firstLine(r.err)).toBe(stopped(builtin, 500));
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(5000);
  });

  it.each(RESULTS)('renders %s', async (template, output) => {
    const r = await renderCli(template, TIME);
    expect(r.err).toBe('');
    expect(r.out).toBe(output);
  });
});

describe('issue 25: a regex has its own time cap (FLOWMARK_REGEX_TIME_MS), within the evaluation’s', () => {
  it.each(CATASTROPHIC.slice(0, 4))(
    'stops %s at the regex limit, long before the evaluation’s 60 s',
    async (template) => {
      const r = await renderCli(template, { FLOWMARK_REGEX_TIME_MS: '500' });
      const builtin = /\?(\w+)\(/.exec(template)![1]!;
      expect(firstLine(r.err)).toBe(
        `Template execution stopped: ?${builtin}: the regular expression ran longer than its limit of 500 ms (FLOWMARK_REGEX_TIME_MS).`,
      );
      expect(r.ms).toBeGreaterThan(450);
      expect(r.ms).toBeLessThan(10_000); // the evaluation's own limit is 60 s; a loaded machine starts the CLI slowly
    },
  );

  it('the ordinary results are unchanged under a short cap; a bad setting is named', async () => {
    const r = await renderCli(RESULTS[0]![0], { FLOWMARK_REGEX_TIME_MS: '1000' });
    expect(r.out).toBe(RESULTS[0]![1]);
    const bad = await renderCli('x', { FLOWMARK_REGEX_TIME_MS: 'soon' });
    expect(bad.err).toContain('FLOWMARK_REGEX_TIME_MS: expected an integer from 1 to 3600000, got "soon"');
  });
});

describeEachEngine('regex built-ins: POST /api/v1/eval', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: evalHost(platform, { limits: { evaluation: { wallTimeMs: 1500 } } }),
  }));

  it.each(CATASTROPHIC.slice(0, 3))('stops %s, /health answering meanwhile', async (template, message) => {
    const r = await evalOnServer(server, template);
    expect(firstLine(r.error!.message)).toBe(message);
    expect(r.error!.kind).toBe('LimitExceeded');
    expect(r.ms).toBeGreaterThan(1400);
    expect(r.ms).toBeLessThan(5000);
  });

  it('gives the same results off the main thread', async () => {
    for (const [template, output] of RESULTS) {
      const r = await evalOnServer(server, template);
      expect(r.error).toBeUndefined();
      expect(r.output).toBe(output);
    }
  });
});
