/**
 * The `<@script>` directive in templates: its parameters, its body, how values cross (JSON only),
 * promise callbacks, and errors reaching the template with the script's line.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts, runScript, ScriptError, scriptSource } from '../../src/script/index.js';
import { TemplateError } from '../../src/template/index.js';
import { errorOf, scriptTag } from './support.js';

afterAll(() => closeScripts());

const ctx = createExecutionContext({ clock: () => Date.UTC(2024, 0, 15) });
const render = async (source: string, data: Record<string, unknown> = {}) =>
  (await evaluate(source, ctx, data)).output;

describe('<@script>', () => {
  it('outputs what RMPData.setOutput received, in place', async () => {
    expect(await render('a<@script env="js">RMPData.setOutput(RMPUtilities.now("yyyy"))</@script>b')).toBe(
      'a2024b',
    );
    expect(await render('<@script env="JS">RMPData.setOutput(1 + 1)</@script>')).toBe('2');
    expect(await render('<@script>RMPData.setOutput("no env: js")</@script>')).toBe('no env: js');
    expect(await render('[<@script env="js"/>]')).toBe('[]');
    expect(
      await render(
        '<#list 1..3 as i><@script env="js">RMPData.setOutput(RMPData.getVariable("i") * 10)</@script>,</#list>',
      ),
    ).toBe('10,20,30,');
  });

  it('is captured by <#assign x>…</#assign> like any output, the text around it staying in place', async () => {
    expect(
      await render('a<#assign x><@script env="js">RMPData.setOutput("IN")</@script>b</#assign>c[${x}]'),
    ).toBe('ac[INb]');
    expect(
      await render(
        '<#assign x>' +
          scriptTag('RMPData.setOutput({n: 1})') +
          '|' +
          scriptTag('RMPData.setOutput(RMPUtilities.now("yyyy"))') +
          '</#assign>[${x}]',
      ),
    ).toBe('[{"n":1}|2024]');
  });

  it('refuses another language and unknown parameters', async () => {
    expect(await errorOf(ctx, '<@script env="ruby">1</@script>')).toBe(
      '<@script>: unknown env "ruby" (supported: js, javascript, python)',
    );
    expect(await errorOf(ctx, '<@script env="js" timeout=5>1</@script>')).toBe(
      '<@script>: unknown parameter timeout (the only parameter is env)',
    );
  });

  it('runs the raw body; <#noparse> lets template literals hold any ${…}; lines keep their numbers', async () => {
    expect(await render('<#assign x = 1><@script env="js">RMPData.setOutput(`${"x"}`)</@script>')).toBe('x');
    expect(
      await render(
        '<@script env="js"><#noparse>const t = `${1 > 0 ? "yes" : "no"}`; RMPData.setOutput(t)</#noparse></@script>',
      ),
    ).toBe('yes');
    expect(scriptSource('\n  <#noparse>\nfoo()\n</#noparse>\n')).toBe('\n  \nfoo()\n\n');
    expect(scriptSource('[#noparse]x[/#noparse]')).toBe('x');
    expect(scriptSource('<#noparse>x')).toBe('<#noparse>x');
  });

  it('ends the render with a TemplateError at the tag, carrying the script’s line; attempt/recover catches it', async () => {
    const source = 'first line\n<@script env="js">\nconst a = 1;\n  missing();\n</@script>';
    let error: unknown;
    try {
      await evaluate(source, ctx);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TemplateError);
    const te = error as TemplateError;
    expect(te.message.split('\n')[0]).toBe(
      "ReferenceError: 'missing' is not defined (script line 3, column 3)",
    );
    expect([te.line, te.column]).toEqual([2, 1]);
    expect(te.cause).toBeInstanceOf(ScriptError);
    expect(te.cause).toMatchObject({
      kind: 'exception',
      scriptLine: 3,
      scriptColumn: 3,
      jsName: 'ReferenceError',
    });
    expect(
      await render(
        '<#attempt>' + scriptTag('RMPRequest.raiseError("out of stock")') + '<#recover>recovered</#attempt>',
      ),
    ).toBe('recovered');
  });

  it('reports syntax errors, thrown non-errors and platform errors naming the method and argument', async () => {
    await expect(runScript('let x = ;', { ctx })).rejects.toMatchObject({
      kind: 'syntax',
      message: "SyntaxError: unexpected token in expression: ';' (script line 1, column 9)",
    });
    await expect(runScript('throw 42', { ctx })).rejects.toThrow('uncaught 42');
    await expect(runScript('throw {code: "E1"}', { ctx })).rejects.toThrow('uncaught {"code":"E1"}');
    await expect(runScript('\nRMPUtilities.getTime("soon")', { ctx })).rejects.toThrow(
      'RMPUtilities.getTime: argument 1 (date) Unparseable date: "soon" (script line 2, column 21)',
    );
    // Caught inside the script, a platform error is an ordinary Error.
    const { output } = await runScript(
      'try { RMPUtilities.decode("Base64", "***") } catch (e) { RMPData.setOutput([e instanceof Error, e.message]) }',
      { ctx },
    );
    expect(JSON.parse(output)[0]).toBe(true);
    expect(JSON.parse(output)[1]).toMatch(/^RMPUtilities\.decode: /);
  });
});

describe('values cross as JSON', () => {
  it('arguments: dates as ISO text, undefined/null as missing (defaults apply), functions dropped', async () => {
    const { output } = await runScript(
      `RMPData.setOutput([
        RMPUtilities.jsonPut({}, "when", new Date(0)),
        RMPUtilities.dateOffset("2024-01-31", undefined, undefined),
        RMPUtilities.dateOffset("31/01/2024", null, "dd/MM/yyyy"),
        RMPUtilities.jsonStringify({f: function () {}, n: 1}),
      ])`,
      { ctx },
    );
    expect(JSON.parse(output)).toEqual([
      { when: '1970-01-01T00:00:00.000Z' },
      '2024-01-31',
      '31/01/2024',
      '{"n":1}',
    ]);
  });

  it('results are plain copies: changing one changes nothing else', async () => {
    const { output } = await runScript(
      'const a = RMPUtilities.jsonPut({}, "k", [1]); a.k.push(2); RMPData.setOutput([a, RMPUtilities.jsonPut({}, "k", [1])])',
      { ctx },
    );
    expect(JSON.parse(output)).toEqual([{ k: [1, 2] }, { k: [1] }]);
  });

  it('values the sandbox cannot serialise fail in the script, with its line', async () => {
    await expect(
      runScript('const o = {}; o.o = o;\nRMPUtilities.jsonStringify(o)', { ctx }),
    ).rejects.toMatchObject({
      kind: 'exception',
      jsName: 'TypeError',
      scriptLine: 2,
    });
    await expect(runScript('RMPUtilities.jsonStringify(1n)', { ctx })).rejects.toMatchObject({
      jsName: 'TypeError',
    });
  });

  it('platform calls work in promise callbacks and async functions too', async () => {
    const { output } = await runScript(
      `async function stamp(format) { await null; return RMPUtilities.now(format); }
       stamp("yyyy").then((y) => RMPData.setOutput(y + "/" + RMPUtilities.now("MM")));`,
      { ctx },
    );
    expect(output).toBe('2024/01');
  });
});
