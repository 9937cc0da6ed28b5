/**
 * Python twins of objects.test.ts and collections.test.ts, table-driven: each row is one call as
 * a template function, as JavaScript and as Python, in the same context, on both engines; the
 * three give the same value. The error rows: the same message from the three (the scripts' naming
 * the method, JavaScript's with a column).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts, configurePythonScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, call, contextIn, type World } from '../platform/world.js';
import { errorOf, scriptTag, viaScript, viaTemplate, withoutNullFields } from './support.js';

afterAll(() => closeScripts());
beforeAll(() => configurePythonScripts({ workers: 1 }));

const py = (body: string) => `<@script env="python"><#noparse>${body}</#noparse></@script>`;

/** The value of a Python expression, through JSON (None becomes null). */
async function viaPython(ctx: ExecutionContext, expr: string): Promise<unknown> {
  const { output } = await evaluate(py(`import json\nRMPData.setOutput(json.dumps(${expr}))`), ctx, {});
  return JSON.parse(output);
}

type Who = 'ann' | 'admin' | 'inRequest';
interface Row {
  who?: Who;
  template: string;
  js: string;
  python: string;
}

describeEachEngine('RMP objects from Python against the template and JavaScript', (engine) => {
  let w: World;
  const ctxs = {} as Record<Who, ExecutionContext>;
  let text = '';

  beforeAll(async () => {
    w = await buildWorld(engine.store);
    const project = w.ids.project;
    ctxs.ann = await contextIn(w, { user: 'ann', mode: 'LIVE', project });
    ctxs.admin = await contextIn(w, { user: 'admin', mode: 'LIVE', project });
    ctxs.inRequest = await contextIn(w, { user: 'carl', request: w.request });
    text = (await call(ctxs.ann, 'create_file', 't.txt', 'hello world', {})) as string;
    await call(ctxs.ann, 'save_object', ORDERS, 'orders');
  }, 120_000);

  const rows = (): Array<[string, Row]> => [
    [
      'RMPRequest.getAccessUrl',
      {
        template: 'get_access_url(true)',
        js: 'RMPRequest.getAccessUrl(true)',
        python: 'RMPRequest.getAccessUrl(True)',
      },
    ],
    [
      'RMPRequest.getI18n',
      {
        template: 'get_i18n("greeting", "?", "fr")',
        js: 'RMPRequest.getI18n("greeting", "?", "fr")',
        python: 'RMPRequest.getI18n("greeting", "?", "fr")',
      },
    ],
    [
      'RMPRequest.getRequestInfo',
      {
        who: 'inRequest',
        template: 'get_request_info()',
        js: 'RMPRequest.getRequestInfo()',
        python: 'RMPRequest.getRequestInfo()',
      },
    ],
    [
      'RMPProject.getCustomList',
      {
        template: `get_custom_list("${w.list}")`,
        js: `RMPProject.getCustomList("${w.list}")`,
        python: `RMPProject.getCustomList("${w.list}")`,
      },
    ],
    [
      'RMPProject.getProjectMetadata',
      {
        template: 'get_project_metadata()',
        js: 'RMPProject.getProjectMetadata()',
        python: 'RMPProject.getProjectMetadata()',
      },
    ],
    [
      'RMPUser.getLanes',
      {
        // The platform documents lane ids as strings: the template's numbers, as text.
        template: 'get_lanes()?map(l -> l + {"id": l.id?c})',
        js: 'RMPUser.getLanes()',
        python: 'RMPUser.getLanes()',
      },
    ],
    [
      'RMPUser.hasRight',
      {
        template: `has_right("dora", ${w.ids.clerks})`,
        js: `RMPUser.hasRight("dora", ${w.ids.clerks})`,
        python: `RMPUser.hasRight("dora", ${w.ids.clerks})`,
      },
    ],
    [
      'RMPUser.isUserInLane',
      {
        template: `is_user_in_lane([${w.ids.clerks}])`,
        js: `RMPUser.isUserInLane([${w.ids.clerks}])`,
        python: `RMPUser.isUserInLane([${w.ids.clerks}])`,
      },
    ],
    [
      'RMPUser.getUserData',
      {
        template: 'get_user_data("carl")',
        js: 'RMPUser.getUserData("carl")',
        python: 'RMPUser.getUserData("carl")',
      },
    ],
    [
      'RMPUser.getApplications',
      {
        template: 'get_applications("ann", "web", "LIVE", true)',
        js: 'RMPUser.getApplications("ann", "web", "LIVE", true)',
        python: 'RMPUser.getApplications("ann", "web", "LIVE", True)',
      },
    ],
    [
      'RMPFile.fileIndexOf',
      {
        template: `R_file_index_of("${text}", "world")`,
        js: `RMPFile.fileIndexOf("${text}", "world")`,
        python: `RMPFile.fileIndexOf("${text}", "world")`,
      },
    ],
    [
      'RMPFile.fileSize',
      {
        template: `R_file_size("${text}")`,
        js: `RMPFile.fileSize("${text}")`,
        python: `RMPFile.fileSize("${text}")`,
      },
    ],
    [
      'RMPFile.fileSubstring',
      {
        template: `R_file_substring("${text}", "text", 3)`,
        js: `RMPFile.fileSubstring("${text}", "text", 3)`,
        python: `RMPFile.fileSubstring("${text}", "text", 3)`,
      },
    ],
    [
      'RMPApplication.i18n',
      {
        template: 'i18n("bye", "?")',
        js: 'RMPApplication.i18n("bye", "?")',
        python: 'RMPApplication.i18n("bye", "?")',
      },
    ],
    [
      'RMPData.getInternalParameter',
      {
        who: 'inRequest',
        template: 'P_customer',
        js: 'RMPData.getInternalParameter("P_customer")',
        python: 'RMPData.getInternalParameter("P_customer")',
      },
    ],
    [
      'RMPData.getCurrentUser',
      {
        who: 'inRequest',
        template: 'P_user',
        js: 'RMPData.getCurrentUser()',
        python: 'RMPData.getCurrentUser()',
      },
    ],
    [
      'RMPCollection.find',
      {
        template: 'list_objects({"status": "open"}, "orders")',
        js: 'RMPCollection.find({status: "open"}, "orders")',
        python: 'RMPCollection.find({"status": "open"}, "orders")',
      },
    ],
    [
      'RMPCollection.list',
      {
        template:
          'list_objects({"$query": {"customer": {"$in": ["acme", "zeta"]}}, "$orderby": {"total": -1}}, "orders", 1, 2)',
        js: 'RMPCollection.list({$query: {customer: {$in: ["acme", "zeta"]}}, $orderby: {total: -1}}, "orders", 1, 2)',
        python:
          'RMPCollection.list({"$query": {"customer": {"$in": ["acme", "zeta"]}}, "$orderby": {"total": -1}}, "orders", 1, 2)',
      },
    ],
    [
      'RMPCollection.count',
      {
        template: 'count_objects({"customer": "acme"}, "orders")',
        js: 'RMPCollection.count({customer: "acme"}, "orders")',
        python: 'RMPCollection.count({"customer": "acme"}, "orders")',
      },
    ],
    [
      'RMPCollection.aggregate',
      {
        template:
          'aggregate_collection("orders", {"$group": {"_id": "$customer", "sum": {"$sum": "$total"}}}, {"$sort": {"_id": 1}})',
        js: 'RMPCollection.aggregate("orders", {$group: {_id: "$customer", sum: {$sum: "$total"}}}, {$sort: {_id: 1}})',
        python:
          'RMPCollection.aggregate("orders", {"$group": {"_id": "$customer", "sum": {"$sum": "$total"}}}, {"$sort": {"_id": 1}})',
      },
    ],
    [
      'RMPUtilities.dateOffset',
      {
        template: 'date_offset("15/01/2024", 3, "dd/MM/yyyy")',
        js: 'RMPUtilities.dateOffset("15/01/2024", 3, "dd/MM/yyyy")',
        python: 'RMPUtilities.dateOffset("15/01/2024", 3, "dd/MM/yyyy")',
      },
    ],
  ];

  it('every RMP* object: the same value from the template, JavaScript and Python', async () => {
    const seen = new Set<string>();
    for (const [label, row] of rows()) {
      const ctx = ctxs[row.who ?? 'ann'];
      const template = await viaTemplate(ctx, row.template);
      const js = withoutNullFields(await viaScript(ctx, row.js));
      const python = withoutNullFields(await viaPython(ctx, row.python));
      expect(js, label).toEqual(template);
      expect(python, label).toEqual(js);
      seen.add(label.split('.')[0]!);
    }
    expect([...seen].sort()).toEqual([
      'RMPApplication',
      'RMPCollection',
      'RMPData',
      'RMPFile',
      'RMPProject',
      'RMPRequest',
      'RMPUser',
      'RMPUtilities',
    ]);
  }, 120_000);

  it('RMPCollection writes: the same counts and the same documents after them, in three twin collections', async () => {
    for (const name of ['w_t', 'w_j', 'w_p']) await call(ctxs.ann, 'save_object', ORDERS, name);
    const all = (name: string) => call(ctxs.ann, 'list_objects', { _id: { $exists: true } }, name);
    const steps: Array<[string, string, string]> = [
      [
        'update_objects({"customer": "acme"}, {"$inc": {"total": 1}}, "w_t", true)',
        'RMPCollection.update({customer: "acme"}, {$inc: {total: 1}}, "w_j", true)',
        'RMPCollection.update({"customer": "acme"}, {"$inc": {"total": 1}}, "w_p", True)',
      ],
      [
        'update_field({"_id": "o3"}, {"status": "done"}, "w_t")',
        'RMPCollection.updateField({_id: "o3"}, {status: "done"}, "w_j")',
        'RMPCollection.updateField({"_id": "o3"}, {"status": "done"}, "w_p")',
      ],
      [
        'remove_field({"status": "open"}, "tags", "w_t", true)',
        'RMPCollection.removeField({status: "open"}, "tags", "w_j", true)',
        'RMPCollection.removeField({"status": "open"}, "tags", "w_p", True)',
      ],
      [
        'save_object({"_id": "o9", "customer": "new", "total": 5}, "w_t")',
        'RMPCollection.save({_id: "o9", customer: "new", total: 5}, "w_j")',
        'RMPCollection.save({"_id": "o9", "customer": "new", "total": 5}, "w_p")',
      ],
      [
        'remove_objects({"total": {"$lt": 100}}, "w_t")',
        'RMPCollection.remove({total: {$lt: 100}}, "w_j")',
        'RMPCollection.remove({"total": {"$lt": 100}}, "w_p")',
      ],
    ];
    const results: unknown[] = [];
    for (const [template, js, python] of steps) {
      const t = await viaTemplate(ctxs.ann, template);
      expect(withoutNullFields(await viaScript(ctxs.ann, js)), js).toEqual(t);
      expect(withoutNullFields(await viaPython(ctxs.ann, python)), python).toEqual(t);
      results.push(t);
    }
    expect(results[4]).toBe(3);
    expect(await all('w_j')).toEqual(await all('w_t'));
    expect(await all('w_p')).toEqual(await all('w_t'));
    expect(((await all('w_p')) as Array<{ _id: string }>).map((d) => d._id).sort()).toEqual(['o1', 'o3']);
  }, 60_000);

  const errors = (): Array<[string, Omit<Row, 'who'>]> => [
    [
      'RMPRequest.getRequestInfo',
      {
        template: 'get_request_info("nope")',
        js: 'RMPRequest.getRequestInfo("nope")',
        python: 'RMPRequest.getRequestInfo("nope")',
      },
    ],
    [
      'RMPProject.getCustomList',
      {
        template: 'get_custom_list("nope")',
        js: 'RMPProject.getCustomList("nope")',
        python: 'RMPProject.getCustomList("nope")',
      },
    ],
    [
      'RMPUser.getLanes',
      {
        template: 'get_lanes("nobody")',
        js: 'RMPUser.getLanes("nobody")',
        python: 'RMPUser.getLanes("nobody")',
      },
    ],
    [
      'RMPCollection.find',
      {
        template: 'list_objects({"$where": "1"}, "orders")',
        js: 'RMPCollection.find({$where: "1"}, "orders")',
        python: 'RMPCollection.find({"$where": "1"}, "orders")',
      },
    ],
  ];

  it('errors: the template function’s message, named by the method, from JavaScript and Python', async () => {
    for (const [label, row] of errors()) {
      const ctx = ctxs.ann;
      const template = await errorOf(ctx, '${P_json_stringify(' + row.template + ')}');
      const js = await errorOf(ctx, scriptTag(`${row.js};`));
      const python = await errorOf(ctx, py(`x = 1\n${row.python}`));
      const name = /^[A-Za-z_0-9]+/.exec(row.template)![0];
      const message = template.replace(new RegExp(`^${name}: `), '');
      expect(js, label).toMatch(new RegExp(`^${label}: .*\\(script line 1, column \\d+\\)$`));
      expect(js.replace(/ \(script line.*$/, ''), label).toBe(`${label}: ${message}`);
      expect(python, label).toBe(`${label}: ${message} (script line 2)`);
    }
  }, 60_000);
});

const ORDERS = [
  { _id: 'o1', customer: 'acme', total: 120, status: 'open', tags: ['a'] },
  { _id: 'o2', customer: 'acme', total: 80, status: 'closed', tags: [] },
  { _id: 'o3', customer: 'zeta', total: 300, status: 'open', tags: ['a', 'b'] },
  { _id: 'o4', customer: 'beta', total: 15.5, status: 'open' },
];
