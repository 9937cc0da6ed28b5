import { describe, expect, it } from 'vitest';
import {
  compile,
  DIRECTIVE,
  FmDate,
  TemplateError,
  type CallEnv,
  type TemplateDirective,
} from '../../src/template/index.js';

async function errorOf(p: Promise<unknown>): Promise<TemplateError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TemplateError);
  return e as TemplateError;
}

const delay = <T>(v: T, ms = 1): Promise<T> => new Promise((r) => setTimeout(() => r(v), ms));

describe('methods (contract §1.1)', () => {
  it('calls JS functions with `this` = CallEnv and plain arguments', async () => {
    const seen: unknown[] = [];
    const fn = function (this: CallEnv, ...args: unknown[]) {
      seen.push({
        args,
        who: this.getVariable('who'),
        tpl: this.templateName,
        locale: this.locale,
        tz: this.timeZone,
      });
      return 'ok';
    };
    const out = await compile('<#assign who = "Ann">${f(1, 2.5, "s", [1, 0.5], {"k": true}, nope!)}', {
      name: 'm.ftl',
    }).render({ f: fn }, { locale: 'de_DE', timeZone: 'Europe/Paris' });
    expect(out).toBe('ok');
    expect(seen).toEqual([
      {
        args: [1, 2.5, 's', [1, 0.5], { k: true }, ''],
        who: 'Ann',
        tpl: 'm.ftl',
        locale: 'de_DE',
        tz: 'Europe/Paris',
      },
    ]);
  });

  it('awaits methods returning Promises, anywhere in an expression, once per call', async () => {
    let calls = 0;
    const data = {
      slow: (x: number) => {
        calls++;
        return delay(x * 2);
      },
      fast: (x: number) => x + 1,
    };
    const out = await compile(
      '${slow(1) + fast(1) + slow(2)} <#list [1, 2, 3] as i>${slow(i)}<#sep>,</#list> ${[1, 2]?map(x -> slow(x))?join("-")}',
    ).render(data);
    expect(out).toBe('8 2,4,6 2-4');
    expect(calls).toBe(7);
  });

  it('runs async calls inside macros, functions, includes, conditions and assignments', async () => {
    const t = compile(
      '<#function twice x><#return fetch(x) * 2></#function><#macro m><#if fetch(true)>[${twice(5)}]</#if></#macro>' +
        '<#assign v = fetch("a") + fetch("b")><@m/>${v}<#include "inc.ftl">',
    );
    const out = await t.render(
      { fetch: (x: unknown) => delay(x) },
      { loader: { load: async (n) => (n === 'inc.ftl' ? delay('{${fetch(42)}}') : undefined) } },
    );
    expect(out).toBe('[10]ab{42}');
  });

  it('loads .get_optional_template through a synchronous or asynchronous loader, the same way', async () => {
    const templates: Record<string, string> = {
      'inc.ftl': 'I${f(1)}',
      'lib.ftl': '<#assign v = f(7)><#macro m>M${v}</#macro>out',
      'sub/x.ftl': '<#assign o = .get_optional_template("y.ftl")>${o.exists?c}<@o.include/>',
      'sub/y.ftl': 'Y',
    };
    const source =
      '<#assign t = .get_optional_template("inc.ftl")>${t.exists?c}<@t.include/>|' +
      '${.get_optional_template("nope.ftl").exists?c}|' +
      '<#assign a = .get_optional_template("lib.ftl").import()><#assign b = .get_optional_template("lib.ftl").import()>' +
      '${a.v}<@b.m/>|<#import "lib.ftl" as l>${l.v}|<#include "sub/x.ftl">|' +
      '<@.get_optional_template("inc.ftl", {"parse": false}).include/>';
    const render = (later: boolean): Promise<string> =>
      compile(source).render(
        { f: (x: number) => (later ? delay(x) : x) },
        { loader: { load: (n) => (later ? delay(templates[n]) : templates[n]) } },
      );
    expect(await render(false)).toBe('trueI1|false|7M7|7|trueY|I${f(1)}');
    expect(await render(true)).toBe('trueI1|false|7M7|7|trueY|I${f(1)}');
  });

  it('lazy ?filter/?map chains call asynchronous methods once per item they generate', async () => {
    let calls = 0;
    const even = (x: number): Promise<boolean> => {
      calls++;
      return delay(x % 2 === 0);
    };
    const run = async (src: string): Promise<[string, number]> => {
      calls = 0;
      return [await compile(src).render({ even }), calls];
    };
    // inside an expression the chain is lazy, like FreeMarker's: (1..) ends at the first match
    expect(await run('${(1..)?filter(x -> even(x))?first}')).toEqual(['2', 2]);
    expect(await run('${[1, 2, 3, 4]?map(x -> even(x))?seq_contains(true)?c}')).toEqual(['true', 2]);
    // #list takes a chain whose lambdas call methods at once (an asynchronous call can only
    // suspend the expression being evaluated)
    expect(
      await run('<#list (1..10)?filter(x -> even(x)) as x>${x}<#if x == 4><#break></#if></#list>'),
    ).toEqual(['24', 10]);
  });

  it('ends the render with a TemplateError keeping the thrown message and cause; #attempt recovers', async () => {
    const boom = new Error('list_objects: argument 2 (collection) is required');
    const data = {
      f: () => Promise.reject(boom),
      g: () => {
        throw boom;
      },
    };
    const e1 = await errorOf(compile('x ${f()}', { name: 'a.ftl' }).render(data));
    expect(e1.message.split('\n')[0]).toBe('list_objects: argument 2 (collection) is required');
    expect([e1.cause, e1.templateName, e1.line, e1.column, e1.expression]).toEqual([
      boom,
      'a.ftl',
      1,
      5,
      'f()',
    ]);
    const e2 = await errorOf(compile('${g()}').render(data));
    expect(e2.cause).toBe(boom);
    expect(
      await compile('<#attempt>${f()}<#recover>R:${.error?keep_before("\n")}</#attempt>').render(data),
    ).toBe('R:list_objects: argument 2 (collection) is required');
  });

  it('converts results back: null is missing, Date is a date-time, bigint is a number', async () => {
    const data = { n: () => null, d: () => new Date(Date.UTC(2020, 0, 2)), b: () => 12345678901234567890n };
    expect(await compile('${n()!"missing"} ${d()?iso_utc} ${b()?c}').render(data)).toBe(
      'missing 2020-01-02T00:00:00Z 12345678901234567890',
    );
  });
});

