import { beforeAll, describe, expect, it } from 'vitest';
import { DataDocumentLimitError } from '../../../src/functions/collections/index.js';
import type { ExecutionContext } from '../../../src/functions/context.js';
import { defaultRegistry, type BoundFunction, type CallEnv } from '../../../src/functions/registry.js';
import { evaluate } from '../../../src/hosts/evaluate.js';
import { compile } from '../../../src/template/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, contextIn, type World } from '../../platform/world.js';

/** A call environment with variables; setVariable records what a function injects. */
function envWith(variables: Record<string, unknown> = {}): CallEnv & { set: Record<string, unknown> } {
  const set: Record<string, unknown> = {};
  return {
    set,
    getVariable: (name) =>
      Object.prototype.hasOwnProperty.call(variables, name) ? variables[name] : undefined,
    setVariable: (name, value) => {
      set[name] = value;
    },
    templateName: 'test',
    locale: 'en_US',
    timeZone: 'UTC',
  };
}

async function call(
  ctx: ExecutionContext,
  name: string,
  args: unknown[],
  env: CallEnv = envWith(),
): Promise<any> {
  const fn = defaultRegistry().bind(ctx).get(name) as BoundFunction;
  return fn.call(env, ...args);
}

async function errorOf(ctx: ExecutionContext, name: string, args: unknown[], env?: CallEnv): Promise<string> {
  try {
    await call(ctx, name, args, env);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${name} did not throw`);
}

let n = 0;
const fresh = (prefix = 'col') => `${prefix}${n++}`;

describeEachEngine('Collections functions', (engine) => {
  let w: World;
  let ann: ExecutionContext; // a user of the account
  let admin: ExecutionContext;
  let nobody: ExecutionContext;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await contextIn(w, { user: 'ann' });
    admin = await contextIn(w, { user: 'admin' });
    nobody = await contextIn(w, {});
  });

  /** A collection holding `docs` (saved by ann), returned with its name. */
  async function collectionWith(docs: unknown[]): Promise<string> {
    const name = fresh();
    await call(ann, 'save_object', [docs, name]);
    return name;
  }

  describe('save_object', () => {
    it('stores one object or an array and returns the stored form with a string _id', async () => {
      const name = fresh();
      const one = await call(ann, 'save_object', [{ first_name: 'Mike', n: 1 }, name]);
      expect(one).toEqual({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), first_name: 'Mike', n: 1 });
      const many = await call(ann, 'save_object', ['[{"a": 1}, {"a": 2, "_id": 5}]', name]);
      expect(many).toEqual([
        { _id: expect.any(String), a: 1 },
        { _id: '5', a: 2 },
      ]);
      const text = await call(ann, 'save_object', ['{"first_name":"Ann"}', name]);
      expect(typeof text._id).toBe('string');
      expect(await call(ann, 'count_objects', [{ _id: { $exists: true } }, name])).toBe(4);
    });

    it('refuses what is not an object', async () => {
      expect(await errorOf(ann, 'save_object', [[1], fresh()])).toBe(
        'save_object: argument 1 (object) element 0 is not an object',
      );
      expect(await errorOf(ann, 'save_object', ['nope', fresh()])).toMatch(
        /^save_object: argument 1 \(object\) expected/,
      );
    });
  });

  describe('list_objects', () => {
    it('returns the documents matching a query, from `first`, at most `limit`', async () => {
      const name = await collectionWith(
        [1, 2, 3, 4, 5].map((i) => ({ i, status: i % 2 ? 'open' : 'closed' })),
      );
      const ids = (docs: Array<{ i: number }>) => docs.map((d) => d.i);
      expect(ids(await call(ann, 'list_objects', [{ status: 'open' }, name]))).toEqual([1, 3, 5]);
      expect(ids(await call(ann, 'list_objects', ['{"i": {"$gt": 1}}', name, 1, 2]))).toEqual([3, 4]);
      expect(ids(await call(ann, 'list_objects', ['{"i": {"$gt": 1}}', name, '2', '1']))).toEqual([4]);
    });

    it('sorts with $query/$orderby, keeping the order of an $orderby array', async () => {
      const name = await collectionWith([
        { a: 1, b: 2 },
        { a: 2, b: 1 },
        { a: 1, b: 1 },
      ]);
      const pairs = (docs: Array<{ a: number; b: number }>) => docs.map((d) => `${d.a}${d.b}`);
      expect(
        pairs(
          await call(ann, 'list_objects', [{ $query: { a: { $gte: 1 } }, $orderby: { b: 1, a: -1 } }, name]),
        ),
      ).toEqual(['21', '11', '12']);
      expect(
        pairs(
          await call(ann, 'list_objects', [
            '{"$query": {"a": {"$gte": 1}}, "$orderby": [{"a": -1}, {"b": 1}]}',
            name,
          ]),
        ),
      ).toEqual(['21', '11', '12']);
      expect(
        pairs(await call(ann, 'list_objects', [{ $query: { a: 1 }, $orderby: [{ b: 1 }] }, name])),
      ).toEqual(['11', '12']);
    });

    it('returns 1000 documents by default and at most', async () => {
      const name = await collectionWith(Array.from({ length: 1005 }, (_, i) => ({ i })));
      expect(await call(ann, 'list_objects', [{ i: { $gte: 0 } }, name])).toHaveLength(1000);
      expect(await call(ann, 'list_objects', [{ i: { $gte: 0 } }, name, 0, 5000])).toHaveLength(1000);
      const tail = await call(ann, 'list_objects', [{ i: { $gte: 0 } }, name, 1000]);
      expect(tail.map((d: { i: number }) => d.i)).toEqual([1000, 1001, 1002, 1003, 1004]);
    });

    it('refuses an unparsable first or limit', async () => {
      for (const [first, limit] of [
        ['x', undefined],
        [0, 'ten'],
        [-1, 10],
        [0, -5],
        [1.5, 10],
        [{}, 10],
      ])
        expect(await errorOf(ann, 'list_objects', [{ a: 1 }, 'any', first, limit])).toBe(
          'Unable to parse skip index or limit value.',
        );
    });

    it('refuses an empty condition', async () => {
      for (const query of [{}, '', '  ', '{}', { $query: {} }, { $query: {}, $orderby: { a: 1 } }])
        expect(await errorOf(ann, 'list_objects', [query, 'any'])).toBe(
          'Cannot list objects with an empty condition.',
        );
      expect(await errorOf(ann, 'list_objects', [null, 'any'])).toBe(
        'list_objects: argument 1 (query) is missing: expected a value',
      );
    });

    it('gives an empty list for an unknown collection and explains bad queries', async () => {
      expect(await call(ann, 'list_objects', [{ a: 1 }, fresh('unknown')])).toEqual([]);
      expect(await errorOf(ann, 'list_objects', ['{"a": ', 'any'])).toMatch(
        /^list_objects: argument 1 \(query\) is not valid JSON: /,
      );
      expect(await errorOf(ann, 'list_objects', [{ $where: 'true' }, 'any'])).toBe(
        'list_objects: operator $where is not allowed',
      );
      const name = await collectionWith([{ a: 1 }]);
      expect(await errorOf(ann, 'list_objects', [{ a: { $bogus: 1 } }, name])).toBe(
        'list_objects: invalid query: unknown query operator $bogus',
      );
      expect(await errorOf(ann, 'list_objects', [{ $query: { a: 1 }, $orderby: { a: 2 } }, name])).toBe(
        "list_objects: argument 1 (query) $orderby direction of 'a' must be 1 or -1",
      );
    });
  });

  describe('count_objects, load_object, remove_objects', () => {
    it('count_objects counts and refuses an empty condition', async () => {
      const name = await collectionWith([{ a: 1 }, { a: 1 }, { a: 2 }]);
      expect(await call(ann, 'count_objects', [{ a: 1 }, name])).toBe(2);
      expect(await call(ann, 'count_objects', ['{"a": {"$in": [1, 2]}}', name])).toBe(3);
      expect(await errorOf(ann, 'count_objects', [{}, name])).toBe(
        'Cannot count objects with an empty condition.',
      );
      expect(await errorOf(ann, 'count_objects', ['', name])).toBe(
        'Cannot count objects with an empty condition.',
      );
    });

    it('load_object gives the first match, or an empty hash', async () => {
      const name = await collectionWith([
        { k: 'x', n: 1 },
        { k: 'x', n: 2 },
      ]);
      expect(await call(ann, 'load_object', [{ k: 'x' }, name])).toMatchObject({ n: 1 });
      expect(
        await call(ann, 'load_object', [{ $query: { k: 'x' }, $orderby: { n: -1 } }, name]),
      ).toMatchObject({ n: 2 });
      expect(await call(ann, 'load_object', [{ k: 'none' }, name])).toEqual({});
      expect(await errorOf(ann, 'load_object', [{}, name])).toBe(
        'Cannot load an object with an empty condition.',
      );
    });

    it('remove_objects removes and refuses an empty condition', async () => {
      const name = await collectionWith([{ a: 1 }, { a: 1 }, { a: 2 }]);
      expect(await call(ann, 'remove_objects', [{ a: 1 }, name])).toBe(2);
      expect(await call(ann, 'count_objects', [{ a: { $exists: true } }, name])).toBe(1);
      expect(await errorOf(ann, 'remove_objects', ['{}', name])).toBe(
        'Cannot remove objects with an empty condition.',
      );
    });
  });

  describe('update_objects, update_field, remove_field', () => {
    it('update_objects reads the NAME of a variable and updates the first match, or all with multi', async () => {
      const name = await collectionWith([
        { k: 'x', n: 1 },
        { k: 'x', n: 2 },
      ]);
      const env = envWith({ change: { $inc: { n: 10 } }, replacement: '{"k": "y"}' });
      expect(await call(ann, 'update_objects', ['{"k": "x"}', 'change', name], env)).toBe(1);
      expect(await call(ann, 'update_objects', ['{"k": "x"}', 'change', name, true], env)).toBe(2);
      const docs = await call(ann, 'list_objects', [{ k: 'x' }, name]);
      expect(docs.map((d: { n: number }) => d.n)).toEqual([21, 12]);
      expect(await call(ann, 'update_objects', [{ n: 12 }, 'replacement', name], env)).toBe(1);
      expect(await call(ann, 'load_object', [{ k: 'y' }, name])).toEqual({ _id: docs[1]._id, k: 'y' });
    });

    it('update_objects refuses an empty condition and a null object', async () => {
      const env = envWith({ empty: null });
      expect(await errorOf(ann, 'update_objects', ['{}', 'change', 'any'], env)).toBe(
        'Cannot update objects with an empty condition.',
      );
      for (const variable of ['missing', 'empty'])
        expect(await errorOf(ann, 'update_objects', ['{"a": 1}', variable, 'any'], env)).toBe(
          'Cannot update objects with a null object.',
        );
    });

    it('update_field sets fields or applies operators, on the first match unless multi', async () => {
      const name = await collectionWith([
        { k: 'x', n: 1 },
        { k: 'x', n: 2 },
      ]);
      expect(await call(ann, 'update_field', ['{"k": "x"}', '{"status": "done"}', name])).toBe(1);
      expect(await call(ann, 'update_field', ['{"k": "x"}', { $inc: { n: 1 } }, name, true])).toBe(2);
      const docs = await call(ann, 'list_objects', [{ k: 'x' }, name]);
      expect(docs.map((d: Record<string, unknown>) => [d.n, d.status])).toEqual([
        [2, 'done'],
        [3, undefined],
      ]);
      expect(await errorOf(ann, 'update_field', ['', '{"a": 1}', name])).toBe(
        'Cannot update objects fields with an empty condition.',
      );
      expect(await errorOf(ann, 'update_field', ['{"k": "x"}', '{}', name])).toBe(
        'update_field: argument 2 (fieldname) must name the fields to update',
      );
    });

    it('remove_field removes a field from the first match unless multi', async () => {
      const name = await collectionWith([
        { k: 'x', tmp: 1 },
        { k: 'x', tmp: 2 },
      ]);
      expect(await call(ann, 'remove_field', [{ k: 'x' }, 'tmp', name])).toBe(1);
      expect(await call(ann, 'count_objects', [{ tmp: { $exists: true } }, name])).toBe(1);
      expect(await call(ann, 'remove_field', [{ k: 'x' }, 'tmp', name, true])).toBe(2);
      expect(await call(ann, 'count_objects', [{ tmp: { $exists: true } }, name])).toBe(0);
      expect(await errorOf(ann, 'remove_field', [{ k: 'x' }, '_id', name])).toBe(
        "remove_field: argument 2 (fieldname) cannot be '_id'",
      );
    });
  });

  describe('aggregate_collection', () => {
    it('runs several pipelines (objects or arrays, hashes or JSON text) one after the other', async () => {
      const name = await collectionWith([
        { g: 'a', v: 1 },
        { g: 'b', v: 2 },
        { g: 'a', v: 3 },
      ]);
      expect(
        await call(ann, 'aggregate_collection', [
          name,
          { $match: { v: { $gte: 1 } } },
          '[{"$group": {"_id": "$g", "total": {"$sum": "$v"}}}, {"$sort": {"_id": 1}}]',
        ]),
      ).toEqual([
        { _id: 'a', total: 4 },
        { _id: 'b', total: 2 },
      ]);
      expect(
        await call(ann, 'aggregate_collection', [
          name,
          [{ $match: { g: 'b' } }],
          { $project: { _id: 0, v: 1 } },
        ]),
      ).toEqual([{ v: 2 }]);
    });

    it('returns the first 1000 documents only', async () => {
      const name = await collectionWith(Array.from({ length: 1003 }, (_, i) => ({ i })));
      expect(await call(ann, 'aggregate_collection', [name, { $match: { i: { $gte: 0 } } }])).toHaveLength(
        1000,
      );
    });

    it('reports the position of an invalid pipeline and refuses script operators', async () => {
      const name = await collectionWith([{ a: 1 }]);
      expect(await errorOf(ann, 'aggregate_collection', [name, { $match: { a: 1 } }, { $nonsense: 1 }])).toBe(
        'Invalid pipeline at position 2.',
      );
      for (const bad of [42, '[', [], [{ $match: {}, $limit: 1 }], [{ $match: {} }, 'x']])
        expect(await errorOf(ann, 'aggregate_collection', [name, bad])).toBe(
          'Invalid pipeline at position 1.',
        );
      expect(await errorOf(ann, 'aggregate_collection', [name])).toBe(
        'aggregate_collection: argument 2 (pipeline) is missing: expected a value',
      );
      expect(await errorOf(ann, 'aggregate_collection', [name, { $match: { $where: 'true' } }])).toBe(
        'aggregate_collection: operator $where is not allowed',
      );
      expect(
        await errorOf(ann, 'aggregate_collection', [
          name,
          { $group: { _id: null, x: { $accumulator: { init: 'f' } } } },
        ]),
      ).toBe('aggregate_collection: operator $accumulator is not allowed');
      expect(await errorOf(ann, 'aggregate_collection', [name, { $out: 'copy' }])).toBe(
        'aggregate_collection: operator $out is not supported',
      );
    });
  });

  describe('create, drop, remove, rename', () => {
    it('follow their rules and return booleans', async () => {
      const name = fresh();
      expect(await call(ann, 'create_collection', [name, false, 'false'])).toBe(true);
      expect(await call(ann, 'create_collection', [name, true, true])).toBe(false);
      await call(ann, 'save_object', [{ a: 1 }, name]);
      expect(await call(ann, 'drop_collection', [name])).toBe(true);
      expect(await call(ann, 'count_objects', [{ a: 1 }, name])).toBe(0);
      expect(await call(ann, 'R_list_indexes', [name])).toHaveLength(1); // still there
      const renamed = fresh();
      expect(await call(ann, 'rename_collection', [name, renamed])).toBe(true);
      expect(await call(ann, 'rename_collection', [name, renamed])).toBe(false);
      expect(await call(ann, 'remove_collection', [renamed])).toBe(true);
      expect(await call(ann, 'remove_collection', [renamed])).toBe(false);
      expect(await errorOf(ann, 'R_list_indexes', [renamed])).toBe(
        `R_list_indexes: collection '${renamed}' does not exist`,
      );
    });

    it('enforce is_public and is_readonly', async () => {
      const priv = fresh();
      const shared = fresh();
      await call(admin, 'create_collection', [priv, false, false]);
      await call(admin, 'create_collection', [shared, true, true]);
      await call(admin, 'save_object', [{ a: 1 }, shared]);
      expect(await errorOf(nobody, 'list_objects', [{ a: 1 }, priv])).toBe(
        `list_objects: collection '${priv}' is not public: only a user of the account may use it`,
      );
      expect(await call(nobody, 'count_objects', [{ a: 1 }, shared])).toBe(1);
      expect(await errorOf(ann, 'save_object', [{ a: 2 }, shared])).toBe(
        `save_object: collection '${shared}' is read-only: only an administrator of the account may modify it`,
      );
      expect(await errorOf(nobody, 'remove_objects', [{ a: 1 }, shared])).toBe(
        `remove_objects: collection '${shared}' is read-only: only an administrator of the account may modify it`,
      );
      expect(await call(admin, 'remove_objects', [{ a: 1 }, shared])).toBe(1);
      expect(await errorOf(nobody, 'create_collection', [fresh('anon'), true, false])).toMatch(
        /^create_collection: only a user of the account may create collection 'anon\d+'$/,
      );
    });
  });

  describe('indexes', () => {
    it('R_create_index, R_list_indexes and R_delete_index take the integer id or the name', async () => {
      const name = await collectionWith([{ email: 'a@x' }]);
      const id = (await w.platform.collections.getCollection(ann, name))!.id;
      expect(await call(ann, 'R_create_index', [id, 'email_1', ['email'], true])).toBe(true);
      expect(await call(ann, 'R_create_index', [name, 'by_date', '["date"]', false, false])).toBe(true);
      expect(await call(ann, 'R_list_indexes', [String(id)])).toEqual([
        { keys: ['_id'], unique: true, name: '_id_', ascending: true },
        { keys: ['email'], unique: true, name: 'email_1', ascending: true },
        { keys: ['date'], unique: false, name: 'by_date', ascending: false },
      ]);
      expect(await errorOf(ann, 'save_object', [{ email: 'a@x' }, name])).toBe(
        `save_object: duplicate key: unique index 'email_1' of collection '${name}' already has a document with the same email`,
      );
      expect(await call(ann, 'R_delete_index', [id, 'email_1'])).toBe(true);
      expect(await call(ann, 'R_delete_index', [id, 'email_1'])).toBe(false);
      await call(ann, 'save_object', [{ email: 'a@x' }, name]);
      expect(await errorOf(ann, 'R_create_index', [id, 'email_1', ['email'], true])).toBe(
        `R_create_index: cannot create unique index 'email_1': documents of collection '${name}' repeat the same email`,
      );
      expect(await errorOf(ann, 'R_create_index', [id, 'x', [1]])).toBe(
        'R_create_index: argument 3 (keys) must be an array of field names',
      );
      expect(await errorOf(ann, 'R_list_indexes', [987654])).toBe(
        'R_list_indexes: collection 987654 does not exist',
      );
    });
  });

  describe('import_objects', () => {
    const upload = async (ctx: ExecutionContext, content: string | Buffer, name = 'data.csv') =>
      (
        await w.platform.files.create(
          ctx.accountId,
          { userId: ctx.user?.id ?? null, isAdmin: ctx.user?.isAdmin ?? false, mode: ctx.mode },
          { name, content: typeof content === 'string' ? Buffer.from(content) : content },
        )
      ).id;

    it('imports a CSV file with every option of spec 2.3', async () => {
      const file = await upload(
        ann,
        'name; qty ;price;code;note\n' +
          ' Ann ;  3 ; 1.5;007;"say ""hi"""\n' +
          'Bob;;2e1;-12;\n' +
          '"Carl; Jr";4;0.25;5;  \n',
      );
      const name = fresh();
      const options = {
        separator: ';',
        delimiter: '"',
        empty: 'n/a',
        trim: true,
        parse_numbers: ['price', 1],
        parse_longs: ['code'],
      };
      expect(await call(ann, 'import_objects', [file, name, options])).toBe(3);
      const docs = await call(ann, 'list_objects', [{ name: { $exists: true } }, name]);
      expect(docs.map(({ _id, ...rest }: Record<string, unknown>) => rest)).toEqual([
        { name: 'Ann', qty: 3, price: 1.5, code: 7, note: 'say "hi"' },
        { name: 'Bob', qty: 'n/a', price: 20, code: -12, note: 'n/a' },
        { name: 'Carl; Jr', qty: 4, price: 0.25, code: 5, note: 'n/a' },
      ]);
    });

    it('reads other charsets, JSON files, and the deprecated separator form', async () => {
      const latin1 = await upload(ann, Buffer.from('ville|pays\nGenève|Suisse\n', 'latin1'));
      const name = fresh();
      expect(
        await call(ann, 'import_objects', [latin1, name, { separator: '|', charset: 'ISO-8859-1' }]),
      ).toBe(1);
      expect(await call(ann, 'load_object', [{ pays: 'Suisse' }, name])).toMatchObject({ ville: 'Genève' });

      const json = await upload(ann, '[{"a": 1, "b": {"c": true}}, {"a": 2}]', 'data.json');
      expect(await call(ann, 'import_objects', [json, name, '{"format": "JSON"}'])).toBe(2);
      const lines = await upload(ann, '{"a": 3}\n\n{"a": 4}\n', 'data.ndjson');
      expect(await call(ann, 'import_objects', [lines, name, { format: 'json' }])).toBe(2);
      const tabs = await upload(ann, 'a\tb\n5\t6\n');
      expect(await call(ann, 'import_objects', [tabs, name, '\t'])).toBe(1);
      expect(await call(ann, 'count_objects', [{ a: { $exists: true } }, name])).toBe(5);
      expect(await call(ann, 'load_object', [{ b: '6' }, name])).toMatchObject({ a: '5', b: '6' });
    });

    it('drop empties the collection first', async () => {
      const name = await collectionWith([{ old: true }]);
      const file = await upload(ann, 'x\n1\n2\n');
      expect(await call(ann, 'import_objects', [file, name, {}, false])).toBe(2);
      expect(await call(ann, 'count_objects', [{ old: true }, name])).toBe(1);
      expect(await call(ann, 'import_objects', [file, name, {}, true])).toBe(2);
      expect(await call(ann, 'count_objects', [{ old: true }, name])).toBe(0);
      expect(await call(ann, 'count_objects', [{ x: { $exists: true } }, name])).toBe(2);
    });

    it('one bad row leaves the collection unchanged', async () => {
      const name = await collectionWith([{ keep: 1 }]);
      const rows = ['n'];
      for (let i = 0; i < 1200; i++) rows.push(String(i));
      rows.push('twelve');
      const file = await upload(ann, rows.join('\n'));
      expect(await errorOf(ann, 'import_objects', [file, name, { parse_numbers: ['n'] }, true])).toBe(
        `import_objects: line 1202, column 'n': "twelve" is not a number`,
      );
      expect(await call(ann, 'count_objects', [{ keep: 1 }, name])).toBe(1);
      expect(await call(ann, 'count_objects', [{ n: { $exists: true } }, name])).toBe(0);
    });

    it('reports an unknown file and bad options or rows', async () => {
      expect(await errorOf(ann, 'import_objects', ['no-such-file', fresh(), {}])).toBe(
        "Uploaded file no-such-file doesn't exist.",
      );
      const file = await upload(ann, 'a,b\n1,2,3\n');
      const cases: Array<[unknown, string]> = [
        [
          { seperator: ';' },
          "unknown option 'seperator' (known: format, separator, delimiter, empty, charset, parse_numbers, parse_longs, trim)",
        ],
        [{ charset: 'klingon' }, "unknown charset 'klingon'"],
        [{ format: 'XML' }, "option 'format' must be CSV or JSON, not 'XML'"],
        [{ parse_longs: ['zz'] }, 'option \'parse_longs\': no column "zz" in the header'],
        [{}, 'line 2 has 3 values but the header names 2 columns'],
      ];
      for (const [options, message] of cases)
        expect(await errorOf(ann, 'import_objects', [file, fresh(), options])).toBe(
          `import_objects: ${message}`,
        );
    });
  });

  describe('inject_objects', () => {
    it('keeps the objects of a variable, optionally some fields, in the data document', async () => {
      const objects = [
        { _id: '1', name: 'a', address: { city: 'Paris', zip: '75001' }, secret: 'x' },
        { _id: '2', name: 'b' },
      ];
      const env = envWith({ found: objects });
      const injected = await call(ann, 'inject_objects', ['found', 'name, address.city'], env);
      expect(injected).toEqual([{ name: 'a', address: { city: 'Paris' } }, { name: 'b' }]);
      expect(env.set.found).toEqual(injected);
      const all = envWith({ found: JSON.stringify(objects[1]) });
      expect(await call(ann, 'inject_objects', ['found'], all)).toEqual(objects[1]);
    });

    it('stores them in the request and stops the process past the data document limit', async () => {
      const inRequest = await contextIn(w, {
        user: 'ann',
        request: w.request,
        limits: { dataDocumentBytes: 200 },
      });
      const env = envWith({ small: [{ a: 1 }], big: [{ text: 'x'.repeat(300) }] });
      await call(inRequest, 'inject_objects', ['small'], env);
      expect((await w.platform.requests.require(w.account, w.request)).data).toMatchObject({
        order: 42,
        small: [{ a: 1 }],
      });
      const error = await call(inRequest, 'inject_objects', ['big'], env).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DataDocumentLimitError);
      expect((error as DataDocumentLimitError).stopsProcess).toBe(true);
      expect((error as Error).message).toMatch(
        /^inject_objects: the data document would reach \d+ bytes, over its maximum of 200 bytes: the process is stopped$/,
      );
      expect((await w.platform.requests.require(w.account, w.request)).data).not.toHaveProperty('big');
      expect(await errorOf(ann, 'inject_objects', ['nothing'], env)).toBe(
        "inject_objects: argument 1 (variable) names no variable ('nothing')",
      );
    });
  });

  describe('in a template', () => {
    it('list_objects and save_object work as scripts call them', async () => {
      const bound = defaultRegistry().bind(ann);
      const render = (source: string, vars: Record<string, unknown> = {}) =>
        compile(source).render({ get: (name: string) => (name in vars ? vars[name] : bound.get(name)) });
      const name = fresh();
      await render(`<#assign x = save_object({"status": "open", "n": 1}, "${name}")>`);
      await render(`<#assign o>{"status":"open","n":2}</#assign>\${save_object(o, "${name}")._id?length}`);
      expect(await render(`\${list_objects({"status":"open"}, "${name}")?size}`)).toBe('2');
      expect(
        await render(`<#assign q>{"status": "\${s}"}</#assign>\${list_objects(q, "${name}")[1].n}`, {
          s: 'open',
        }),
      ).toBe('2');
      expect(await render(`<#assign item = load_object({"status": "none"}, "${name}")>\${item?size}`)).toBe(
        '0',
      );
    });

    it('prints boolean results as the hosts render them, and captures output around database calls', async () => {
      const name = fresh();
      const run = async (source: string) => (await evaluate(source, ann)).output;
      expect(await run(`[\${create_collection("${name}", false, false)}]`)).toBe('[true]');
      expect(await run(`[\${create_collection("${name}", false, false)}]`)).toBe('[false]');
      expect(
        await run(
          `<#setting boolean_format="yes,no">\${drop_collection("${name}")} <#if rename_collection("${name}", "${name}x")>renamed</#if>`,
        ),
      ).toBe('yes renamed');
      expect(
        await run(
          `a<#assign r><#list 1..3 as i>\${save_object({"i": i}, "${name}x")?size}</#list>\${count_objects({"i": {"$gt": 0}}, "${name}x")}</#assign>b[\${r}]`,
        ),
      ).toBe('ab[2223]');
    });
  });
});
