/**
 * Collections at scale: loads N generated documents (default 1,000,000) streamed through the
 * service with progress, reports the insert rate, then times indexed equality and range
 * list_objects and count_objects beside (a) a hand-written SQL query on the same engine and
 * (b) a mingo full scan of the same documents held in memory, all in this run.
 *
 *   npm run bench -- collections                       # SQLite, 1,000,000 documents
 *   FLOWMARK_BENCH_N=100000 npm run bench -- collections
 *   FLOWMARK_BENCH_PG=postgres://… npm run bench -- collections   # PostgreSQL (a fresh schema)
 *
 * Goals: list/count ≤ 1.5× the hand-written SQL (which also parses the JSON it returns, so both
 * produce the same objects) and ≥ 100× faster than the mingo scan.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { find as mingoFind } from 'mingo';
import pg from 'pg';
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

async function* generate(count: number) {
  for (let i = 0; i < count; i++) yield documentAt(i);
}

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Median wall times (ms) of several functions over `runs` rounds, after warming each up; every
 * round runs them one after the other, so that load from elsewhere hits all of them alike.
 */
async function timeAll(fns: Array<() => Promise<unknown> | unknown>, runs: number): Promise<number[]> {
  for (const fn of fns) for (let i = 0; i < 3; i++) await fn();
  const samples = fns.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < fns.length; j++) {
      const t = performance.now();
      await fns[j]!();
      samples[j]!.push(performance.now() - t);
    }
  }
  return samples.map(median);
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

    // ── hand-written SQL on the same engine, with the same expression indexes
    const field = (name: string): Sql =>
      engine === 'sqlite'
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
    const cases = [
      {
        name: 'list_objects equality',
        filter: { k: key },
        flowmark: () => service.find(actor, 'orders', { k: key }, { limit: 1000 }),
        rawRows: () => rawList(sql`${field('k')} = ${value(key)}`),
        mingo: () => mingoFind(all, { k: key }).limit(1000).all(),
      },
      {
        name: 'list_objects range',
        filter: { r: { $gte: lo, $lt: lo + RANGE } },
        flowmark: () => service.find(actor, 'orders', { r: { $gte: lo, $lt: lo + RANGE } }, { limit: 1000 }),
        rawRows: () => rawList(sql`${field('r')} >= ${value(lo)} AND ${field('r')} < ${value(lo + RANGE)}`),
        mingo: () =>
          mingoFind(all, { r: { $gte: lo, $lt: lo + RANGE } })
            .limit(1000)
            .all(),
      },
      {
        name: 'count_objects equality',
        filter: { k: key },
        flowmark: () => service.count(actor, 'orders', { k: key }),
        raw: () => rawCount(sql`${field('k')} = ${value(key)}`),
        mingo: () => mingoFind(all, { k: key }).all().length,
      },
      {
        name: 'count_objects range',
        filter: { r: { $gte: lo, $lt: lo + COUNT_RANGE } },
        flowmark: () => service.count(actor, 'orders', { r: { $gte: lo, $lt: lo + COUNT_RANGE } }),
        raw: () =>
          rawCount(sql`${field('r')} >= ${value(lo)} AND ${field('r')} < ${value(lo + COUNT_RANGE)}`),
        mingo: () => mingoFind(all, { r: { $gte: lo, $lt: lo + COUNT_RANGE } }).all().length,
      },
    ];

    const runs = 101;
    console.log(`\nmedian of ${runs} runs (ms); raw SQL = the hand-written query + JSON.parse of its rows`);
    console.log(
      'operation                 flowmark    raw SQL   (rows only)   mingo scan   flowmark/raw   mingo/flowmark',
    );
    let ok = true;
    for (const c of cases) {
      // The three must agree before their times mean anything.
      const mine = await c.flowmark();
      const viaMingo = c.mingo();
      const rawParsed = async () =>
        c.rawRows ? (await c.rawRows()).map((r) => JSON.parse(r.doc) as unknown) : await c.raw!();
      const viaRaw = await rawParsed();
      if (
        JSON.stringify(mine) !== JSON.stringify(viaRaw) ||
        JSON.stringify(mine) !== JSON.stringify(viaMingo)
      )
        throw new Error(`${c.name}: flowmark, raw SQL and mingo disagree`);
      const size = Array.isArray(mine) ? `${mine.length} docs` : `= ${mine}`;

      const [tFlowmark, tRaw, tRows] = await timeAll([c.flowmark, rawParsed, c.rawRows ?? rawParsed], runs);
      const [tMingo] = await timeAll([c.mingo], Math.max(3, Math.floor(runs / 10)));
      const vsRaw = tFlowmark / tRaw;
      const vsMingo = tMingo / tFlowmark;
      const pass = vsRaw <= 1.5 && vsMingo >= 100;
      ok &&= pass;
      console.log(
        `${`${c.name} (${size})`.padEnd(38)}${tFlowmark.toFixed(3).padStart(9)}${tRaw.toFixed(3).padStart(11)}` +
          `${tRows.toFixed(3).padStart(14)}${tMingo.toFixed(1).padStart(13)}${`${vsRaw.toFixed(2)}×`.padStart(15)}` +
          `${`${Math.round(vsMingo).toLocaleString('en')}×`.padStart(17)}  ${pass ? 'ok' : 'MISSED'}`,
      );
    }
    console.log(`\ngoals (≤ 1.5× raw SQL, ≥ 100× faster than the mingo scan): ${ok ? 'met' : 'NOT met'}`);
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
