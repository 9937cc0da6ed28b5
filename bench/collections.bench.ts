/**
 * Collections at scale: loads N generated documents (default 1,000,000) streamed through the
 * service with progress, reports the insert rate, then times indexed equality and range
 * list_objects and count_objects — the library functions bound through the registry and called
 * as a template calls them (hash arguments are Maps), and the service methods under them — beside
 * (a) a hand-written SQL query on the same engine and (b) a mingo full scan of the same documents
 * held in memory, all in this run.
 *
 *   npm run bench -- collections                       # SQLite, 1,000,000 documents
 *   FLOWMARK_BENCH_N=100000 npm run bench -- collections
 *   FLOWMARK_BENCH_PG=postgres://… npm run bench -- collections   # PostgreSQL (a fresh schema)
 *   BENCH_ROUNDS=21 …                                 # fewer timed rounds (default 101;
 *                                                     # FLOWMARK_BENCH_RUNS is the older name)
 *
 * Goals, for the library functions: list/count ≤ 1.5× the hand-written SQL (which also parses
 * the JSON it returns, so both produce the same objects) and ≥ 100× faster than the mingo scan
 * (≥ 150× for the range count on PostgreSQL, an index-only plan over the field's key column).
 * A missed goal is reported on its line and in a closing GOALS NOT MET list (the exit code stays 0).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Aggregator, find as mingoFind } from 'mingo';
import pg from 'pg';
import { createExecutionContext } from '../src/functions/context.js';
import { defaultRegistry, type BoundFunction, type CallEnv } from '../src/functions/registry.js';
import type { Platform } from '../src/platform/index.js';
import { CollectionService } from '../src/platform/collections/index.js';
import { openStore, quoteIdent, sql, type Sql, type Store } from '../src/store/index.js';

const N = Number(process.env.FLOWMARK_BENCH_N ?? process.argv[2] ?? 1_000_000);
const PG_URL = process.env.FLOWMARK_BENCH_PG;
const KEYS = Math.max(10, Math.floor(N / 100)); // equality: ~100 documents per key
const RANGE = 1000; // list: a range holding 1000 documents
const COUNT_RANGE = Math.max(1, Math.floor(N / 100)); // count: a range holding 1% of them
const actor = { accountId: 'bench', user: { id: 1, login: 'bench', isAdmin: true } };

/** Document i: `k` for equality (N/100 distinct), `r` a permutation of 0..N-1 for ranges. */
function documentAt(i: number) {
  return {
    k: i % KEYS,
    r: (i * 7919) % N,
    status: ['open', 'closed', 'pending', 'late', 'void'][i % 5],
    customer: `customer ${i % 5000}`,
    amount: Math.round(((i * 37) % 100000) * 1.5) / 100,
    note: 'lorem ipsum dolor sit amet',
  };
}

/** A value as a template holds it: hashes are Maps. */
function templateValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(templateValue);
  if (value !== null && typeof value === 'object')
    return new Map(Object.entries(value).map(([k, v]) => [k, templateValue(v)]));
  return value;
}

async function* generate(count: number) {
  for (let i = 0; i < count; i++) yield documentAt(i);
}

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Median wall times (ms) of several functions over `runs` rounds, after warming each up; every
 * round runs them one after the other, so that load from elsewhere hits all of them alike. With
 * `pauseMs`, each starts after that pause: what the previous one left to a thread (SQLite's
 * checkpoint, src/store/sqlite-checkpointer.ts) is then not counted in the next one's time.
 */
async function timeAll(
  fns: Array<() => Promise<unknown> | unknown>,
  runs: number,
  pauseMs = 0,
): Promise<number[]> {
  for (const fn of fns) for (let i = 0; i < 3; i++) await fn();
  const samples = fns.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < fns.length; j++) {
      if (pauseMs) await sleep(pauseMs);
      const t = performance.now();
      await fns[j]!();
      samples[j]!.push(performance.now() - t);
    }
  }
  return samples.map(median);
}

interface CostContext {
  store: Store;
  service: CollectionService;
  engine: string;
  all: Record<string, unknown>[];
  scope: Sql;
  field: (name: string) => Sql;
  runs: number;
  lo: number;
  key: number;
  missed: string[];
}

/**
 * Issue 29's rows, each against a reference measured here, ending with `goal:` lines: sort +
 * limit on an indexed field against an indexed equality; `$group` against the hand-written
 * GROUP BY (and mingo over the documents in memory, the build before, where it could run);
 * `update_objects` with multi against reading the same documents (and against the batched mingo
 * path, the build before, and one UPDATE per document).
 */
