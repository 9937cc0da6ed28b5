/**
 * `<@script env="python">`: the same RMP* objects as the JavaScript backend (derived from the
 * same registry), results through RMPData.setOutput, platform errors as Python exceptions,
 * values converted both ways, scripts isolated from each other, and the limits — through
 * templates evaluated by the eval host, and runPythonScript for per-script limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { defaultRegistry, defineFunction, FunctionRegistry } from '../../src/functions/registry.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import {
  closeScripts,
  configurePythonScripts,
  pythonScriptWorkers,
  runPythonScript,
  scriptApi,
  ScriptError,
  SCRIPT_OBJECTS,
} from '../../src/script/index.js';
import { errorOf, viaTemplate } from './support.js';

afterAll(() => closeScripts());

const ctx = createExecutionContext({ clock: () => Date.UTC(2024, 0, 15) });

/** A Python body that FreeMarker leaves alone. */
const py = (body: string) => `<@script env="python"><#noparse>${body}</#noparse></@script>`;
const render = async (source: string, data: Record<string, unknown> = {}) =>
  (await evaluate(source, ctx, data)).output;
/** The output of one Python script in a template. */
const out = (body: string, data: Record<string, unknown> = {}) => render(py(body), data);
const failure = async (body: string, limits = {}): Promise<ScriptError> => {
  try {
    await runPythonScript(body, { ctx, limits });
  } catch (e) {
    return e as ScriptError;
  }
  throw new Error(`did not fail: ${body}`);
};

beforeAll(async () => {
  // One interpreter: the isolation tests below run one script after another in the same worker.
  configurePythonScripts({ workers: 1 });
  await out('pass'); // the interpreter loads once (seconds)
}, 120_000);

describe('the directive', () => {
  it('outputs what RMPData.setOutput received, in place; the text around it stays', async () => {
    expect(
      await render('a<@script env="python">RMPData.setOutput(RMPUtilities.now("yyyy"))</@script>b'),
    ).toBe('a2024b');
    expect(await render('<@script env="PYTHON">RMPData.setOutput(1 + 1)</@script>')).toBe('2');
    expect(await render('a<#assign x>' + py('RMPData.setOutput("IN")') + 'b</#assign>c[${x}]')).toBe(
      'ac[INb]',
    );
    expect(
      await render(
        '<#list 1..3 as i>' + py('RMPData.setOutput(RMPData.getVariable("i") * 10)') + ',</#list>',
      ),
    ).toBe('10,20,30,');
    expect(await render('[<@script env="python"/>]')).toBe('[]');
  });

  it('setOutput: text as it is, other values as compact JSON, nothing for None or no call; the last call wins', async () => {
    expect(await out('RMPData.setOutput("a <b> & c")')).toBe('a <b> & c');
    expect(await out('RMPData.setOutput({"b": [1, 2.5, "x", True], "a": None, "é": "ü"})')).toBe(
      '{"b":[1,2.5,"x",true],"a":null,"é":"ü"}',
    );
    expect(await out('RMPData.setOutput(12.5)')).toBe('12.5');
    expect(await out('RMPData.setOutput(None)')).toBe('');
    expect(await out('x = 1')).toBe('');
    expect(await out('RMPData.setOutput("first")\nRMPData.setOutput("second")')).toBe('second');
    expect(await out('o = {"n": 1}\nRMPData.setOutput(o)\no["n"] = 2')).toBe('{"n":1}');
  });

  it('takes an indented body as written in a template (common indentation removed, lines kept)', async () => {
    const source = [
      '<@script env="python">',
      '    total = 0',
      '    for n in RMPData.getVariable("numbers"):',
      '        total += n',
      '    RMPData.setOutput(total)',
      '  </@script>',
    ].join('\n');
    expect(await render(source, { numbers: [1, 2, 3] })).toBe('6');
    expect(await errorOf(ctx, '<@script env="python">\n    x = 1\n    y = 1 / 0\n</@script>')).toBe(
      'ZeroDivisionError: division by zero (script line 3)',
    );
  });
});

