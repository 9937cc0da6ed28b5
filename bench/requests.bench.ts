/**
 * The request list at scale (issue 29): the page `GET /api/v1/requests` reads (Requests.page +
 * count, what the route runs) in an account of 10,000 requests beside one of 100 — the list
 * should cost about the same whatever the account holds — and a deep page by `before=` (keyset)
 * beside the same page by `first=` (OFFSET), all in this run. Each request carries a 2 KB data
 * document, which the list no longer reads; `Requests.list` (every column, the Atom reports'
 * reader) is shown beside it.
 *
 *   node --import tsx bench/requests.bench.ts                          # SQLite
 *   FLOWMARK_BENCH_PG=postgres://… node --import tsx bench/requests.bench.ts
 *   FLOWMARK_BENCH_REQUESTS=100000 BENCH_ROUNDS=51 …
 *
 * Ends with `goal: requests-list-10k-vs-100 VALUE x` (≤ 2).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createPlatform } from '../src/platform/index.js';
import { openStore, quoteIdent, sql, type Store } from '../src/store/index.js';

const MANY = Number(process.env.FLOWMARK_BENCH_REQUESTS ?? 10_000);
const FEW = 100;
const PG_URL = process.env.FLOWMARK_BENCH_PG;
const RUNS = Number(process.env.BENCH_ROUNDS ?? 101);

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median ms of each function, interleaved round by round after a warm-up. */
async function timeAll(fns: Array<() => Promise<unknown>>, runs: number): Promise<number[]> {
  for (const fn of fns) for (let i = 0; i < 3; i++) await fn();
  const samples = fns.map(() => [] as number[]);
  for (let i = 0; i < runs; i++)
    for (let j = 0; j < fns.length; j++) {
      const t = performance.now();
      await fns[j]!();
      samples[j]!.push(performance.now() - t);
    }
  return samples.map(median);
}

async function fill(store: Store, account: string, count: number): Promise<void> {
  const data = JSON.stringify({ note: 'x'.repeat(2000) });
  for (let i = 0; i < count; i += 500) {
    const rows = [];
    for (let n = i; n < Math.min(count, i + 500); n++)
      rows.push(
        sql`(${account}, ${`${account}-${String(n).padStart(7, '0')}`}, 'LIVE', ${n % 4 ? 201 : 102}, ${data}, '[]', '', ${1_700_000_000_000 + n}, ${1_700_000_000_000 + n})`,
      );
    await store.run(
      sql`INSERT INTO requests (account_id, id, mode, status, data, p_locks, p_message, created_at, updated_at) VALUES ${sql.join(rows)}`,
    );
  }
}

async function main(): Promise<void> {
  let dir: string | undefined;
  const schema = PG_URL ? `bench_requests_${process.pid}` : undefined;
  const store = PG_URL
    ? await openStore({ databaseUrl: PG_URL, pgSchema: schema })
    : await openStore({
        dataDir: (dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-'))),
        databaseUrl: undefined,
      });
  try {
    const platform = createPlatform(store);
    await platform.accounts.create({ id: 'few' });
    await platform.accounts.create({ id: 'many' });
    await fill(store, 'few', FEW);
    await fill(store, 'many', MANY);
    if (store.dialect.name === 'postgres') await store.exec('VACUUM (ANALYZE) requests');
    else await store.exec('ANALYZE');
    console.log(
      `requests bench on ${store.dialect.name}: ${FEW} and ${MANY.toLocaleString('en')} requests, median of ${RUNS}`,
    );

    const requests = platform.requests;
    const page =
      (account: string, options: { before?: string; first?: number } = {}) =>
      () =>
        Promise.all([requests.page(account, { ...options, limit: 100 }), requests.count(account)]);
    const deep = Math.floor(MANY * 0.9);
    const cursor = `many-${String(MANY - deep).padStart(7, '0')}`;
    const byOffset = await requests.page('many', { first: deep, limit: 100 });
    const byCursor = await requests.page('many', { before: cursor, limit: 100 });
    if (JSON.stringify(byOffset) !== JSON.stringify(byCursor)) throw new Error('before= and first= disagree');
    // The build before: every column, sorted whole (no index in the list's order; `+ 0` keeps
    // the planner off the new ones), then the total.
    const before = (account: string) => () =>
      Promise.all([
        store.all(
          sql`SELECT * FROM requests WHERE account_id = ${account} ORDER BY created_at + 0 DESC, id LIMIT 100`,
        ),
        requests.count(account),
      ]);
    const [tFew, tMany, tOffset, tCursor, tFull, tBeforeFew, tBeforeMany] = await timeAll(
      [
        page('few'),
        page('many'),
        page('many', { first: deep }),
        page('many', { before: cursor }),
        () => requests.list('many', { limit: 100 }),
        before('few'),
        before('many'),
      ],
      RUNS,
    );
    console.log(`first page + total, ${FEW} requests        ${tFew.toFixed(3)} ms`);
    console.log(`first page + total, ${MANY} requests      ${tMany.toFixed(3)} ms`);
    console.log(`page at ${deep} by first= (OFFSET)        ${tOffset.toFixed(3)} ms`);
    console.log(`the same page by before= (keyset)       ${tCursor.toFixed(3)} ms`);
    console.log(`Requests.list, every column (first page) ${tFull.toFixed(3)} ms`);
    console.log(
      `the build before (every column, sorted whole): ${FEW} ${tBeforeFew.toFixed(3)} ms, ${MANY} ${tBeforeMany.toFixed(3)} ms (${(tBeforeMany / tBeforeFew).toFixed(2)}×)`,
    );
    const ratio = tMany / tFew;
    console.log(
      `goal: requests-list-10k-vs-100 ${ratio.toFixed(2)} x (first page + total, ${MANY} ÷ ${FEW} requests; ≤ 2) ${ratio <= 2 ? 'met' : 'NOT met'}`,
    );
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
