import { sql } from './sql.js';
import type { Queryable, Store } from './types.js';

/**
 * One step of the schema. `id` is unique and never changes once released (it is recorded in
 * `schema_migrations`); `up` runs inside a transaction and may branch on `db.dialect.name`.
 */
export interface Migration {
  id: string;
  up(db: Queryable): Promise<void>;
}

/** Declares a migration module's default export. */
export function defineMigration(migration: Migration): Migration {
  if (!/^\d{4}_[a-z0-9_]+$/.test(migration.id))
    throw new Error(`migration id ${migration.id}: expected NNNN_name`);
  return migration;
}

/**
 * Applies, in order, every migration not yet recorded; each in its own transaction, under a lock
 * so that several processes starting at once apply each migration exactly once. Returns the ids
 * applied now.
 */
export async function migrate(store: Store, migrations: readonly Migration[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const m of migrations) {
    if (ids.has(m.id)) throw new Error(`migration ${m.id} is listed twice`);
    ids.add(m.id);
  }
  const applied: string[] = [];
  for (const migration of migrations) {
    const done = await store.transaction(async (tx) => {
      if (tx.dialect.name === 'postgres')
        await tx.get(sql`SELECT pg_advisory_xact_lock(7262531887) AS locked`);
      await tx.exec(
        `CREATE TABLE IF NOT EXISTS schema_migrations (id ${tx.dialect.types.text} PRIMARY KEY, applied_at ${tx.dialect.types.bigint} NOT NULL)`,
      );
      const row = await tx.get(sql`SELECT id FROM schema_migrations WHERE id = ${migration.id}`);
      if (row) return false;
      await migration.up(tx);
      await tx.run(
        sql`INSERT INTO schema_migrations (id, applied_at) VALUES (${migration.id}, ${Date.now()})`,
      );
      return true;
    });
    if (done) applied.push(migration.id);
  }
  return applied;
}

/** The ids of `migrations` the store has not recorded (all of them when it has none). */
export async function pendingMigrations(store: Store, migrations: readonly Migration[]): Promise<string[]> {
  let rows: Array<{ id: string }>;
  try {
    rows = await store.all<{ id: string }>(sql`SELECT id FROM schema_migrations`);
  } catch {
    // No schema_migrations table: nothing applied (an unreachable store fails this probe too).
    await store.get(sql`SELECT 1 AS ok`);
    return migrations.map((m) => m.id);
  }
  const applied = new Set(rows.map((r) => r.id));
  return migrations.map((m) => m.id).filter((id) => !applied.has(id));
}
