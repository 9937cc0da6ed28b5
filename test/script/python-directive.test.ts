/**
 * Python twins of directive.test.ts: the directive's output in place and captured by
 * <#assign>, errors reaching the template as a TemplateError at the tag with the script's line,
 * platform errors naming the method and argument, and values crossing as JSON (None as a missing
 * argument, results as plain copies, what JSON cannot carry refused in the script).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import {
  closeScripts,
  configurePythonScripts,
  runPythonScript,
  ScriptError,
} from '../../src/script/index.js';
import { TemplateError } from '../../src/template/index.js';
import { errorOf } from './support.js';

afterAll(() => closeScripts());
beforeAll(async () => {
  configurePythonScripts({ workers: 1 });
  await runPythonScript('pass', { ctx });
}, 120_000);

const ctx = createExecutionContext({ clock: () => Date.UTC(2024, 0, 15) });
const py = (body: string) => `<@script env="python"><#noparse>${body}</#noparse></@script>`;
const render = async (source: string) => (await evaluate(source, ctx, {})).output;
const run = async (body: string) => (await runPythonScript(body, { ctx })).output;

describe('<@script env="python">', () => {
  it('is captured by <#assign x>…</#assign> like any output, beside a JavaScript script', async () => {
    expect(
      await render(
        '<#assign x>' +
          py('RMPData.setOutput({"n": 1})') +
          '|' +
          py('RMPData.setOutput(RMPUtilities.now("yyyy"))') +
          '|<@script env="js">RMPData.setOutput("js")</@script></#assign>[${x}]',
      ),
    ).toBe('[{"n":1}|2024|js]');
  });

  it('refuses unknown parameters as env="js" does', async () => {
    expect(await errorOf(ctx, '<@script env="python" timeout=5>1</@script>')).toBe(
      '<@script>: unknown parameter timeout (the only parameter is env)',
    );
  });

  it('ends the render with a TemplateError at the tag, carrying the script’s line; attempt/recover catches it', async () => {
    let error: unknown;
    try {
      await evaluate('first line\n<@script env="python">\na = 1\nmissing()\n</@script>', ctx);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TemplateError);
    const te = error as TemplateError;
    expect(te.message.split('\n')[0]).toBe("NameError: name 'missing' is not defined (script line 3)");
    expect([te.line, te.column]).toEqual([2, 1]);
    expect(te.cause).toBeInstanceOf(ScriptError);
    expect(te.cause).toMatchObject({ kind: 'exception', scriptLine: 3 });
    expect(
      await render(
        '<#attempt>' + py('RMPRequest.raiseError("out of stock")') + '<#recover>recovered</#attempt>',
      ),
    ).toBe('recovered');
  });

  it('reports platform errors naming the method and argument, at the script’s line', async () => {
    await expect(runPythonScript('\nRMPUtilities.getTime("soon")', { ctx })).rejects.toThrow(
      'RMPUtilities.getTime: argument 1 (date) Unparseable date: "soon" (script line 2)',
    );
    await expect(runPythonScript('x = (', { ctx })).rejects.toMatchObject({ kind: 'syntax' });
  });
});

describe('values cross as JSON', () => {
  it('arguments: dates as ISO text, None as missing (defaults apply)', async () => {
    expect(
      JSON.parse(
        await run(
          [
            'import datetime',
            'RMPData.setOutput([',
            '    RMPUtilities.jsonPut({}, "when", datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)),',
            '    RMPUtilities.dateOffset("2024-01-31", None, None),',
            '    RMPUtilities.dateOffset("31/01/2024", None, "dd/MM/yyyy"),',
            '])',
          ].join('\n'),
        ),
      ),
    ).toEqual([{ when: '1970-01-01T00:00:00.000Z' }, '2024-01-31', '31/01/2024']);
  });

  it('results are plain copies: changing one changes nothing else', async () => {
    expect(
      JSON.parse(
        await run(
          'a = RMPUtilities.jsonPut({}, "k", [1])\na["k"].append(2)\nRMPData.setOutput([a, RMPUtilities.jsonPut({}, "k", [1])])',
        ),
      ),
    ).toEqual([{ k: [1, 2] }, { k: [1] }]);
  });

  it('values JSON cannot carry fail in the script, with its line', async () => {
    await expect(
      runPythonScript('o = {}\no["o"] = o\nRMPUtilities.jsonStringify(o)', { ctx }),
    ).rejects.toThrow('TypeError: RMPUtilities.jsonStringify: Circular reference detected (script line 3)');
  });
});
