/**
 * The render fast paths (issue 20) give what the general paths gave: a #function that is only
 * `<#return expr>` (no ReturnSignal thrown), HTML/XML escaping by char-code scan, ?eval_json's
 * run-at-a-time string and number reading. Expected values are the outputs and messages of the
 * build before these paths existed.
 */
import { describe, expect, it } from 'vitest';
import { compile, TemplateError } from '../../src/template/index.js';

async function messageOf(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TemplateError);
  return (e as TemplateError).message;
}

const render = (src: string, data: Record<string, unknown> = {}) => compile(src).render(data);

const MISSING_TIP =
  "Tip: If the failing expression is known to legally refer to something that's sometimes null or missing, either specify a default value like myOptionalVar!myDefault, or use <#if myOptionalVar??>when-present<#else>when-missing</#if>. (These only cover the last step of the expression; to cover the whole expression, use parenthesis: (myOptionalVar.foo)!myDefault, (myOptionalVar.foo)??\n----\n";
const DOT_TIP = "Tip: It's the step after the last dot that caused this error, not those before it.\n----\n";
const stack = (line: string) =>
  `\n----\nFTL stack trace ("~" means nesting-related):\n\t- Failed at: ${line}\n----`;

describe('a #function whose body is only <#return expr>', () => {
  it('gives the value, with or without stripped white-space around the #return', async () => {
    expect(await render('<#function f x><#return x * 2></#function>${f(21)}')).toBe('42');
    expect(await render('<#function f x>\n  <#return x * 2>\n</#function>\n${f(21)}')).toBe('42');
  });

  it('reports a missing value at the #return, inside the function', async () => {
    expect(await messageOf(render('<#function f x><#return x.missing></#function>${f({})}'))).toBe(
      'The following has evaluated to null or missing:\n==> x.missing  [in template "template" at line 1, column 25]\n\n----\n' +
        DOT_TIP +
        MISSING_TIP +
        stack('#return x.missing  [in template "template" in function "f" at line 1, column 16]'),
    );
    expect(await messageOf(render('<#function f x>\n  <#return x.missing>\n</#function>\n${f({})}'))).toBe(
      'The following has evaluated to null or missing:\n==> x.missing  [in template "template" at line 2, column 12]\n\n----\n' +
        DOT_TIP +
        MISSING_TIP +
        stack('#return x.missing  [in template "template" in function "f" at line 2, column 3]'),
    );
  });

  it('waits for a method that returns a Promise, and reports its missing result', async () => {
    const slow = (x: number) => Promise.resolve(x * 10);
    expect(await render('<#function f x><#return slow(x)></#function>${f(1)}-${f(2)}', { slow })).toBe(
      '10-20',
    );
    const none = () => Promise.resolve(undefined);
    expect(
      await messageOf(render('<#function f x><#return slow(x)></#function>${f(1)}', { slow: none })),
    ).toBe(
      'The following has evaluated to null or missing:\n==> slow(x)  [in template "template" at line 1, column 25]\n\n----\n' +
        MISSING_TIP +
        stack('#return slow(x)  [in template "template" in function "f" at line 1, column 16]'),
    );
  });

  it('still checks the argument count', async () => {
    expect(await messageOf(render('<#function f><#return 1></#function>${f(1)}'))).toBe(
      'Function "f" only accepts 0 parameters, but got 1.\n' +
        stack('${f(1)}  [in template "template" at line 1, column 37]'),
    );
  });
});

describe('markup escaping', () => {
  it('?html, ?xhtml and ?xml escape the five characters, and leave plain text alone', async () => {
    expect(
      await render(
        '${"<a href=\'x\'>&\\"</a>"?html} ${"<a href=\'x\'>&\\"</a>"?xml} ${"plain"?html} ${"x<"?html}${">y"?xhtml}',
      ),
    ).toBe(
      '&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt; &lt;a href=&apos;x&apos;&gt;&amp;&quot;&lt;/a&gt; plain x&lt;&gt;y',
    );
  });

  it('auto-escapes interpolations in the HTML and XML output formats', async () => {
    const s = 'Tom & "Jerry" <\'x\'>';
    expect(await render('<#ftl output_format="HTML">${s} ${"<&>"}', { s })).toBe(
      'Tom &amp; &quot;Jerry&quot; &lt;&#39;x&#39;&gt; &lt;&amp;&gt;',
    );
    expect(await render('<#ftl output_format="XML">${s}', { s })).toBe(
      'Tom &amp; &quot;Jerry&quot; &lt;&apos;x&apos;&gt;',
    );
  });
});