describe('the RMP* objects', () => {
  it('are the JavaScript backend’s objects, with the same method names, from the same registry', async () => {
    const api = scriptApi(defaultRegistry());
    const names = JSON.parse(
      await out(
        'RMPData.setOutput({o: sorted(n for n in dir(globals()[o]) if not n.startswith("_")) for o in ' +
          JSON.stringify(SCRIPT_OBJECTS) +
          '})',
      ),
    ) as Record<string, string[]>;
    for (const object of SCRIPT_OBJECTS)
      expect(names[object], object).toEqual([...new Set(api.objects[object].map((m) => m.name))].sort());
  });

  it('call the registry functions with their checks and give what the template gives', async () => {
    expect(JSON.parse(await out('RMPData.setOutput(RMPUtilities.jsonPut({"a": 1}, "b", "[1,2]"))'))).toEqual(
      await viaTemplate(ctx, 'P_json_put({"a": 1}, "b", "[1,2]")'),
    );
    expect(await out('RMPData.setOutput(RMPUtilities.encrypt("SHA1,BASE64", "abc"))')).toBe(
      await viaTemplate(ctx, 'encrypt("SHA1,BASE64", "abc")'),
    );
    expect(await out('RMPData.setOutput(RMPUtilities.dateOffset("15/01/2024", 3, "dd/MM/yyyy"))')).toBe(
      '18/01/2024',
    );
    expect(
      await out('RMPData.setOutput(RMPCollection.count.__name__ + " " + RMPCollection.find.__qualname__)'),
    ).toBe('count RMPCollection.find');
  });

  it('a function added to the registry is a method of its group’s object', async () => {
    const shout = defineFunction({
      name: 'P_shout_text',
      group: 'Utilities',
      rights: 'none',
      doc: 'Upper-cases a text.',
      returns: 'string',
      forms: [
        {
          params: [
            { name: 'text', type: 'string' },
            { name: 'times', type: 'integer', optional: true, default: 1 },
          ],
          impl: (_ctx, [text, times]) => `${(text as string).toUpperCase()}${'!'.repeat(times as number)}`,
        },
      ],
    });
    const registry = new FunctionRegistry([...defaultRegistry().list(), shout]);
    const { output } = await runPythonScript(
      'RMPData.setOutput([RMPUtilities.shoutText("hi"), RMPUtilities.shoutText("hi", "3")])',
      { ctx, registry },
    );
    expect(output).toBe('["HI!","HI!!!"]');
    await expect(runPythonScript('RMPUtilities.shoutText("hi")', { ctx })).rejects.toThrow(
      "AttributeError: 'RMPUtilities' object has no attribute 'shoutText' (script line 1)",
    );
  });

  it('RMPData reads the request’s variables and what the template assigned (dates as ISO-8601 text)', async () => {
    const source =
      '<#assign total = amount * 2><#assign when = "2024-01-15"?date("yyyy-MM-dd")>' +
      py(
        'RMPData.setOutput({"amount": RMPData.getVariable("amount"), "total": RMPData.getVariable("total"), ' +
          '"when": RMPData.getVariable("when"), "missing": RMPData.getVariable("nope"), ' +
          '"all": RMPData.getAllVariables(), "mode": RMPData.getExecutionMode(), "user": RMPData.getCurrentUser()})',
      );
    expect(JSON.parse(await render(source, { amount: 21, customer: { name: 'Acme' } }))).toEqual({
      amount: 21,
      total: 42,
      when: '2024-01-15T00:00:00.000Z',
      missing: null,
      all: { amount: 21, customer: { name: 'Acme' } },
      mode: 'TEST',
      user: null,
    });
  });
});