describe('user-defined directives', () => {
  it('gets plain params, the raw body source and a body renderer', async () => {
    const seen: unknown[] = [];
    const script: TemplateDirective = {
      [DIRECTIVE]: true,
      async invoke(params, body, env) {
        seen.push({ params, source: body?.source, x: env.getVariable('x') });
        const rendered = await body!.render();
        env.setVariable!('result', rendered.trim());
        return `<${rendered.trim()}>`;
      },
    };
    const out = await compile(
      '<#assign x = 1.5><@script env="js" n=2>\n  a ${x} <#if true>b</#if>\n</@script>|${result}',
    ).render({ script });
    expect(out).toBe('<a 1.5 b>|a 1.5 b');
    expect(seen).toEqual([{ params: { env: 'js', n: 2 }, source: '\n  a ${x} <#if true>b</#if>\n', x: 1.5 }]);
  });

  it('works synchronously too and reports its errors as TemplateErrors', async () => {
    const up: TemplateDirective = { [DIRECTIVE]: true, invoke: (p) => String(p.v).toUpperCase() };
    const bad: TemplateDirective = {
      [DIRECTIVE]: true,
      invoke: () => {
        throw new Error('script: syntax error at 1:5');
      },
    };
    expect(await compile('<@up v="abc"/>').render({ up })).toBe('ABC');
    const e = await errorOf(compile('\n<@bad/>').render({ bad }));
    expect([e.message.split('\n')[0], e.line, e.column]).toEqual(['script: syntax error at 1:5', 2, 1]);
  });
});

