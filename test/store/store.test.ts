import { describe, expect, it } from 'vitest';
import { defineMigration, migrate, sql, type Queryable, type Store } from '../../src/store/index.js';
import { migrations as allMigrations } from '../../src/store/migrations/index.js';
import { describeEachEngine } from '../support/engines.js';

describe('sql tag', () => {
  it('binds values as placeholders of each engine and splices fragments', () => {
    const where = sql`account_id = ${'acme'} AND n > ${3}`;
    const q = sql`SELECT * FROM t WHERE ${where} AND id IN (${sql.join(['a', 'b'])}) AND k = ${sql.literal("it's")}`;
    expect(q.render('sqlite')).toEqual({
      text: "SELECT * FROM t WHERE account_id = ? AND n > ? AND id IN (?, ?) AND k = 'it''s'",
      values: ['acme', 3, 'a', 'b'],
    });
    expect(q.render('postgres')).toEqual({
      text: "SELECT * FROM t WHERE account_id = $1 AND n > $2 AND id IN ($3, $4) AND k = 'it''s'",
      values: ['acme', 3, 'a', 'b'],
    });
  });

  it('renders literals per engine and quotes identifiers', () => {
    const q = sql`${sql.literal(true)} ${sql.literal(null)} ${sql.literal(1.5)} ${sql.ident('we"ird')}`;
    expect(q.render('sqlite').text).toBe('1 NULL 1.5 "we""ird"');
    expect(q.render('postgres').text).toBe('TRUE NULL 1.5 "we""ird"');
    expect(() => sql.literal(Infinity)).toThrow('sql.literal: Infinity');
  });
});

const things = defineMigration({
  id: '9001_things',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`CREATE TABLE things (
      id ${t.id}, account_id ${t.text} NOT NULL, name ${t.text} NOT NULL, n ${t.bigint} NOT NULL DEFAULT 0,
      flag ${t.boolean} NOT NULL DEFAULT ${db.dialect.name === 'postgres' ? 'FALSE' : '0'},
      data ${t.json}, body ${t.blob}, UNIQUE (account_id, name))`);
  },
});

async function withThings(store: Store): Promise<void> {
  await migrate(store, [things]);
}

