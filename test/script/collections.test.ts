/**
 * RMPCollection against the Collections functions: the same fixtures, the same context, a template
 * and a script give the same results and the same errors; what one writes, the other reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { closeScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, call, contextIn, type World } from '../platform/world.js';
import { same, sameError, viaScript, viaTemplate, withoutIds } from './support.js';

afterAll(() => closeScripts());

const ORDERS = [
  { _id: 'o1', customer: 'acme', total: 120, status: 'open', tags: ['a'] },
  { _id: 'o2', customer: 'acme', total: 80, status: 'closed', tags: [] },
  { _id: 'o3', customer: 'zeta', total: 300, status: 'open', tags: ['a', 'b'] },
  { _id: 'o4', customer: 'beta', total: 15.5, status: 'open' },
];

describeEachEngine('RMPCollection', (engine) => {
  let w: World;
  let ann: ExecutionContext;
  let n = 0;
  /** Two collections holding the same documents: one for the template, one for the script. */
  const twins = async (docs: unknown[] = ORDERS): Promise<[string, string]> => {
    const base = `twin${n++}`;
    await call(ann, 'save_object', docs, `${base}_t`);
    await call(ann, 'save_object', docs, `${base}_s`);
    return [`${base}_t`, `${base}_s`];
  };
  const all = (name: string) => call(ann, 'list_objects', { _id: { $exists: true } }, name);

  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await contextIn(w, { user: 'ann', mode: 'LIVE' });
    await call(ann, 'save_object', ORDERS, 'orders');
  });

  describe('reads', () => {
    it('find/list/listObjects = list_objects (query, $orderby, first, limit)', async () => {
      const open = await same(
        ann,
        'list_objects({"status": "open"}, "orders")',
        'RMPCollection.find({status: "open"}, "orders")',
      );
      expect((open as { _id: string }[]).map((d) => d._id).sort()).toEqual(['o1', 'o3', 'o4']);
      await same(
        ann,
        'list_objects({"$query": {"customer": {"$in": ["acme", "zeta"]}}, "$orderby": {"total": -1}}, "orders", 1, 2)',
        'RMPCollection.list({$query: {customer: {$in: ["acme", "zeta"]}}, $orderby: {total: -1}}, "orders", 1, 2)',
      );
      await same(
        ann,
        'list_objects(\'{"total": {"$gt": 100}}\', "orders")',
        'RMPCollection.listObjects(\'{"total": {"$gt": 100}}\', "orders")',
      );
      expect(
        await viaScript(ann, 'RMPCollection.listObjects({total: {$gt: 100}}, "orders").map((d) => d._id)'),
      ).toEqual(['o1', 'o3']);
    });

    it('count, findOne/loadObject, aggregate', async () => {
      expect(
        await same(
          ann,
          'count_objects({"customer": "acme"}, "orders")',
          'RMPCollection.count({customer: "acme"}, "orders")',
        ),
      ).toBe(2);
      expect(
        await same(
          ann,
          'load_object({"customer": "zeta"}, "orders")',
          'RMPCollection.findOne({customer: "zeta"}, "orders")',
        ),
      ).toEqual(ORDERS[2]);
      expect(
        await same(
          ann,
          'load_object({"customer": "nobody"}, "orders")',
          'RMPCollection.loadObject({customer: "nobody"}, "orders")',
        ),
      ).toEqual({});
      const totals = await same(
        ann,
        'aggregate_collection("orders", {"$group": {"_id": "$customer", "sum": {"$sum": "$total"}}}, {"$sort": {"_id": 1}})',
        'RMPCollection.aggregate("orders", {$group: {_id: "$customer", sum: {$sum: "$total"}}}, {$sort: {_id: 1}})',
      );
      expect(totals).toEqual([
        { _id: 'acme', sum: 200 },
        { _id: 'beta', sum: 15.5 },
        { _id: 'zeta', sum: 300 },
      ]);
    });

    it('the same errors: empty conditions, bad pipelines, refused operators, bad arguments', async () => {
      expect(await sameError(ann, 'list_objects({}, "orders")', 'RMPCollection.find({}, "orders")')).toBe(
        'Cannot list objects with an empty condition.',
      );
      expect(await sameError(ann, 'count_objects({}, "orders")', 'RMPCollection.count({}, "orders")')).toBe(
        'Cannot count objects with an empty condition.',
      );
      await sameError(
        ann,
        'aggregate_collection("orders", {"$nope": 1})',
        'RMPCollection.aggregate("orders", {$nope: 1})',
      );
      await sameError(
        ann,
        'list_objects({"$where": "1"}, "orders")',
        'RMPCollection.find({$where: "1"}, "orders")',
      );
      await sameError(
        ann,
        'list_objects({"a": 1}, "orders", "x")',
        'RMPCollection.find({a: 1}, "orders", "x")',
      );
      await sameError(ann, 'list_objects({"a": 1})', 'RMPCollection.find({a: 1})');
    });
  });

  describe('writes', () => {
    it('save/saveObject = save_object; what the script saves the template reads', async () => {
      const t = await viaTemplate(ann, 'save_object([{"n": 1}, {"n": 2, "_id": "k2"}], "saved_t")');
      const s = await viaScript(ann, 'RMPCollection.save([{n: 1}, {n: 2, _id: "k2"}], "saved_s")');
      expect(withoutIds(s)).toEqual(withoutIds(t));
      expect((s as { _id: string }[])[1]!._id).toBe('k2');
      expect((s as { _id: string }[])[0]!._id).toMatch(/^[0-9a-f]{24}$/);
      const id = (s as { _id: string }[])[0]!._id;
      expect(await viaTemplate(ann, `load_object({"_id": "${id}"}, "saved_s")`)).toEqual({ _id: id, n: 1 });
      expect(
        await viaScript(ann, 'RMPCollection.saveObject({n: 3, when: new Date(0)}, "saved_s").when'),
      ).toBe('1970-01-01T00:00:00.000Z');
    });

    it('update/updateObjects, updateField, removeField, remove/removeObjects give the same counts and states', async () => {
      const [t, s] = await twins();
      await same(
        ann,
        `update_objects({"customer": "acme"}, {"$inc": {"total": 1}}, "${t}", true)`,
        `RMPCollection.update({customer: "acme"}, {$inc: {total: 1}}, "${s}", true)`,
      );
      await same(
        ann,
        `update_field({"_id": "o3"}, {"status": "done"}, "${t}")`,
        `RMPCollection.updateField({_id: "o3"}, {status: "done"}, "${s}")`,
      );
      await same(
        ann,
        `remove_field({"status": "open"}, "tags", "${t}", true)`,
        `RMPCollection.removeField({status: "open"}, "tags", "${s}", true)`,
      );
      expect(await all(t)).toEqual(await all(s));
      expect(
        await same(
          ann,
          `remove_objects({"total": {"$lt": 100}}, "${t}")`,
          `RMPCollection.remove({total: {$lt: 100}}, "${s}")`,
        ),
      ).toBe(2);
      expect(await all(t)).toEqual(await all(s));
      expect((await all(s)) as unknown[]).toHaveLength(2);
      await sameError(
        ann,
        `update_objects({}, {"a": 1}, "${t}")`,
        `RMPCollection.updateObjects({}, {a: 1}, "${s}")`,
      );
      // The variable named holds nothing, for both: the template's variables are the script's.
      expect(
        await sameError(
          ann,
          `update_objects({"a": 1}, "nothing", "${t}")`,
          `RMPCollection.updateObjects({a: 1}, "nothing", "${s}")`,
        ),
      ).toBe('Cannot update objects with a null object.');
      expect(
        await same(
          ann,
          `update_objects({"_id": "o1"}, "change", "${t}")`,
          `RMPCollection.updateObjects({_id: "o1"}, "change", "${s}")`,
          {
            change: { $set: { total: 1 } },
          },
        ),
      ).toBe(1);
      expect(await all(t)).toEqual(await all(s));
    });

    it('create/drop/rename/remove collection and indexes', async () => {
      const [t, s] = await twins();
      expect(
        await same(
          ann,
          `R_create_index("${t}", "by_customer", ["customer"], false)`,
          `RMPCollection.createIndex("${s}", "by_customer", ["customer"], false)`,
        ),
      ).toBe(true);
      const indexes = await same(ann, `R_list_indexes("${t}")`, `RMPCollection.listIndexes("${s}")`);
      expect((indexes as { name: string }[]).map((i) => i.name)).toEqual(['_id_', 'by_customer']);
      expect(
        await same(
          ann,
          `R_delete_index("${t}", "by_customer")`,
          `RMPCollection.deleteIndex("${s}", "by_customer")`,
        ),
      ).toBe(true);
      expect(
        await same(
          ann,
          `rename_collection("${t}", "${t}_r")`,
          `RMPCollection.renameCollection("${s}", "${s}_r")`,
        ),
      ).toBe(true);
      expect(
        await same(
          ann,
          `rename_collection("${t}", "x${t}")`,
          `RMPCollection.renameCollection("${s}", "x${s}")`,
        ),
      ).toBe(false);
      expect(await same(ann, `drop_collection("${t}_r")`, `RMPCollection.dropCollection("${s}_r")`)).toBe(
        true,
      );
      expect(await all(`${s}_r`)).toEqual([]);
      expect(await same(ann, `remove_collection("${t}_r")`, `RMPCollection.removeCollection("${s}_r")`)).toBe(
        true,
      );
      expect(
        await same(
          ann,
          `create_collection("${t}_new", true, false)`,
          `RMPCollection.createCollection("${s}_new", true, false)`,
        ),
      ).toBe(true);
      await same(
        ann,
        `create_collection("${t}_new", true, false)`,
        `RMPCollection.createCollection("${s}_new", true, false)`,
      );
    });

    it('import/importObjects reads an uploaded file into a collection', async () => {
      const file = (await call(ann, 'create_file', 'people.csv', 'name,age\nann,31\nbob,40\n', {})) as string;
      expect(
        await same(
          ann,
          `import_objects("${file}", "people_t", {"parse_numbers": ["age"]})`,
          `RMPCollection.import("${file}", "people_s", {parse_numbers: ["age"]})`,
        ),
      ).toBe(2);
      expect(withoutIds(await all('people_t'))).toEqual(withoutIds(await all('people_s')));
      await sameError(
        ann,
        'import_objects("nope", "people_t")',
        'RMPCollection.importObjects("nope", "people_s")',
      );
    });
  });
});
