/**
 * prepareRender + Template.renderPrepared (the composite API host's path, issue 20): the same
 * output as `render` with the same options, the output itself when nothing waits, and nothing of
 * one render (a <#setting>, a variable, the budget) left for the next one.
 */
import { describe, expect, it } from 'vitest';
import { Budget } from '../../src/limits/index.js';
import { compile, prepareRender, TemplateError, type Scope } from '../../src/template/index.js';

const scope = (values: Record<string, unknown>): Scope => ({ get: (name) => values[name] });
const options = {
  locale: 'de_DE',
  timeZone: 'Europe/Paris',
  settings: { boolean_format: 'c' },
  now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
};

describe('prepared renders', () => {
  it('print as render does with the same options', async () => {
    const prepared = prepareRender(options);
    for (const source of [
      '${n} ${flag} ${.now?string("yyyy-MM-dd HH:mm zzz")} ${.locale} ${1234567.5}',
      '<#setting locale="en_US">${n} ${.locale}',
      '${flag?string} ${(n > 1)?c}',
    ]) {
      const template = compile(source);
      const data = { n: 1234.5, flag: true };
      const expected = await template.render(data, options);
      expect(template.renderPrepared(scope(data), prepared, new Budget())).toBe(expected);
    }
    expect(
      compile('${n} ${flag} ${.now?string("yyyy-MM-dd HH:mm zzz")}').renderPrepared(
        scope({ n: 1234.5, flag: true }),
        prepared,
        new Budget(),
      ),
    ).toBe('1.234,5 true 2026-01-02 04:04 MEZ');
  });

  it('give the output at once when nothing waits, else a promise', async () => {
    const prepared = prepareRender(options);
    const wait = () => new Promise((resolve) => setTimeout(() => resolve('later'), 1));
    expect(compile('now').renderPrepared(scope({}), prepared, new Budget())).toBe('now');
    const pending = compile('${wait()}').renderPrepared(scope({ wait }), prepared, new Budget());
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBe('later');
  });

  it('leave nothing of one render to the next: settings, variables, steps', async () => {
    const prepared = prepareRender(options);
    const template = compile(
      '${.locale} ${seen!"none"} ${1.5}<#setting locale="en_US"><#setting boolean_format="yes,no">' +
        '<#global seen = "set"> ${.locale} ${1.5} ${true}',
    );
    for (let i = 0; i < 3; i++)
      expect(template.renderPrepared(scope({}), prepared, new Budget())).toBe('de_DE none 1,5 en_US 1.5 yes');
    // Each render counts its own steps against its own budget.
    const loop = compile('<#list 1..60 as i>${i}</#list>');
    for (let i = 0; i < 3; i++)
      expect((loop.renderPrepared(scope({}), prepared, new Budget({ maxSteps: 100 })) as string).length).toBe(
        111,
      );
  });

  it('are bounded by the budget given and report errors as render does', async () => {
    const prepared = prepareRender(options);
    const loop = compile('<#list 1..100000 as i>${i}</#list>', { name: 'loop.ftl' });
    expect(() => loop.renderPrepared(scope({}), prepared, new Budget({ maxSteps: 1000 }))).toThrow(
      TemplateError,
    );
    const broken = compile('line\n${missing.field}', { name: 'broken.ftl' });
    let thrown: unknown;
    try {
      broken.renderPrepared(scope({}), prepared, new Budget());
    } catch (e) {
      thrown = e;
    }
    const viaRender = await broken.render({}, options).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(TemplateError);
    expect((thrown as TemplateError).message).toBe((viaRender as TemplateError).message);
    expect((thrown as TemplateError).line).toBe(2);
  });

  it('refuse a bad setting when prepared, as render does', async () => {
    const message = await compile('x')
      .render({}, { settings: { boolean_format: 'maybe' } })
      .catch((e: unknown) => (e as Error).message);
    expect(() => prepareRender({ settings: { boolean_format: 'maybe' } })).toThrow(message as string);
  });
});