describeEachEngine('store', (engine) => {
  it('records the migrations it applied and applies each only once', async () => {
    const store = engine.store;
    const rows = await store.all<{ id: string }>(sql`SELECT id FROM schema_migrations ORDER BY id`);
    expect(rows.map((r) => r.id)).toEqual(allMigrations.map((m) => m.id).sort());
    expect(await migrate(store, [things])).toEqual(['9001_things']);
    expect(await migrate(store, [things])).toEqual([]);
    const again = await engine.openStore();
    expect(await again.all(sql`SELECT id FROM schema_migrations WHERE id = ${'9001_things'}`)).toHaveLength(
      1,
    );
  });

  it('refuses a migration listed twice and a malformed id', async () => {
    await expect(migrate(engine.store, [things, things])).rejects.toThrow(
      'migration 9001_things is listed twice',
    );
    expect(() => defineMigration({ id: 'things', up: async () => {} })).toThrow(
      'migration id things: expected NNNN_name',
    );
  });

  it('rolls a failing migration back and does not record it', async () => {
    const broken = defineMigration({
      id: '9002_broken',
      async up(db) {
        await db.exec(`CREATE TABLE half_done (x ${db.dialect.types.integer})`);
        await db.exec('CREATE TABLE this is not sql');
      },
    });
    await expect(migrate(engine.store, [broken])).rejects.toThrow();
    expect(await engine.store.all(sql`SELECT id FROM schema_migrations WHERE id = ${'9002_broken'}`)).toEqual(
      [],
    );
    await expect(engine.store.all(sql`SELECT * FROM half_done`)).rejects.toThrow();
  });

  it('round-trips values: bigint as number, JSON as text, blobs as Buffers, booleans', async () => {
    const store = engine.store;
    await withThings(store);
    const body = Buffer.from([0, 1, 2, 255]);
    await store.run(
      sql`INSERT INTO things (account_id, name, n, flag, data, body)
          VALUES (${'a'}, ${'x'}, ${2 ** 40}, ${true}, ${'{"b":1,"a":[1,2]}'}, ${body})`,
    );
    const row = await store.get(
      sql`SELECT n, flag, data, body FROM things WHERE account_id = ${'a'} AND name = ${'x'}`,
    );
    expect(row!.n).toBe(2 ** 40);
    expect(Boolean(row!.flag)).toBe(true);
    expect(row!.data).toBe('{"b":1,"a":[1,2]}');
    expect(Buffer.compare(row!.body as Buffer, body)).toBe(0);
    expect(await store.get(sql`SELECT n FROM things WHERE name = ${'none'}`)).toBeUndefined();
  });

  it('extracts JSON fields with dialect.jsonText', async () => {
    const store = engine.store;
    await withThings(store);
    await store.run(
      sql`INSERT INTO things (account_id, name, data) VALUES (${'a'}, ${'j'}, ${'{"p":{"q":"v"}}'})`,
    );
    const row = await store.get<{ v: string }>(
      sql`SELECT ${store.dialect.jsonText(sql.raw('data'), ['p', 'q'])} AS v FROM things WHERE account_id = ${'a'} AND name = ${'j'}`,
    );
    expect(row!.v).toBe('v');
  });

  it('upserts and returns in one statement, identically on both engines', async () => {
    const store = engine.store;
    await withThings(store);
    const bump = () =>
      store.get<{ n: number }>(
        sql`INSERT INTO things (account_id, name, n) VALUES (${'a'}, ${'counter'}, 1)
            ON CONFLICT (account_id, name) DO UPDATE SET n = things.n + 1 RETURNING n`,
      );
    expect((await bump())!.n).toBe(1);
    expect((await bump())!.n).toBe(2);
    expect(
      (await store.run(sql`UPDATE things SET n = 0 WHERE account_id = ${'a'} AND name = ${'counter'}`))
        .changes,
    ).toBe(1);
  });

  it('reports unique violations with the constraint name', async () => {
    const store = engine.store;
    await withThings(store);
    await store.exec(`CREATE UNIQUE INDEX things_n_unique ON things (account_id, n) WHERE n > 1000`);
    await store.run(sql`INSERT INTO things (account_id, name, n) VALUES (${'u'}, ${'one'}, 5000)`);
    const error = await store
      .run(sql`INSERT INTO things (account_id, name, n) VALUES (${'u'}, ${'two'}, 5000)`)
      .catch((e: unknown) => e);
    expect(store.dialect.uniqueViolation(error)).toEqual({ constraint: 'things_n_unique' });
    expect(store.dialect.uniqueViolation(new Error('other'))).toBeUndefined();
  });

  it('commits a transaction, rolls back on error, and nests savepoints', async () => {
    const store = engine.store;
    await withThings(store);
    const count = async (db: Queryable = store) =>
      Number(
        (await db.get<{ c: number }>(sql`SELECT count(*) AS c FROM things WHERE account_id = ${'tx'}`))!.c,
      );
    await store.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO things (account_id, name) VALUES (${'tx'}, ${'kept'})`);
      await expect(
        tx.transaction(async () => {
          await store.run(sql`INSERT INTO things (account_id, name) VALUES (${'tx'}, ${'undone'})`);
          expect(await count(tx)).toBe(2);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      expect(await count()).toBe(1); // the store's own methods join the open transaction
    });
    expect(await count()).toBe(1);
    await expect(
      store.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO things (account_id, name) VALUES (${'tx'}, ${'lost'})`);
        throw new Error('outer');
      }),
    ).rejects.toThrow('outer');
    expect(await count()).toBe(1);
  });

  it('keeps uncommitted writes invisible to other callers', async () => {
    const store = engine.store;
    await withThings(store);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const tx = store.transaction(async (t) => {
      await t.run(sql`INSERT INTO things (account_id, name) VALUES (${'iso'}, ${'pending'})`);
      entered();
      await gate;
    });
    await inside;
    // Both engines: a read outside the transaction sees the last commit, not the open transaction.
    expect(await store.all(sql`SELECT name FROM things WHERE account_id = ${'iso'}`)).toEqual([]);
    release();
    await tx;
    expect(await store.all(sql`SELECT name FROM things WHERE account_id = ${'iso'}`)).toEqual([
      { name: 'pending' },
    ]);
  });

  it('serializes read-modify-write with forUpdate in concurrent transactions', async () => {
    const store = engine.store;
    await withThings(store);
    await store.run(sql`INSERT INTO things (account_id, name, n) VALUES (${'rmw'}, ${'c'}, 0)`);
    const other = await engine.openStore();
    const increment = (db: Store) =>
      db.transaction(async (tx) => {
        const row = await tx.get<{ n: number }>(
          sql`SELECT n FROM things WHERE account_id = ${'rmw'} AND name = ${'c'}${tx.dialect.forUpdate}`,
        );
        await new Promise((r) => setTimeout(r, 2));
        await tx.run(sql`UPDATE things SET n = ${row!.n + 1} WHERE account_id = ${'rmw'} AND name = ${'c'}`);
      });
    await Promise.all(Array.from({ length: 10 }, (_, i) => increment(i % 2 ? store : other)));
    const row = await store.get<{ n: number }>(
      sql`SELECT n FROM things WHERE account_id = ${'rmw'} AND name = ${'c'}`,
    );
    expect(row!.n).toBe(10);
  });

  it('retries a serializable transaction after a conflict', async () => {
    const store = engine.store;
    await withThings(store);
    await store.run(sql`INSERT INTO things (account_id, name, n) VALUES (${'ser'}, ${'c'}, 0)`);
    const other = await engine.openStore();
    let attempts = 0;
    const increment = (db: Store) =>
      db.transaction(
        async (tx) => {
          attempts++;
          const row = await tx.get<{ n: number }>(
            sql`SELECT n FROM things WHERE account_id = ${'ser'} AND name = ${'c'}`,
          );
          await new Promise((r) => setTimeout(r, 5));
          await tx.run(
            sql`UPDATE things SET n = ${row!.n + 1} WHERE account_id = ${'ser'} AND name = ${'c'}`,
          );
        },
        { isolation: 'serializable', retries: 20 },
      );
    await Promise.all([increment(store), increment(other), increment(store), increment(other)]);
    const row = await store.get<{ n: number }>(
      sql`SELECT n FROM things WHERE account_id = ${'ser'} AND name = ${'c'}`,
    );
    expect(row!.n).toBe(4);
    if (engine.name === 'postgres') expect(attempts).toBeGreaterThan(4);
  });

  it('refuses to use a transaction handle after the transaction ended', async () => {
    let leaked!: Queryable;
    await engine.store.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked.all(sql`SELECT 1 AS one`)).rejects.toThrow(
      'store: the transaction has already ended',
    );
  });
});
