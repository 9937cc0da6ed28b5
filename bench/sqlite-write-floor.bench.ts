/**
 * What SQLite itself costs to rewrite 1,000 of 100,000 documents scattered over the table (the
 * collections bench's bulk-update row), with no flowmark code in the way: a table of JSON text
 * with an expression index on `r`, plus 0, 1 or 3 more expression indexes, in WAL mode with
 * synchronous=NORMAL as the store opens it. Per setting, the median of 15 rounds of: the UPDATE
 * (json_set of one field), its COMMIT, and reading the same rows (+ JSON.parse); with SQLite's
 * automatic checkpoint (the default, 1,000 pages: `auto`), without any (`wal_autocheckpoint = 0`:
 * `off`, the WAL only grows), and with the store's checkpoint thread (`thread`,
 * src/store/sqlite-checkpointer.ts, the automatic one off). Every round starts after a pause of
 * 150 ms, so that what a thread does after a commit is not counted in the next round's times.
 *
 *   node --import tsx bench/sqlite-write-floor.bench.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { WalCheckpointer } from '../src/store/sqlite-checkpointer.js';

const N = 100_000;
const dir = mkdtempSync(join(tmpdir(), 'sqlite-floor-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  console.log('extra indexes  checkpoint  UPDATE ms  COMMIT ms  read ms  (UPDATE+COMMIT)/read');
  for (const checkpoint of ['auto', 'off', 'thread'] as const) {
    for (const extra of [0, 1, 3]) {
      const file = join(dir, `t${extra}${checkpoint}.db`);
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      if (checkpoint !== 'auto') db.pragma('wal_autocheckpoint = 0');
      db.exec('CREATE TABLE documents (seq INTEGER PRIMARY KEY, doc TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO documents (doc) VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < N; i++)
          insert.run(
            JSON.stringify({
              _id: `x${i}`,
              k: i % 1000,
              r: (i * 7919) % N,
              status: 'open',
              customer: `customer ${i % 5000}`,
              amount: i * 1.5,
              note: 'lorem ipsum dolor sit amet',
            }),
          );
      })();
      const fields = ['r', 'k', 'customer', 'amount'].slice(0, 1 + extra);
      for (const f of fields) db.exec(`CREATE INDEX i_${f} ON documents (json_extract(doc, '$."${f}"'))`);
      db.pragma('wal_checkpoint(TRUNCATE)');
      const where = `json_extract(doc, '$."r"') >= 5000 AND json_extract(doc, '$."r"') < 6000`;
      const update = db.prepare(
        `UPDATE documents SET doc = json_set(doc, '$."touched"', COALESCE(json_extract(doc, '$."touched"'), 0) + 1) WHERE ${where}`,
      );
      const read = db.prepare(`SELECT doc FROM documents WHERE ${where}`);
      let ready = false;
      const thread =
        checkpoint === 'thread' ? new WalCheckpointer(file, {}, () => (ready = true)) : undefined;
      while (thread && !ready) await sleep(5);
      const [u, c, r] = [[], [], []] as number[][];
      for (let i = 0; i < 15; i++) {
        await sleep(150);
        db.exec('BEGIN IMMEDIATE');
        let t = performance.now();
        update.run();
        u.push(performance.now() - t);
        t = performance.now();
        db.exec('COMMIT');
        c.push(performance.now() - t);
        t = performance.now();
        (read.all() as Array<{ doc: string }>).map((row) => JSON.parse(row.doc) as unknown);
        r.push(performance.now() - t);
      }
      await thread?.close();
      db.close();
      const ratio = (median(u) + median(c)) / median(r);
      console.log(
        `${String(extra).padStart(13)}  ${checkpoint.padStart(10)}  ${median(u).toFixed(1).padStart(9)}  ${median(c).toFixed(1).padStart(9)}  ${median(r).toFixed(1).padStart(7)}  ${ratio.toFixed(1)}×`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