async function costRows(c: CostContext): Promise<void> {
  const { store, service, engine, all, scope, field, runs, lo, key, missed } = c;
  const goal = (name: string, value: number, bound: number, what: string) => {
    const met = value <= bound;
    if (!met) missed.push(`${name}: ${value.toFixed(2)}× (goal ≤ ${bound}×)`);
    console.log(`goal: ${name} ${value.toFixed(2)} x (${what}; ≤ ${bound}) ${met ? 'met' : 'NOT met'}`);
  };
  console.log('\nissue 29 (median ms)');

  // ── sort + limit on an indexed field (both directions) vs an indexed equality of the same size
  const sortAsc = () => service.find(actor, 'orders', {}, { sort: [['r', 1]], limit: 10 });
  const sortDesc = () => service.find(actor, 'orders', {}, { sort: [['r', -1]], limit: 10 });
  const equal = () => service.find(actor, 'orders', { k: key }, { limit: 10 });
  const expected = [...all]
    .sort((a, b) => (a.r as number) - (b.r as number))
    .slice(0, 10)
    .map((d) => d._id);
  if (JSON.stringify((await sortAsc()).map((d) => d._id)) !== JSON.stringify(expected))
    throw new Error('sort + limit: not the 10 least r');
  const explained = await service.explain(actor, 'orders', {}, { sort: [['r', 1]], limit: 10 });
  const [tAsc, tDesc, tEqual] = await timeAll([sortAsc, sortDesc, equal], runs);
  console.log(
    `sort r asc + limit 10 ${tAsc.toFixed(3)}, desc ${tDesc.toFixed(3)}; equality k + limit 10 ${tEqual.toFixed(3)}` +
      ` (sortIndexed: ${explained.sortIndexed})`,
  );
  goal(
    'sort-limit-vs-equality',
    Math.max(tAsc, tDesc) / tEqual,
    5,
    'the slower direction ÷ an indexed equality',
  );

  // ── $group over the whole collection vs the hand-written GROUP BY
  const pipeline = [
    { $group: { _id: '$status', n: { $count: {} }, total: { $sum: '$r' }, hi: { $max: '$k' } } },
  ];
  const grouped = () => service.aggregate(actor, 'orders', pipeline);
  const rawGroup = () =>
    store.all(
      engine === 'sqlite'
        ? sql`SELECT json_extract(doc, '$."status"') AS s, count(*) AS n, sum(json_extract(doc, '$."r"')) AS total,
              max(json_extract(doc, '$."k"')) AS hi FROM documents WHERE ${scope} GROUP BY s ORDER BY min(seq)`
        : sql`SELECT doc::jsonb ->> 'status' AS s, count(*) AS n, sum((doc::jsonb ->> 'r')::bigint) AS total,
              max((doc::jsonb ->> 'k')::bigint) AS hi FROM documents WHERE ${scope} GROUP BY s ORDER BY min(seq)`,
    );
  const ours = await grouped();
  const theirs = (await rawGroup()).map((r) => ({
    _id: r.s,
    n: Number(r.n),
    total: Number(r.total),
    hi: Number(r.hi),
  }));
  if (JSON.stringify(ours) !== JSON.stringify(theirs)) throw new Error('$group: differs from raw GROUP BY');
  const groupRuns = Math.max(3, Math.floor(runs / 10));
  const [tGroup, tRawGroup] = await timeAll([grouped, rawGroup], groupRuns);
  const [tMingoGroup] = await timeAll(
    [() => new Aggregator(pipeline).run(all)],
    Math.max(3, Math.floor(groupRuns / 3)),
  );
  console.log(
    `$group over ${all.length.toLocaleString('en')} documents ${tGroup.toFixed(1)}; raw GROUP BY ${tRawGroup.toFixed(1)};` +
      ` mingo on the documents already in memory ${tMingoGroup.toFixed(1)}` +
      (all.length > 200_000 ? ' (the build before refused this: more than 200,000 documents)' : ''),
  );
  goal('group-vs-raw', tGroup / tRawGroup, 3, '$group ÷ hand-written GROUP BY');

  // ── update_objects multi: 1,000 documents vs reading them; and the build before's one UPDATE each
  const range = { r: { $gte: lo, $lt: lo + 1000 } };
  let path = '';
  const update = () =>
    service.update(
      actor,
      'orders',
      range,
      { $inc: { touched: 1 } },
      { multi: true, onPath: (p) => (path = p) },
    );
  // The batched path (read, mingo, write back in batches of 500): the build before the set-based UPDATE.
  const batchedService = new CollectionService(store, { setBasedUpdates: false });
  const batched = () =>
    batchedService.update(actor, 'orders', range, { $inc: { touched: 1 } }, { multi: true });
  const read = () => service.find(actor, 'orders', range, { limit: 1000 });
  const perDocument = async () => {
    const rows = await store.all<{ seq: number; doc: string }>(
      sql`SELECT seq, doc FROM documents WHERE ${scope} AND ${field('r')} >= ${engine === 'sqlite' ? sql`${lo}` : sql`${JSON.stringify(lo)}::jsonb`}
          AND ${field('r')} < ${engine === 'sqlite' ? sql`${lo + 1000}` : sql`${JSON.stringify(lo + 1000)}::jsonb`} ORDER BY seq`,
    );
    await store.transaction(async (tx) => {
      for (const r of rows) {
        const d = JSON.parse(r.doc) as Record<string, number>;
        d.touched = (d.touched ?? 0) + 1;
        await tx.run(sql`UPDATE documents SET doc = ${JSON.stringify(d)} WHERE ${scope} AND seq = ${r.seq}`);
      }
    });
  };
  // On SQLite, the same update through a second store on the file whose commits run SQLite's
  // automatic checkpoint (the build before the checkpoint thread, src/store/sqlite-checkpointer.ts).
  const inlineStore =
    engine === 'sqlite'
      ? await openStore({ sqliteFile: store.location, databaseUrl: undefined, sqliteCheckpoint: false })
      : undefined;
  const inlineService = inlineStore && new CollectionService(inlineStore);
  const inline = () =>
    inlineService!.update(actor, 'orders', range, { $inc: { touched: 1 } }, { multi: true });
  if ((await update()) !== 1000) throw new Error('update: expected 1000 documents');
  const updateRuns = Math.max(5, Math.floor(runs / 5));
  // Writes, each followed by a checkpoint: every call starts after a pause (the same for the read).
  const [tUpdate, tRead, tBatched, tPerDocument, tInline] = await timeAll(
    [update, read, batched, perDocument, ...(inlineService ? [inline] : [])],
    updateRuns,
    250,
  );
  await inlineStore?.close();
  console.log(
    `update_objects multi, 1000 documents ${tUpdate.toFixed(1)} (${path}); reading them ${tRead.toFixed(1)};` +
      ` the batched mingo path (the build before) ${tBatched.toFixed(1)}; one UPDATE per document without mingo ${tPerDocument.toFixed(1)}` +
      (tInline !== undefined
        ? `; set-based with SQLite's automatic checkpoint in the commit (before the checkpoint thread) ${tInline.toFixed(1)} = ${(tInline / tRead).toFixed(2)}× reading`
        : ''),
  );
  goal('bulk-update-vs-read', tUpdate / tRead, 5, 'update of 1000 documents ÷ reading them');
}