describe('values and errors', () => {
  it('converts Python values to JSON: dates to ISO-8601 (naive ones as UTC), tuples and sets to lists', async () => {
    expect(
      await out(
        'import datetime\n' +
          'tz = datetime.timezone(datetime.timedelta(hours=2))\n' +
          'RMPData.setOutput(RMPUtilities.jsonPutAll({}, {"naive": datetime.datetime(2024, 1, 2, 3, 4, 5, 678900), ' +
          '"aware": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=tz), "day": datetime.date(2024, 2, 29), ' +
          '"pair": (1, 2), "set": {3}}))',
      ),
    ).toBe(
      '{"naive":"2024-01-02T03:04:05.678Z","aware":"2024-01-02T01:04:05.000Z","day":"2024-02-29","pair":[1,2],"set":[3]}',
    );
    expect(await out('RMPData.setOutput(RMPUtilities.jsonParse(\'{"a": [1, 2.5, null, true]}\'))')).toBe(
      '{"a":[1,2.5,null,true]}',
    );
    expect(
      await out('v = RMPUtilities.jsonParse(\'{"a": [1, 2.5, null, true]}\')\nRMPData.setOutput(repr(v))'),
    ).toBe("{'a': [1, 2.5, None, True]}");
  });

  it('refuses what JSON cannot carry, naming the method', async () => {
    expect(await errorOf(ctx, py('RMPUtilities.jsonPut({}, "a", object())'))).toBe(
      'TypeError: RMPUtilities.jsonPut: Object of type object is not JSON serializable (script line 1)',
    );
    expect(await errorOf(ctx, py('RMPUtilities.jsonPut({}, "a", float("nan"))'))).toBe(
      'TypeError: RMPUtilities.jsonPut: Out of range float values are not JSON compliant: nan (script line 1)',
    );
    expect(await errorOf(ctx, py('RMPUtilities.jsonPut(object={}, field="a", value=1)'))).toBe(
      'TypeError: RMPUtilities.jsonPut() takes no keyword arguments (script line 1)',
    );
  });

  it('a platform error is an RMPError carrying the function’s message; uncaught, it ends the script with it', async () => {
    expect(await errorOf(ctx, py('x = 1\nRMPUtilities.jsonParse("{x")'))).toBe(
      "RMPUtilities.jsonParse: argument 1 (value) is not valid JSON: Expected property name or '}' in JSON at position 1 (script line 2)",
    );
    expect(
      await out(
        'try:\n    RMPUtilities.decode("Base64", "@@")\nexcept RMPError as e:\n    RMPData.setOutput("caught: " + str(e))',
      ),
    ).toBe(
      'caught: RMPUtilities.decode: argument 2 (input) is not valid Base64: Illegal base64 character 40',
    );
    expect(await errorOf(ctx, py('RMPRequest.raiseError("stock is low")'))).toBe(
      'stock is low (script line 1)',
    );
    expect(
      await render(
        '<#attempt>' + py('RMPRequest.raiseError("no")') + '<#recover>recovered: ${.error}</#attempt>',
      ),
    ).toMatch(/^recovered: no \(script line 1\)/);
  });

  it('Python errors keep their type and the script line; a syntax error its column', async () => {
    expect(await errorOf(ctx, py('x = 1\n\nraise ValueError("bad value")'))).toBe(
      'ValueError: bad value (script line 3)',
    );
    expect(await errorOf(ctx, py('def f():\n    return {}["k"]\nf()'))).toBe("KeyError: 'k' (script line 2)");
    expect(await errorOf(ctx, py('raise ValueError()'))).toBe('ValueError (script line 1)');
    expect(await errorOf(ctx, py('x = (1,\ny = 2'))).toBe(
      "SyntaxError: '(' was never closed (script line 1, column 5)",
    );
    expect(await errorOf(ctx, py('import sys\nsys.exit(3)'))).toBe('SystemExit: 3 (script line 2)');
    expect(
      await out('import sys\nRMPData.setOutput("done")\nsys.exit()\nRMPData.setOutput("not reached")'),
    ).toBe('done');
  });
});

describe('isolation', () => {
  it('nothing a script changes is seen by the next one: modules, builtins, sys.modules, files, globals', async () => {
    expect(pythonScriptWorkers()).toBe(1);
    expect(
      await out(
        [
          'import json, builtins, sys, random',
          'json.dumps = lambda *a, **k: "patched"',
          'builtins.len = lambda x: -1',
          'builtins.leaked = "yes"',
          'sys.modules["json"] = None',
          'sys.path.insert(0, "/evil")',
          'random.seed(1)',
          'left_over = 42',
          'RMPData.setOutput("patched")',
        ].join('\n'),
      ),
    ).toBe('patched');
    expect(
      JSON.parse(
        await out(
          [
            'import json, sys, builtins',
            'RMPData.setOutput([json.dumps({"a": 1}), len([1, 2]), hasattr(builtins, "leaked"),',
            '    "left_over" in globals(), sys.path[0] == "/evil", RMPUtilities.jsonPut({}, "k", 1)])',
          ].join('\n'),
        ),
      ),
    ).toEqual(['{"a": 1}', 2, false, false, false, { k: 1 }]);
  });

  it('each script draws other random numbers', async () => {
    const draws = new Set<string>();
    for (let i = 0; i < 3; i++) draws.add(await out('import random\nRMPData.setOutput(random.random())'));
    expect(draws.size).toBe(3);
  });
});

