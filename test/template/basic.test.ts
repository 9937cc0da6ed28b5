import { describe, expect, it } from 'vitest';
import { compile, TemplateError } from '../../src/template/index.js';

async function render(src: string, data: Record<string, unknown> = {}): Promise<string> {
  return compile(src).render(data);
}

describe('template basics', () => {
  it('interpolates with FreeMarker number formatting and decimal arithmetic', async () => {
    expect(
      await render('Hello ${name}! ${1 + 2} ${0.1 + 0.2} ${10 / 4} ${1234567.891}', { name: 'Ann' }),
    ).toBe('Hello Ann! 3 0.3 2.5 1,234,567.891');
  });

  it('lists with #sep, hashes with key/value loop variables', async () => {
    expect(await render('<#list [1, 2, 3] as x>${x}<#sep>, </#list>')).toBe('1, 2, 3');
    expect(await render('<#assign h = {"b": 1, "a": 2}><#list h as k, v>${k}=${v};</#list>')).toBe(
      'b=1;a=2;',
    );
  });

  it('strips white-space around lines holding only directives', async () => {
    expect(await render('<#if true>\n  yes\n</#if>\nend')).toBe('  yes\nend');
  });

  it('calls macros with defaults, #nested with loop variables, and functions', async () => {
    expect(await render('<#macro m a b=2>${a}-${b}<#nested 5></#macro><@m a=1; n>[${n}]</@m>')).toBe(
      '1-2[5]',
    );
    expect(await render('<#function f x><#return x * 2></#function>${f(21)}')).toBe('42');
  });

  it('prints hashes and sequences as compact JSON (platform deviation), strict keeps the error', async () => {
    expect(await render('${h}', { h: { a: 1, b: [1, 2.5, 'x'] } })).toBe('{"a":1,"b":[1,2.5,"x"]}');
    await expect(compile('${h}', { strict: true }).render({ h: { a: 1 } })).rejects.toThrow(
      'For "${...}" content: Expected a string or something automatically convertible to string',
    );
  });

  it('reports missing values with FreeMarker wording, template name, line and column', async () => {
    const err = await compile('a\n  ${nope}', { name: 'x.ftl' })
      .render({})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateError);
    const te = err as TemplateError;
    expect(te.message.split('\n').slice(0, 2)).toEqual([
      'The following has evaluated to null or missing:',
      '==> nope  [in template "x.ftl" at line 2, column 5]',
    ]);
    expect([te.templateName, te.line, te.column, te.expression]).toEqual(['x.ftl', 2, 5, 'nope']);
  });

  it('reports parse errors with line and column', () => {
    expect(() => compile('<#if x>', { name: 't.ftl' })).toThrow(
      'Syntax error in template "t.ftl" in line 1, column 7:\nUnexpected end of file reached. You have an unclosed #if.',
    );
  });
});

// Expected values from FreeMarker 2.3.31 (the oracle's fm batch).
describe('binary operators', () => {
  it('bind by FreeMarker precedence, left to right within a level', async () => {
    expect(await render('${1 + 2 * 3 - 4 / 2 % 3}')).toBe('5');
    expect(await render('${2 - 1 - 1} ${8 / 2 / 2}')).toBe('0 2');
    expect(await render('<#if 1 < 2 == true>y</#if>')).toBe('y');
    expect(await render('<#list 1 .. 2 + 1 as i>${i}</#list>')).toBe('123');
    expect(await render('${(true || false && false)?c} ${(false && true || true)?c}')).toBe('true true');
  });

  it('do not chain equality and relational operators: the second one is a syntax error where FreeMarker puts it', () => {
    for (const [src, col, op] of [
      ['${1 == 2 == 3}', 10, '=='],
      ['${1 == 1 != 2}', 10, '!='],
      ['${1 < 2 < 3}', 9, '<'],
      ['${1 > 2 > 3}', 9, '>'],
    ] as const) {
      expect(() => compile(src, { name: 't.ftl' })).toThrow(
        `Syntax error in template "t.ftl" in line 1, column ${col}:\nEncountered "${op}"`,
      );
    }
  });

  it('check literal operands at parse time', () => {
    expect(() => compile('${a || 1}', { name: 't.ftl' })).toThrow(
      'Syntax error in template "t.ftl" in line 1, column 8:\nFound number literal: 1. Expecting boolean (true/false)',
    );
    expect(() => compile('<#if {} == 1>x</#if>', { name: 't.ftl' })).toThrow(
      'Syntax error in template "t.ftl" in line 1, column 6:\nFound hash literal: {}. Expecting different type for equality check',
    );
    expect(() => compile('${1 - "a"}', { name: 't.ftl' })).toThrow(
      'Syntax error in template "t.ftl" in line 1, column 7:\nFound string literal: "a". Expecting: number',
    );
  });
});
