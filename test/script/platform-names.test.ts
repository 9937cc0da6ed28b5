/**
 * The names the platform's JavaScript ES6 API reference documents (src/script/platform-reference.ts),
 * called as documented, with exact results; on SQLite, and on PostgreSQL with FLOWMARK_TEST_PG.
 * One alias is checked from Python too (the same method table).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { defaultRegistry } from '../../src/functions/registry.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { jsMethodName, scriptApi } from '../../src/script/api.js';
import { closeScripts, configurePythonScripts } from '../../src/script/index.js';
import { DOCUMENTED_METHODS, documentedStatus } from '../../src/script/platform-reference.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, call, contextIn, type World } from '../platform/world.js';
import { errorOf, scriptTag, viaScript } from './support.js';

afterAll(() => closeScripts());
beforeAll(() => configurePythonScripts({ workers: 1 }));

describe('the documented names', () => {
  it('every name the platform documents is offered by its object', () => {
    const api = scriptApi(defaultRegistry());
    const missing = DOCUMENTED_METHODS.filter(
      (d) => documentedStatus(api, d, jsMethodName).kind === 'missing',
    ).map((d) => `${d.object}.${d.name}`);
    expect(missing).toEqual([]);
  });

  it('a variant shows the parameters the script passes', () => {
    const api = scriptApi(defaultRegistry());
    const updateOne = api.objects.RMPCollection.find((m) => m.name === 'updateOne')!;
    expect(updateOne.forms.map((f) => f.map((p) => p.name))).toEqual([['where', 'fieldname', 'name']]);
    expect(updateOne.function).toBe('update_field');
  });
});

const ORDERS = [
  { _id: 'o1', customer: 'acme', total: 120, status: 'open' },
  { _id: 'o2', customer: 'acme', total: 80, status: 'closed' },
  { _id: 'o3', customer: 'zeta', total: 300, status: 'open' },
];

describeEachEngine('documented names against a store', (engine) => {
  let w: World;
  let ann: ExecutionContext;
  const totals = async (name: string) =>
    (
      (await call(ann, 'list_objects', { _id: { $exists: true } }, name)) as Array<{
        _id: string;
        total: number;
      }>
    )
      .map((d) => `${d._id}:${d.total}`)
      .sort();

  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await contextIn(w, { user: 'ann', mode: 'LIVE' });
  }, 120_000);

  it('RMPCollection.countDocuments(query, name) and saveObjects(array, name)', async () => {
    expect(
      (
        (await viaScript(
          ann,
          'RMPCollection.saveObjects(' + JSON.stringify(ORDERS) + ', "docs_a")',
        )) as unknown[]
      ).length,
    ).toBe(3);
    expect(await viaScript(ann, 'RMPCollection.countDocuments({status: "open"}, "docs_a")')).toBe(2);
    expect(await viaScript(ann, 'RMPCollection.countDocuments({customer: "nobody"}, "docs_a")')).toBe(0);
  });

  it('RMPCollection.updateOne / updateMany = update_field with multi false / true', async () => {
    await call(ann, 'save_object', ORDERS, 'docs_u');
    expect(
      await viaScript(ann, 'RMPCollection.updateOne({status: "open"}, {$inc: {total: 1}}, "docs_u")'),
    ).toBe(1);
    expect(await totals('docs_u')).toEqual(['o1:121', 'o2:80', 'o3:300']);
    expect(
      await viaScript(ann, 'RMPCollection.updateMany({status: "open"}, {$inc: {total: 1}}, "docs_u")'),
    ).toBe(2);
    expect(await totals('docs_u')).toEqual(['o1:122', 'o2:80', 'o3:301']);
    expect(
      await errorOf(
        ann,
        scriptTag('RMPCollection.updateMany({status: "open"}, {total: 0}, "docs_u", false)'),
      ),
    ).toBe('RMPCollection.updateMany: takes at most 3 arguments, got 4 (script line 1, column 25)');
    expect(await totals('docs_u')).toEqual(['o1:122', 'o2:80', 'o3:301']);
  });

  it('RMPCollection.importCSV / importJSON = import_objects with the format set', async () => {
    const csv = (await call(ann, 'create_file', 'p.csv', 'name,age\nann,31\nbob,40\n', {})) as string;
    const json = (await call(ann, 'create_file', 'p.json', '[{"name":"cy","age":5}]', {})) as string;
    expect(
      await viaScript(ann, `RMPCollection.importCSV("${csv}", "people_c", {parse_numbers: ["age"]})`),
    ).toBe(2);
    expect(await viaScript(ann, `RMPCollection.importJSON("${json}", "people_j")`)).toBe(1);
    const people = (name: string) =>
      viaScript(
        ann,
        `RMPCollection.find({name: {$exists: true}}, "${name}").map((p) => p.name + "/" + p.age).sort()`,
      );
    expect(await people('people_c')).toEqual(['ann/31', 'bob/40']);
    expect(await people('people_j')).toEqual(['cy/5']);
    // The JSON file read as CSV is refused by the CSV reader, not imported as JSON.
    expect(
      await errorOf(ann, scriptTag(`RMPCollection.importJSON("${csv}", "people_x", {format: "CSV"})`)),
    ).toBe(
      'RMPCollection.importJSON: argument 3 (options) sets format to "CSV", but importJSON imports JSON (script line 1, column 25)',
    );
    expect(await viaScript(ann, `RMPCollection.importCSV("${csv}", "people_c2", '{"format": "csv"}')`)).toBe(
      2,
    );
  });

  it('RMPUser.getLanes(login?) gives the lane ids as strings, from JavaScript and Python', async () => {
    const expected = [{ id: String(w.ids.clerks), name: 'Clerks', pool: w.ids.pool }];
    expect(await viaScript(ann, 'RMPUser.getLanes()')).toEqual(expected);
    expect(await viaScript(ann, 'RMPUser.getLanes("ann")')).toEqual(expected);
    const { output } = await evaluate(
      '<@script env="python"><#noparse>import json\nRMPData.setOutput(json.dumps([RMPUser.getLanes(), RMPCollection.countDocuments({"_id": {"$exists": True}}, "docs_a")]))</#noparse></@script>',
      ann,
      {},
    );
    expect(JSON.parse(output)).toEqual([expected, 3]);
  });

  it('the documented RMPRequest names answer as documented', async () => {
    expect(await viaScript(ann, 'RMPRequest.lock("docs", 0)')).toBe(true);
    expect(await viaScript(ann, 'RMPRequest.unlock("docs")')).toBe('docs');
    expect(await errorOf(ann, scriptTag('RMPRequest.raiseError("stop here")'))).toBe(
      'stop here (script line 1, column 22)',
    );
  });
});
