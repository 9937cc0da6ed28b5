/**
 * Hostile `<@script env="javascript">` (the legacy engine): it runs on the JavaScript sandbox with
 * the same limits, and its two functions, print and setVariable, are bounded — by the script's
 * memory, a number of variables and the evaluation's budget — and refuse prototype keys.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutionContext, DEFAULT_LIMITS } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts, DEFAULT_SCRIPT_LIMITS } from '../../src/script/index.js';
import { LEGACY_MAX_VARIABLES, legacyCap } from '../../src/script/run.js';

afterAll(() => closeScripts());

const ctx = createExecutionContext();
const legacy = (body: string) => `<@script env="javascript"><#noparse>${body}</#noparse></@script>`;
const render = async (source: string, on = ctx) => (await evaluate(source, on, {})).output;
const failure = async (source: string, on = ctx): Promise<string> => {
  try {
    await evaluate(source, on, {});
  } catch (e) {
    return (e as Error).message.split('\n')[0]!;
  }
  throw new Error(`did not fail: ${source}`);
};
const CAP = legacyCap(DEFAULT_SCRIPT_LIMITS);

describe('legacy scripts keep the sandbox’s limits', () => {
  it('an endless loop ends at the CPU time limit while the event loop keeps turning; the next script works', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const message = await failure(
      '<@script env="javascript">\nwhile (true) {}</@script>',
      createExecutionContext(),
    ).finally(() => clearInterval(timer));
    expect(message).toMatch(
      /^script stopped: it ran for more than 2000 ms of computing \(cpuTimeMs\) \(script line \d, column \d+\)$/,
    );
    expect(ticks).toBeGreaterThan(20);
    expect(await render(legacy('print("next")'))).toBe('next');
  });

  it('memory growth ends at the memory limit', async () => {
    expect(await failure(legacy('const a = []; while (true) a.push({x: [1, 2, 3]});'))).toBe(
      'script stopped: it needed more than 32 MiB of memory (memoryBytes)',
    );
    expect(await failure(legacy('const a = [];\nfor (;;) a.push(new Array(1000).fill(a.length));'))).toBe(
      'script stopped: it needed more than 32 MiB of memory (memoryBytes) (script line 2, column 37)',
    );
  });

  it('nothing of the host is reachable: the prelude’s host function, require, process', async () => {
    expect(
      await render(
        legacy(
          'print([typeof host, typeof require, typeof process, typeof globalThis.host, Object.keys(globalThis).length].join())',
        ),
      ),
    ).toBe('undefined,undefined,undefined,undefined,0');
    expect(await render(legacy('print(print.constructor("return typeof process")())'))).toBe('undefined');
  });

  it('print and setVariable cannot be replaced or removed by the script', async () => {
    expect(await failure(legacy('"use strict"; print = null;'))).toBe(
      "TypeError: 'print' is read-only (script line 1, column 15)",
    );
    expect(await render(legacy('delete globalThis.setVariable; setVariable("still", 1)') + '${still}')).toBe(
      '1',
    );
  });
});

describe('print is bounded', () => {
  it('a huge print is refused at the cap, before the text is kept', async () => {
    expect(await failure(legacy('print("x".repeat(' + (CAP + 1) + '))'))).toBe(
      `print: the printed text and variables of this script would exceed ${CAP} characters (an eighth of its memoryBytes) (script line 1, column 6)`,
    );
  });

  it('an endless series of prints ends at the same cap', async () => {
    expect(await failure(legacy('const s = "y".repeat(100000);\nwhile (true) print(s);'))).toBe(
      `print: the printed text and variables of this script would exceed ${CAP} characters (an eighth of its memoryBytes) (script line 2, column 19)`,
    );
  });

  it('catching the refusal does not lift the cap', async () => {
    const output = await render(
      legacy(
        'const s = "z".repeat(1000000); let n = 0; for (let i = 0; i < 100; i++) { try { print(s); n++; } catch (e) {} } print("|" + n);',
      ),
    );
    // Four prints fit under the cap (4 MiB of characters); the fifth and all later ones are refused.
    expect(output.length).toBe(4_000_002);
    expect(output.endsWith('z|4')).toBe(true);
    expect(output.slice(0, -2).replaceAll('z', '')).toBe('');
  });
});

describe('setVariable is bounded', () => {
  it('a huge value is refused at the cap', async () => {
    expect(await failure(legacy('setVariable("big", "x".repeat(' + CAP + '))'))).toBe(
      `setVariable: the printed text and variables of this script would exceed ${CAP} characters (an eighth of its memoryBytes) (script line 1, column 12)`,
    );
  });

  it('a value within the cap but past the evaluation’s allocation budget is refused before it is built', async () => {
    const small = createExecutionContext({
      limits: { ...DEFAULT_LIMITS, evaluation: { maxAllocBytes: 100_000 } },
    });
    expect(await failure(legacy('setVariable("big", "x".repeat(60000))'), small)).toBe(
      'Template execution stopped: setVariable("big"): the value would exceed the 100000 bytes limit for one evaluation.',
    );
  });

  it('the number of variables is bounded', async () => {
    expect(
      await failure(legacy(`for (let i = 0; i <= ${LEGACY_MAX_VARIABLES}; i++) setVariable("v" + i, i);`)),
    ).toBe(
      `setVariable: a script may set at most ${LEGACY_MAX_VARIABLES} variables (script line 1, column 44)`,
    );
    // Setting a name again does not count twice.
    expect(
      await render(
        legacy(`for (let i = 0; i < ${LEGACY_MAX_VARIABLES * 3}; i++) setVariable("v" + (i % 10), i);`) +
          '${v9?c}',
      ),
    ).toBe(String(LEGACY_MAX_VARIABLES * 3 - 1));
  });
});

describe('prototype keys', () => {
  it('refuses the name __proto__', async () => {
    expect(await failure(legacy('setVariable("__proto__", {polluted: true})'))).toBe(
      'TypeError: setVariable: argument 1 (name) "__proto__" is not allowed (script line 1, column 12)',
    );
  });

  it('other prototype names are ordinary variables and pollute nothing', async () => {
    expect(
      await render(
        legacy(
          'setVariable("constructor", "c"); setVariable("toString", "t"); setVariable("hasOwnProperty", "h");',
        ) + '${constructor}${toString}${hasOwnProperty}',
      ),
    ).toBe('cth');
    const plain: Record<string, unknown> = {};
    expect(plain.constructor).toBe(Object);
    expect(typeof plain.toString).toBe('function');
    expect(await render('${constructor!"gone"}')).toBe('gone');
  });

  it('refuses a __proto__ key anywhere in a value, however it is spelled', async () => {
    const message =
      'setVariable: argument 2 (value) of "o" contains the key "__proto__", which is not allowed';
    expect(await failure(legacy('setVariable("o", JSON.parse(\'{"__proto__": {"polluted": 1}}\'))'))).toBe(
      message,
    );
    expect(
      await failure(
        legacy('setVariable("o", [1, {a: JSON.parse(\'{"\\\\u005f_proto__": {"polluted": 1}}\')}])'),
      ),
    ).toBe(message);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A key that only looks like it, and text holding it, are fine.
    expect(
      await render(
        legacy('setVariable("o", {"__proto__x": 1, s: "\\"__proto__\\": 1"})') + '${o.__proto__x}|${o.s}',
      ),
    ).toBe('1|"__proto__": 1');
  });

  it('a prototype the script patches stays in its sandbox', async () => {
    expect(
      await render(
        legacy('Object.prototype.polluted = "yes"; setVariable("o", {a: 1}); print({}.polluted)') +
          '|${o.polluted!"clean"}',
      ),
    ).toBe('yes|clean');
    expect(await render(legacy('print(({}).polluted)'))).toBe('undefined');
  });
});
