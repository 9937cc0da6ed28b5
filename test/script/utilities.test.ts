/**
 * RMPUtilities against the Java-generated fixtures the Utilities functions are tested with
 * (test/fixtures/functions/java): every case, called from a script in the case's context, gives
 * Java's value, or an error carrying Java's message — and the same as the template's function.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { jsMethodName, closeScripts, runScript, scriptApi } from '../../src/script/index.js';
import { defaultRegistry } from '../../src/functions/registry.js';
import {
  call,
  caseName,
  contextOf,
  errorOf,
  type JavaCase,
  groupByContext,
  UTILITY_FIXTURES,
} from '../functions/helpers.js';

afterAll(() => closeScripts());

/** Every fixture file's cases (aes.json groups them by function, rsa.json holds keys beside them). */
type Outcome = { v: unknown } | { e: string };

/** The template function's outcome for the case (a fresh context: randomness restarts). */
function templateOutcome(c: JavaCase): Outcome {
  const [name, ...args] = c.call;
  try {
    return { v: call(name, args, contextOf(c)) };
  } catch {
    return { e: errorOf(name, args, contextOf(c)) };
  }
}

/** Runs the cases in one script (they share a context that holds no random source). */
async function scriptOutcomes(cases: JavaCase[]): Promise<Outcome[]> {
  const calls = cases.map((c) => [jsMethodName(c.call[0]), c.call.slice(1)]);
  const { output } = await runScript(
    `const calls = ${JSON.stringify(calls)};
     RMPData.setOutput(calls.map(([method, args]) => {
       try { return { v: RMPUtilities[method](...args) }; } catch (e) { return { e: e.message }; }
     }));`,
    { ctx: contextOf(cases[0]!) },
  );
  return JSON.parse(output) as Outcome[];
}

describe('RMPUtilities against the Java fixtures', () => {
  it('offers every Utilities function under its camelCase name', () => {
    const api = scriptApi(defaultRegistry());
    const names = api.objects.RMPUtilities.map((m) => m.name);
    for (const spec of defaultRegistry()
      .list()
      .filter((f) => f.group === 'Utilities'))
      expect(names).toContain(jsMethodName(spec.name));
  });

  for (const [file, load] of UTILITY_FIXTURES) {
    it(`${file}.json: every case as Java and as the template function`, async () => {
      const cases = load();
      expect(cases.length).toBeGreaterThan(0);
      let checked = 0;
      for (const group of groupByContext(cases)) {
        const outcomes = await scriptOutcomes(group);
        group.forEach((c, i) => {
          const got = outcomes[i]!;
          const label = caseName(c);
          const jsName = jsMethodName(c.call[0]);
          if (c.error !== undefined) {
            expect('e' in got, label).toBe(true);
            const message = (got as { e: string }).e;
            expect(message, label).toContain(c.error.replace(/^[\w.$]+: /, ''));
            const template = templateOutcome(c) as { e: string };
            expect(message, label).toBe(
              template.e.replace(new RegExp(`^${c.call[0]}: `), `RMPUtilities.${jsName}: `),
            );
          } else {
            expect(got, label).toEqual({ v: c.expect });
            expect(got, label).toEqual(templateOutcome(c));
          }
          checked++;
        });
      }
      expect(checked).toBe(cases.length);
    });
  }
});
