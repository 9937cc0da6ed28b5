/**
 * The Python twin of utilities.test.ts: RMPUtilities from `env="python"` against the same
 * Java-generated fixtures (test/fixtures/functions/java): every case, called from a Python script in
 * the case's context, gives Java's value, or an RMPError carrying the message the JavaScript
 * backend gives (the template function's, named RMPUtilities.<method>).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeScripts,
  configurePythonScripts,
  jsMethodName,
  runPythonScript,
  runScript,
} from '../../src/script/index.js';
import {
  caseName,
  contextOf,
  type JavaCase,
  groupByContext,
  UTILITY_FIXTURES,
} from '../functions/helpers.js';

afterAll(() => closeScripts());
beforeAll(() => configurePythonScripts({ workers: 1 }));

type Outcome = { v: unknown } | { e: string };

/** The cases in one script of each language (they share a context that holds no random source). */
async function outcomes(cases: JavaCase[]): Promise<{ js: Outcome[]; python: Outcome[] }> {
  const calls = JSON.stringify(cases.map((c) => [jsMethodName(c.call[0]), c.call.slice(1)]));
  const js = await runScript(
    `RMPData.setOutput(${calls}.map(([method, args]) => {
       try { return { v: RMPUtilities[method](...args) }; } catch (e) { return { e: e.message }; }
     }));`,
    { ctx: contextOf(cases[0]!) },
  );
  const python = await runPythonScript(
    [
      'import json',
      'def one(method, args):',
      '    try:',
      '        return {"v": getattr(RMPUtilities, method)(*args)}',
      '    except RMPError as e:',
      '        return {"e": str(e)}',
      `RMPData.setOutput([one(m, a) for m, a in json.loads(${JSON.stringify(calls)})])`,
    ].join('\n'),
    { ctx: contextOf(cases[0]!) },
  );
  return { js: JSON.parse(js.output) as Outcome[], python: JSON.parse(python.output) as Outcome[] };
}

describe('RMPUtilities from Python against the Java fixtures', () => {
  for (const [file, load] of UTILITY_FIXTURES) {
    it(`${file}.json: every case as Java and as the JavaScript backend`, async () => {
      const cases = load();
      expect(cases.length).toBeGreaterThan(0);
      let checked = 0;
      for (const group of groupByContext(cases)) {
        const { js, python } = await outcomes(group);
        group.forEach((c, i) => {
          const label = caseName(c);
          const got = python[i]!;
          if (c.error !== undefined) {
            expect('e' in got, label).toBe(true);
            expect((got as { e: string }).e, label).toContain(c.error.replace(/^[\w.$]+: /, ''));
          } else expect(got, label).toEqual({ v: c.expect });
          expect(got, label).toEqual(js[i]);
          checked++;
        });
      }
      expect(checked).toBe(cases.length);
    }, 120_000);
  }
});