describe('asynchronous directives and methods inside context-changing constructs', () => {
  // each template is rendered with a directive and a method that answer at once, then with ones
  // that answer later: the output must be the same (the caller's output buffer, macro frame,
  // namespace and include depth are back in place when an inner part resumes)
  const templates: [string, string][] = [
    ['capture', 'a<#assign x><@d/>b</#assign>c[${x}]'],
    ['capture in list', 'a<#assign x><#list 1..2 as i><@d/>${i}</#list></#assign>c[${x}]'],
    ['macro in capture', '<#macro m p><@d/>${p}</#macro>a<#assign y><@m p=1/></#assign>b[${y}]'],
    ['nested', '<#macro m><#nested 7></#macro>a<@m ; n><@d/>${n}</@m>b'],
    ['attempt', 'a<#attempt><@d/>${f()}<#recover>R</#attempt>b'],
    ['attempt recovering', 'a<#attempt><@d/>${missing}<#recover>R${f()}</#attempt>b'],
    ['interpret', '<#assign t = "x<@d/>y${f()}"?interpret>a<@t/>b<#assign c><@t/></#assign>[${c}]'],
    ['function', '<#function g><#local s><@d/>${f()}</#local><#return s + "!"></#function>a${g()}b'],
    ['local capture', '<#macro m><#local s><@d/></#local>(${s})</#macro>a<@m/>b'],
    ['directive body', 'a<@wrap><@d/>${f()}</@wrap>b'],
  ];
  const make = (later: boolean): Record<string, unknown> => {
    const answer = <T>(v: T): T | Promise<T> => (later ? delay(v) : v);
    const d: TemplateDirective = { [DIRECTIVE]: true, invoke: () => answer('IN') };
    const wrap: TemplateDirective = {
      [DIRECTIVE]: true,
      invoke: async (_p, body) => `{${await body!.render()}}`,
    };
    return { d, wrap, f: () => answer('F') };
  };
  for (const [name, source] of templates) {
    it(name, async () => {
      const now = await compile(source).render(make(false));
      const later = await compile(source).render(make(true));
      expect(later).toBe(now);
      expect(now).toMatch(/IN|F/);
    });
  }

  it('gives the expected text for a capture around an asynchronous directive', async () => {
    expect(await compile(templates[0][1]).render(make(true))).toBe('ac[INb]');
    expect(await compile(templates[1][1]).render(make(true))).toBe('ac[IN1IN2]');
  });
});

describe('data model, results and options', () => {
  it('accepts a Scope, Maps, FmDate values; null is missing', async () => {
    const scope = {
      get: (n: string) =>
        n === 'd' ? new FmDate(Date.UTC(2021, 2, 4), 'date') : n === 'm' ? new Map([['k', 'v']]) : null,
    };
    expect(await compile('${d?string("yyyy-MM-dd")} ${m.k} ${nope!"-"}').render(scope)).toBe(
      '2021-03-04 v -',
    );
  });

  it('never reaches prototype properties of data objects', async () => {
    const out = await compile('${(o.constructor)!"none"} ${(o["__proto__"])!"none"} ${o?keys?size}').render({
      o: { a: 1 },
    });
    expect(out).toBe('none none 1');
  });

  it('renderDetailed returns the namespace variables as plain JS values', async () => {
    const r = await compile(
      '<#assign a = 1.5, s = [1, 2], h = {"k": "v"}><#global g = 10 / 4><#macro m></#macro>x',
    ).renderDetailed({});
    expect(r).toEqual({ output: 'x', globals: { a: 1.5, s: [1, 2], h: { k: 'v' }, g: 2.5 } });
  });

  it('applies locale, time zone and format settings per render', async () => {
    const t = compile('${n} ${d?string.medium}');
    const data = { n: 1234.5, d: new FmDate(Date.UTC(2021, 2, 4, 5, 6, 7), 'datetime') };
    expect(await t.render(data)).toBe('1,234.5 Mar 4, 2021, 5:06:07 AM');
    expect(await t.render(data, { locale: 'de_DE', timeZone: 'Europe/Berlin' })).toBe(
      '1.234,5 04.03.2021, 06:06:07',
    );
    expect(
      await compile('${n} ${b}').render(
        { n: 0.5, b: true },
        { settings: { number_format: '0.00', boolean_format: 'on,off' } },
      ),
    ).toBe('0.50 on');
  });

  it('caches compiled templates by source and options', () => {
    expect(compile('a${x}')).not.toBe(compile('a${x}'));
    const a = compile('same', { name: 'n' }) as unknown as { unit: unknown };
    const b = compile('same', { name: 'n' }) as unknown as { unit: unknown };
    expect(a.unit).toBe(b.unit);
    const unit = (t: unknown): unknown => (t as { unit: unknown }).unit;
    expect(unit(compile('same', { name: 'm' }))).not.toBe(a.unit);
    expect(unit(compile('same', { name: 'n', strict: true }))).not.toBe(a.unit);
    expect(unit(compile('same', { name: 'n' }))).toBe(a.unit);
  });

  it('keeps at most 1000 compiled templates, dropping the least recently used first', () => {
    const unit = (src: string): unknown =>
      (compile(src, { name: 'lru' }) as unknown as { unit: unknown }).unit;
    const first = unit('first');
    const second = unit('second');
    for (let i = 0; i < 998; i++) {
      unit(`filler ${i}`);
      if (i === 500) expect(unit('first')).toBe(first); // used again: now the most recent
    }
    // 1000 held; one more drops the least recently used, 'second'
    unit('one more');
    expect(unit('first')).toBe(first);
    expect(unit('second')).not.toBe(second);
  });

  it('uses the injected clock for .now, read at each use like FreeMarker', async () => {
    expect(await compile('${.now?iso_utc}').render({}, { now: () => Date.UTC(2024, 0, 15, 12) })).toBe(
      '2024-01-15T12:00:00Z',
    );
    let t = Date.UTC(2024, 0, 15, 12);
    const clock = (): number => (t += 250);
    expect(await compile('<#assign t0 = .now>${.now?long - t0?long} ms').render({}, { now: clock })).toBe(
      '250 ms',
    );
  });
});