describe('?eval_json', () => {
  const evalJsonError = (what: string, shown = '${s?eval_json}') =>
    `Failed to "?eval_json" string with this error:\n\n---begin-message---\n${what}\n---end-message---\n\nThe failing expression:\nThe blamed expression:\n==> s?eval_json  [in template "template" at line 1, column 3]\n` +
    stack(`${shown}  [in template "template" at line 1, column 1]`);

  it('reads white-space, escapes, long strings and exact numbers', async () => {
    const s =
      ' {\n\t"a" : "x\\ty\\u0041\\"z\\\\", "b":"' +
      'long '.repeat(30) +
      '", "c": 1.50e2, "d": [true, null, 3], "e": 12345678901234567890}\r\n';
    expect(await render('<#assign j = s?eval_json>${j.a}|${j.b}|${j.c?c}|${j.d[2]}|${j.e?c}', { s })).toBe(
      `x\tyA"z\\|${'long '.repeat(30)}|150|3|12345678901234567890`,
    );
    expect(await render('${s?eval_json?c}', { s: '-0.25e-3' })).toBe('-0.00025');
  });

  it('says where a string goes wrong', async () => {
    expect(await messageOf(render('${s?eval_json}', { s: '{"a": "x\u0001y"}' }))).toBe(
      evalJsonError('Control character in string at line 1, column 10'),
    );
    expect(await messageOf(render('${s?eval_json}', { s: '{"a": "x' }))).toBe(
      evalJsonError('Unterminated string at line 1, column 9'),
    );
  });

  it('reads a number from at most 400 characters', async () => {
    const long = '1' + '0'.repeat(420);
    for (const s of [long, long + '.5']) {
      expect(await messageOf(render('${s?eval_json?c}', { s }))).toBe(
        evalJsonError('Unexpected content after the JSON value at line 1, column 401', '${s?eval_json?c}'),
      );
    }
  });
});

describe('string equality (Java Collator)', () => {
  it('compares plain ASCII exactly, and ignores zero-width and control characters otherwise', async () => {
    const src =
      '${(a == b)?c} ${(a == c)?c} ${(d == e)?c} ${(f == g)?c} ${(h == i)?c} ${x?switch("open", 1, "late", 2, 3)}';
    const data = {
      a: 'ab',
      b: 'a\u200bb',
      c: 'a\tb',
      d: 'e\u0301',
      e: '\u00e9',
      f: 'x\u0001',
      g: 'x',
      h: 'tab\there~',
      i: 'tab\there~',
      x: 'late',
    };
    expect(await render(src, data)).toBe('true false true true true 2');
  });
});

describe('the default number format (#,##0.###, half-even)', () => {
  it('rounds, groups and trims zeros like DecimalFormat', async () => {
    const xs = [
      0.5,
      -0.0001,
      1234567.125,
      0.0005,
      0.0015,
      1000.1,
      12.3456,
      -1234.5,
      999.9995,
      -0.0005,
      100,
      1e21,
      5e-7,
      0.1 + 0.2,
    ];
    const ss = ['0.000', '10.500', '0.0005', '-0.0004', '1234.5670', '0.25', '100.0', '-1000000.999'];
    const src = '<#list xs as x>${x}|</#list>/<#list ss as s>${s?number}|${s?eval_json}|</#list>';
    expect(await render(src, { xs, ss })).toBe(
      '0.5|-0|1,234,567.125|0|0.002|1,000.1|12.346|-1,234.5|1,000|-0|100|1,000,000,000,000,000,000,000|0|0.3|' +
        '/0|0|10.5|10.5|0|0|-0|-0|1,234.567|1,234.567|0.25|0.25|100|100|-1,000,000.999|-1,000,000.999|',
    );
  });
});