async function main() {
  let dir: string | undefined;
  let schema: string | undefined;
  let store: Store;
  if (PG_URL) {
    schema = `bench_${process.pid}`;
    store = await openStore({ databaseUrl: PG_URL, pgSchema: schema });
  } else {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-'));
    store = await openStore({ dataDir: dir, databaseUrl: undefined });
  }
  const engine = store.dialect.name;
  console.log(`collections bench: ${N.toLocaleString('en')} documents on ${engine} (${store.location})`);
  try {
    const service = new CollectionService(store);

    // ── load
    let t = performance.now();
    let lastShown = 0;
    const loaded = await service.importDocuments(actor, 'orders', generate(N), {
      onProgress: ({ documents }) => {
        if (documents - lastShown >= 100_000 || (documents === N && lastShown !== N)) {
          lastShown = documents;
          const rate = documents / ((performance.now() - t) / 1000);
          console.log(
            `  loaded ${documents.toLocaleString('en')} / ${N.toLocaleString('en')}  (${Math.round(rate).toLocaleString('en')} docs/s)`,
          );
        }
      },
    });
    const loadSeconds = (performance.now() - t) / 1000;
    console.log(
      `insert: ${loaded.toLocaleString('en')} documents in ${loadSeconds.toFixed(1)} s = ${Math.round(loaded / loadSeconds).toLocaleString('en')} docs/s`,
    );

    t = performance.now();
    await service.createIndex(actor, 'orders', 'by_k', { keys: ['k'], unique: false, ascending: true });
    await service.createIndex(actor, 'orders', 'by_r', { keys: ['r'], unique: true, ascending: true });
    console.log(`indexes on k and r (unique): ${((performance.now() - t) / 1000).toFixed(1)} s`);
    if (engine === 'postgres') {
      // What autovacuum does soon after a bulk load on a running server: it sets the visibility
      // map, without which a count cannot be answered from the index alone (the raw SQL benefits
      // alike). Timed here so a run does not depend on when autovacuum happens to pass.
      t = performance.now();
      await store.exec('VACUUM (ANALYZE) documents');
      console.log(
        `vacuum (analyze), as autovacuum would after the load: ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
    }

    // The library functions as a script calls them: bound to a context whose platform holds the service.
    const ctx = createExecutionContext({
      accountId: actor.accountId,
      user: actor.user,
      platform: { collections: service } as unknown as Platform,
    });
    const bound = defaultRegistry().bind(ctx);
    const env: CallEnv = {
      getVariable: () => undefined,
      templateName: 'bench',
      locale: 'en_US',
      timeZone: 'UTC',
    };
    const listObjects = bound.get('list_objects') as BoundFunction;
    const countObjects = bound.get('count_objects') as BoundFunction;

    const collection = (await service.getCollection(actor, 'orders'))!;
    const id = collection.id;

    // ── the mingo scan works on every document, parsed once and kept in memory
    t = performance.now();
    const all = (
      await store.all<{ doc: string }>(
        sql`SELECT doc FROM documents WHERE account_id = ${actor.accountId} AND collection_id = ${id} ORDER BY seq`,
      )
    ).map((r) => JSON.parse(r.doc) as Record<string, unknown>);
    console.log(
      `mingo scan input: ${all.length.toLocaleString('en')} documents read and parsed in ${((performance.now() - t) / 1000).toFixed(1)} s (not timed below)`,
    );

    // ── hand-written SQL on the same engine, with the same indexes: an indexed field is read
    // from the key column the collection gave it (store/documents-*.ts)
    const keyColumns = JSON.parse(
      (await store.get<{ key_columns: string }>(sql`SELECT key_columns FROM collections WHERE id = ${id}`))!
        .key_columns,
    ) as Record<string, string>;
    const field = (name: string): Sql =>
      keyColumns[name] && /^k[1-4]$/.test(keyColumns[name])
        ? sql.raw(keyColumns[name])
        : engine === 'sqlite'
          ? sql.raw(`json_extract(doc, '$."${name}"')`)
          : sql.raw(`NULLIF(((doc)::jsonb -> '${name}'), 'null'::jsonb)`);
    const value = (v: number): Sql => (engine === 'sqlite' ? sql`${v}` : sql`${JSON.stringify(v)}::jsonb`);
    const scope = sql`account_id = ${actor.accountId} AND collection_id = ${sql.literal(id)}`;
    const rawList = (where: Sql) =>
      store.all<{ doc: string }>(
        sql`SELECT doc FROM documents WHERE ${scope} AND ${where} ORDER BY seq LIMIT 1000`,
      );
    const rawCount = async (where: Sql) =>
      Number(
        (await store.get<{ n: number }>(
          sql`SELECT count(*) AS n FROM documents WHERE ${scope} AND ${where}`,
        ))!.n,
      );

    const key = Math.floor(KEYS / 2);
    const lo = Math.floor(N / 3);
    const equality = { k: key };
    const listRange = { r: { $gte: lo, $lt: lo + RANGE } };
    const countRange = { r: { $gte: lo, $lt: lo + COUNT_RANGE } };
    // The hashes a template passes (made once: building them is the template's work, not timed).
    const [equalityHash, listRangeHash, countRangeHash] = [equality, listRange, countRange].map(
      templateValue,
    );
    const cases = [
      {
        name: 'list_objects equality',
        functions: () => listObjects.call(env, equalityHash, 'orders'),
        service: () => service.find(actor, 'orders', equality, { limit: 1000 }),
        rawRows: () => rawList(sql`${field('k')} = ${value(key)}`),
        mingo: () => mingoFind(all, equality).limit(1000).all(),
      },
      {
        name: 'list_objects range',
        functions: () => listObjects.call(env, listRangeHash, 'orders'),
        service: () => service.find(actor, 'orders', listRange, { limit: 1000 }),
        rawRows: () => rawList(sql`${field('r')} >= ${value(lo)} AND ${field('r')} < ${value(lo + RANGE)}`),
        mingo: () => mingoFind(all, listRange).limit(1000).all(),
      },
      {
        name: 'count_objects equality',
        functions: () => countObjects.call(env, equalityHash, 'orders'),
        service: () => service.count(actor, 'orders', equality),
        raw: () => rawCount(sql`${field('k')} = ${value(key)}`),
        mingo: () => mingoFind(all, equality).all().length,
      },
      {
        name: 'count_objects range',
        functions: () => countObjects.call(env, countRangeHash, 'orders'),
        service: () => service.count(actor, 'orders', countRange),
        raw: () =>
          rawCount(sql`${field('r')} >= ${value(lo)} AND ${field('r')} < ${value(lo + COUNT_RANGE)}`),
        mingo: () => mingoFind(all, countRange).all().length,
        // Issue 20: an index-only count on PostgreSQL.
        scanGoal: engine === 'postgres' ? 150 : 100,
      },
    ];

    const runs = Number(process.env.BENCH_ROUNDS ?? process.env.FLOWMARK_BENCH_RUNS ?? 101);
    console.log(
      `\nmedian of ${runs} runs (ms); functions = list_objects/count_objects bound through the registry, ` +
        'service = CollectionService.find/count, raw SQL = the hand-written query + JSON.parse of its rows',
    );
    console.log(
      'operation                             functions    service    raw SQL  (rows only)  mingo scan' +
        '  functions/raw  service/raw  mingo/functions',
    );
    const missed: string[] = [];
    // The scan goal is set for 1,000,000 documents: a smaller run's scan is shorter in proportion.
    const judgeScan = N >= 1_000_000;
    for (const c of cases) {
      // All must agree before their times mean anything.
      const mine = await c.functions();
      const viaService = await c.service();
      const viaMingo = c.mingo();
      const rawParsed = async () =>
        c.rawRows ? (await c.rawRows()).map((r) => JSON.parse(r.doc) as unknown) : await c.raw!();
      const viaRaw = await rawParsed();
      const text = JSON.stringify(mine);
      if (
        text !== JSON.stringify(viaService) ||
        text !== JSON.stringify(viaRaw) ||
        text !== JSON.stringify(viaMingo)
      )
        throw new Error(`${c.name}: the functions, the service, raw SQL and mingo disagree`);
      const size = Array.isArray(mine) ? `${mine.length} docs` : `= ${String(mine)}`;

      const [tFunctions, tService, tRaw, tRows] = await timeAll(
        [c.functions, c.service, rawParsed, c.rawRows ?? rawParsed],
        runs,
      );
      const [tMingo] = await timeAll([c.mingo], Math.max(3, Math.floor(runs / 10)));
      const vsRaw = tFunctions / tRaw;
      const vsMingo = tMingo / tFunctions;
      const scanGoal = ('scanGoal' in c ? c.scanGoal : undefined) ?? 100;
      if (vsRaw > 1.5) missed.push(`${c.name}: ${vsRaw.toFixed(2)}× raw SQL (goal ≤ 1.5×)`);
      if (judgeScan && vsMingo < scanGoal)
        missed.push(
          `${c.name}: only ${vsMingo.toFixed(1)}× faster than the mingo scan (goal ≥ ${scanGoal}×)`,
        );
      const pass = vsRaw <= 1.5 && (!judgeScan || vsMingo >= scanGoal);
      console.log(
        `${`${c.name} (${size})`.padEnd(38)}${tFunctions.toFixed(3).padStart(10)}${tService.toFixed(3).padStart(11)}` +
          `${tRaw.toFixed(3).padStart(11)}${tRows.toFixed(3).padStart(13)}${tMingo.toFixed(1).padStart(12)}` +
          `${`${vsRaw.toFixed(2)}×`.padStart(15)}${`${(tService / tRaw).toFixed(2)}×`.padStart(13)}` +
          `${`${Math.round(vsMingo).toLocaleString('en')}×`.padStart(17)}  ${pass ? 'ok' : 'MISSED'}`,
      );
    }
    await costRows({ store, service, engine, all, scope, field, runs, lo, key, missed });

    if (!judgeScan)
      console.log(
        `\n(the ≥ 100× mingo goal is judged at 1,000,000 documents only: here the scan covers ${N.toLocaleString('en')})`,
      );
    if (missed.length === 0)
      console.log(
        `\ngoals met: the library functions are ≤ 1.5× raw SQL${judgeScan ? ' and ≥ 100× (range count on PostgreSQL: ≥ 150×) faster than the mingo scan' : ''}`,
      );
    else {
      console.log(`\nGOALS NOT MET (${missed.length}):`);
      for (const m of missed) console.log(`  NOT MET  ${m}`);
    }
  } finally {
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (schema && PG_URL) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await client.end();
    }
  }
}

await main();