describe('limits', () => {
  it('stops an endless loop at the step budget', async () => {
    const e = await errorOf(
      compile('<#list 1.. as i>${i}</#list>').render({}, { limits: { maxSteps: 1000 } }),
    );
    expect(e.message).toContain('Template execution stopped: the render exceeded 1000 steps.');
  });

  it('stops runaway recursion at the depth limit', async () => {
    const e = await errorOf(
      compile('<#macro r n><@r n=n+1/></#macro><@r n=0/>').render({}, { limits: { maxDepth: 50 } }),
    );
    expect(e.message).toContain(
      'Template execution stopped: macro/function calls nested deeper than 50 levels.',
    );
    const f = await errorOf(compile('<#function f n><#return f(n + 1)></#function>${f(0)}').render({}));
    expect(f.message).toContain('nested deeper than 200 levels');
  });

  it('stops output beyond the limit, also through string building', async () => {
    const e = await errorOf(
      compile('<#list 1..100000 as i>xxxxxxxxxx</#list>').render({}, { limits: { maxOutputChars: 10000 } }),
    );
    expect(e.message).toContain('Template execution stopped: the output exceeds 10000 characters.');
    const p = await errorOf(
      compile('${"x"?left_pad(100000000)}').render({}, { limits: { maxOutputChars: 10000 } }),
    );
    expect(p.message).toContain('exceeds the output limit (10000)');
  });

  it('refuses pathological nesting at parse time with a ParseError, not a stack overflow', () => {
    const deep = '${' + '('.repeat(5000) + '1' + ')'.repeat(5000) + '}';
    expect(() => compile(deep)).toThrow(/Template nesting is too deep/);
    const ifs = '<#if true>'.repeat(3000) + '</#if>'.repeat(3000);
    expect(() => compile(ifs)).toThrow(/Template nesting is too deep/);
  });

  it('limit errors are not caught by #attempt', async () => {
    const e = await errorOf(
      compile('<#attempt><#list 1.. as i></#list><#recover>r</#attempt>').render(
        {},
        { limits: { maxSteps: 100 } },
      ),
    );
    expect(e.kind).toBe('LimitExceeded');
  });
});

describe('user directive calls in the FTL stack trace (answers of FreeMarker 2.3.31)', () => {
  const missing =
    'The following has evaluated to null or missing:\n==> nope  [in template "t.ftl" at line 1, column 17]\n\n----\nTip: If the failing expression is known to legally refer to something that\'s sometimes null or missing, either specify a default value like myOptionalVar!myDefault, or use <#if myOptionalVar??>when-present<#else>when-missing</#if>. (These only cover the last step of the expression; to cover the whole expression, use parenthesis: (myOptionalVar.foo)!myDefault, (myOptionalVar.foo)??\n----\n\n----\nFTL stack trace ("~" means nesting-related):\n\t- Failed at: ${nope}  [in template "t.ftl" in macro "m" at line 1, column 15]\n';

  it('shows #call as FreeMarker does, as an @ call', async () => {
    const e = await errorOf(
      compile('<#macro m a b>${nope}</#macro><#call m 1 "s">', { name: 't.ftl', strict: true }).render({}),
    );
    expect(e.message).toBe(
      missing + '\t- Reached through: @m 1, "s"  [in template "t.ftl" at line 1, column 31]\n----',
    );
  });

  it('shows an @ call with its named arguments and loop variables', async () => {
    const e = await errorOf(
      compile('<#macro m a b>${nope}</#macro>\n<@m a=1 b=[2]; v/>', { name: 't.ftl', strict: true }).render(
        {},
      ),
    );
    expect(e.message).toBe(
      missing + '\t- Reached through: @m a=1 b=[2]; v  [in template "t.ftl" at line 2, column 1]\n----',
    );
  });
});