describe('built-ins with literal arguments (prepared once)', () => {
  // expected: the outputs and messages of the build before these built-ins were prepared
  it("give the general path's results, and its errors on every call", async () => {
    expect(await messageOf(render('<#list 1..2 as i>${i?string("0.0.0")}</#list>', {}))).toBe(
      'Invalid number format pattern "0.0.0": Multiple decimal separators in pattern "0.0.0"\n\n----\nFTL stack trace ("~" means nesting-related):\n\t- Failed at: ${i?string("0.0.0")}  [in template "template" at line 1, column 18]\n\t~ Reached through: #list 1..2 as i  [in template "template" at line 1, column 1]\n----',
    );
    expect(await messageOf(render('<#list [1, "x"] as v>${v?string("0.00")}|</#list>', {}))).toBe(
      'For "...(...)" callee: Expected a method or function, but this has evaluated to a string (wrapper: f.t.SimpleScalar):\n==> v?string  [in template "template" at line 1, column 24]\n\n----\nFTL stack trace ("~" means nesting-related):\n\t- Failed at: ${v?string("0.00")}  [in template "template" at line 1, column 22]\n\t~ Reached through: #list [1, "x"] as v  [in template "template" at line 1, column 1]\n----',
    );
    expect(await messageOf(render('<#list ["a", "b"] as s>${s?matches("(")?c}</#list>', {}))).toBe(
      'Malformed regular expression: Invalid regular expression: /(/g: Unterminated group\n\n----\nFTL stack trace ("~" means nesting-related):\n\t- Failed at: ${s?matches("(")?c}  [in template "template" at line 1, column 24]\n\t~ Reached through: #list ["a", "b"] as s  [in template "template" at line 1, column 1]\n----',
    );
    expect(await render('<#list ["a;b", 3] as s>${s?split(";")?join("|")}</#list>', {})).toBe('a|b3');
    expect(await render('<#list ["a b", 1.5] as s>${s?url("UTF-8")} </#list>', {})).toBe('a%20b 1.5 ');
    expect(await messageOf(render('${s?url("UTF-8")}', {}))).toBe(
      'The following has evaluated to null or missing:\n==> s  [in template "template" at line 1, column 3]\n\n----\nTip: If the failing expression is known to legally refer to something that\'s sometimes null or missing, either specify a default value like myOptionalVar!myDefault, or use <#if myOptionalVar??>when-present<#else>when-missing</#if>. (These only cover the last step of the expression; to cover the whole expression, use parenthesis: (myOptionalVar.foo)!myDefault, (myOptionalVar.foo)??\n----\n\n----\nFTL stack trace ("~" means nesting-related):\n\t- Failed at: ${s?url("UTF-8")}  [in template "template" at line 1, column 1]\n----',
    );
    expect(await messageOf(render('${"a"?left_pad(3, "")}', {}))).toBe(
      '?left_pad(...) argument #2 can\'t be a 0-length string.\n\n----\nFTL stack trace ("~" means nesting-related):\n\t- Failed at: ${"a"?left_pad(3, "")}  [in template "template" at line 1, column 1]\n----',
    );
    expect(
      await messageOf(
        render('<#list [d, d2] as x>${x?string("yyyy")}|</#list>', { d: new Date(0), d2: 'no date' }),
      ),
    ).toBe(
      'For "...(...)" callee: Expected a method or function, but this has evaluated to a string (wrapper: f.t.SimpleScalar):\n==> x?string  [in template "template" at line 1, column 23]\n\n----\nFTL stack trace ("~" means nesting-related):\n\t- Failed at: ${x?string("yyyy")}  [in template "template" at line 1, column 21]\n\t~ Reached through: #list [d, d2] as x  [in template "template" at line 1, column 1]\n----',
    );
    expect(await render('${n?string("0.00")}', { n: Number.NaN })).toBe('NaN');
  });
});
