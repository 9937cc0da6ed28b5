/**
 * `<@script env="javascript">`: the platform's legacy (Rhino) engine, on the same sandbox —
 * no RMP* objects, print() writes the directive's output, setVariable() sets a template variable.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts, runScript } from '../../src/script/index.js';
import { errorOf } from './support.js';

afterAll(() => closeScripts());

const ctx = createExecutionContext({ clock: () => Date.UTC(2024, 0, 15) });
const render = async (source: string, data: Record<string, unknown> = {}) =>
  (await evaluate(source, ctx, data)).output;
const legacy = (body: string) => `<@script env="javascript"><#noparse>${body}</#noparse></@script>`;

describe('<@script env="javascript"> (legacy)', () => {
  it('print writes its arguments, String()-converted and separated by a space, in place', async () => {
    expect(
      await render('a' + legacy('print("x"); print(1 + 1, true, null, undefined, [1, 2], {})') + 'b'),
    ).toBe('ax2 true null undefined 1,2 [object Object]b');
    expect(await render('[' + legacy('var n = 0; for (var i = 0; i < 3; i++) print(i);') + ']')).toBe(
      '[012]',
    );
    expect(await render('<#assign x>' + legacy('print("in")') + '!</#assign>[${x}]')).toBe('[in!]');
    expect(await render('[' + legacy('1 + 1') + ']')).toBe('[]');
    expect(await render('<@script env="JavaScript">print("case")</@script>')).toBe('case');
  });

  it('setVariable sets a template variable after the script, as JSON values', async () => {
    expect(
      await render(
        legacy('setVariable("n", 42); setVariable("s", "text"); setVariable("o", {a: [1, {b: true}]});') +
          '${n + 1}|${s}|${o.a[1].b?c}|${o.a?size}',
      ),
    ).toBe('43|text|true|2');
    // The value is taken when setVariable is called; the last call for a name wins.
    expect(
      await render(
        legacy('var o = {v: 1}; setVariable("o", o); o.v = 2; setVariable("x", 1); setVariable("x", 2);') +
          '${o.v}${x}',
      ),
    ).toBe('12');
    // A date becomes its ISO-8601 text; null and undefined set nothing.
    expect(
      await render(
        legacy('setVariable("d", new Date(0)); setVariable("u", undefined); setVariable("z", null);') +
          '${d}|${u!"none"}|${z!"none"}',
      ),
    ).toBe('1970-01-01T00:00:00.000Z|none|none');
    // As <#global> does: it replaces a data variable or a global, while a variable the template
    // <#assign>ed under the same name keeps shadowing it.
    expect(await render(legacy('setVariable("k", "after")') + '${k}', { k: 'data' })).toBe('after');
    expect(await render('<#global k = "g">' + legacy('setVariable("k", "after")') + '${k}')).toBe('after');
    expect(
      await render('<#assign k = "a">' + legacy('setVariable("k", "after")') + '${k}/${.globals.k}'),
    ).toBe('a/after');
  });

  it('a script that fails prints nothing and sets nothing; <#attempt> recovers it', async () => {
    expect(
      await render(
        '<#attempt>' +
          legacy('setVariable("a", 1); print("half"); throw new Error("stop")') +
          '<#recover>recovered</#attempt>|${a!"unset"}',
      ),
    ).toBe('recovered|unset');
    expect(await errorOf(ctx, legacy('print("half");\nthrow new Error("stop")'))).toBe(
      'stop (script line 2, column 16)',
    );
  });

  it('has no RMP* objects and no platform access; ES2023 syntax still runs', async () => {
    expect(
      await render(
        legacy(
          'print([typeof RMPData, typeof RMPCollection, typeof RMPUtilities, typeof require, typeof process].join(","))',
        ),
      ),
    ).toBe('undefined,undefined,undefined,undefined,undefined');
    expect(await render(legacy('const f = (a, ...r) => a + r.length; print(`${f(1, 2, 3)}`)'))).toBe('3');
    expect(await errorOf(ctx, legacy('RMPData.setOutput(1)'))).toBe(
      "ReferenceError: 'RMPData' is not defined (script line 1, column 1)",
    );
  });

  it('reports misuse of print and setVariable with the script line', async () => {
    expect(await errorOf(ctx, legacy('\nsetVariable("", 1)'))).toBe(
      'TypeError: setVariable: argument 1 (name) must be a non-empty string of at most 256 characters (script line 2, column 12)',
    );
    expect(await errorOf(ctx, legacy('setVariable(7, 1)'))).toBe(
      'TypeError: setVariable: argument 1 (name) must be a non-empty string of at most 256 characters (script line 1, column 12)',
    );
    expect(await errorOf(ctx, legacy('const o = {}; o.o = o; setVariable("o", o)'))).toBe(
      'TypeError: circular reference (script line 1, column 35)',
    );
    expect(await errorOf(ctx, legacy('print({toString() { throw new Error("no text") }})'))).toBe(
      'no text (script line 1, column 36)',
    );
    expect(await render(legacy('print(Symbol("s"))'))).toBe('Symbol(s)');
  });

  it('runScript({legacy: true}) gives the printed text and the names set', async () => {
    const set: Record<string, unknown> = {};
    const env = {
      getVariable: () => undefined,
      setVariable: (n: string, v: unknown) => (set[n] = v),
      templateName: 't',
      locale: 'en_US',
      timeZone: 'UTC',
    };
    const result = await runScript(
      'print("p"); setVariable("b", [1]); setVariable("a", {x: 1}); setVariable("b", 2)',
      {
        ctx,
        env,
        legacy: true,
      },
    );
    expect(result.output).toBe('p');
    expect(result.variables).toEqual(['b', 'a']);
    expect(set).toEqual({ b: 2, a: { x: 1 } });
  });
});