describe('limits', () => {
  it('CPU time: a loop is stopped at cpuTimeMs, even when it catches KeyboardInterrupt', async () => {
    const loop = await failure('n = 0\nwhile True:\n    n += 1', { cpuTimeMs: 300 });
    expect(loop.kind).toBe('cpu-time');
    expect(loop.message).toMatch(
      /^script stopped: it ran for more than 300 ms of computing \(cpuTimeMs\) \(script line [23]\)$/,
    );
    const stubborn = await failure(
      'while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass',
      { cpuTimeMs: 200 },
    );
    expect(stubborn.message).toBe('script stopped: it ran for more than 200 ms of computing (cpuTimeMs)');
    // The worker was replaced; the next script runs.
    expect((await runPythonScript('RMPData.setOutput("after")', { ctx })).output).toBe('after');
  }, 30_000);

  it('a KeyboardInterrupt the script raises itself is an ordinary exception', async () => {
    expect(await errorOf(ctx, py('raise KeyboardInterrupt("mine")'))).toBe(
      'KeyboardInterrupt: mine (script line 1)',
    );
  });

  it('wall time: the whole script, within wallTimeMs', async () => {
    const slow = await failure('while True:\n    pass', { cpuTimeMs: 60_000, wallTimeMs: 300 });
    expect(slow.kind).toBe('wall-time');
    expect(slow.message).toMatch(/^script stopped: it took more than 300 ms in all \(wallTimeMs\)/);
  }, 30_000);

  it('memory: growing past memoryBytes ends the script; the next one runs', async () => {
    const big = await failure('x = bytearray(64 * 1024 * 1024)', { memoryBytes: 8 * 1024 * 1024 });
    expect(big.kind).toBe('memory');
    expect(big.message).toBe(
      'script stopped: it needed more than 8 MiB of memory (memoryBytes) (script line 1)',
    );
    const many = await failure('x = []\nwhile True:\n    x.append("x" * 1000)', {
      memoryBytes: 8 * 1024 * 1024,
    });
    expect(many.kind).toBe('memory');
    expect((await runPythonScript('RMPData.setOutput(len(bytearray(1024 * 1024)))', { ctx })).output).toBe(
      '1048576',
    );
  }, 60_000);

  it('recursion: bounded by stackBytes (a frame per 256 bytes, at most 1000)', async () => {
    const deep = await failure('def f(n):\n    return f(n + 1)\nf(0)', { stackBytes: 64 * 1024 });
    expect(deep.kind).toBe('stack');
    expect(deep.message).toBe(
      'script stopped: it recursed deeper than its 64 KiB stack allows (stackBytes) (script line 2)',
    );
    expect(
      (
        await runPythonScript(
          'def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nRMPData.setOutput(f(200))',
          { ctx },
        )
      ).output,
    ).toBe('200');
  });

  it('time.sleep waits, and its time counts as computing', async () => {
    expect(
      await out(
        'import time\nt = time.monotonic()\ntime.sleep(0.2)\nRMPData.setOutput(time.monotonic() - t >= 0.2)',
      ),
    ).toBe('true');
    const sleeper = await failure('import time\ntime.sleep(5)', { cpuTimeMs: 300 });
    expect(sleeper.kind).toBe('cpu-time');
  }, 30_000);

  it('a structure nested too deep for the interpreter’s native stack fails the sandbox, which is replaced', async () => {
    expect(await out('x = []\nfor i in range(20000):\n    x = [x]\nRMPData.setOutput(len(repr(x)))')).toBe(
      '40002',
    );
    const deep = await failure('x = []\nfor i in range(1000000):\n    x = [x]\nrepr(x)', {
      memoryBytes: 256 * 1024 * 1024,
      cpuTimeMs: 20_000,
    });
    expect(deep.kind).toBe('internal');
    expect(deep.message).toBe(
      'script: the sandbox failed: Pyodide already fatally failed and can no longer be used.',
    );
    expect((await runPythonScript('RMPData.setOutput("next")', { ctx })).output).toBe('next');
  }, 60_000);

  it('print and input reach nothing: print writes nowhere, input reads end of file', async () => {
    expect(await out('print("hello")\nRMPData.setOutput("ok")')).toBe('ok');
    expect(await errorOf(ctx, py('input()'))).toBe('EOFError: EOF when reading a line (script line 1)');
  });
});
