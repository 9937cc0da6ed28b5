/**
 * `flowmark secrets`: the stored secrets (project vaults, OAuth2 tokens) counted by how they are
 * stored, and sealed again with the current key — values stored before sealing, and values of a
 * previous key (rotation: the old key given to `reseal`).
 */
import { sql, type Store } from '../store/index.js';
import { fromJson, toJson } from './model.js';
import { isSealed, type SecretBox } from './secrets.js';

const TABLES = [
  { table: 'project_vaults', column: 'data', keys: ['project_id', 'mode'] },
  { table: 'oauth2_tokens', column: 'token', keys: ['account_id', 'service', 'mode'] },
] as const;

export interface SecretCounts {
  /** Sealed with the current key. */
  sealed: number;
  /** Stored before sealing (readable in the database). */
  plain: number;
  /** Sealed with another key. */
  otherKey: number;
}

function fingerprintOf(stored: string): string {
  return stored.split(':')[1]!;
}

export async function countSecrets(store: Store, box: SecretBox): Promise<SecretCounts> {
  const counts: SecretCounts = { sealed: 0, plain: 0, otherKey: 0 };
  for (const { table, column } of TABLES)
    for (const row of await store.all<Record<string, string>>(
      sql`SELECT ${sql.raw(column)} AS v FROM ${sql.raw(table)}`,
    )) {
      const value = fromJson(row.v!);
      if (!isSealed(value)) counts.plain++;
      else if (fingerprintOf(value) === box.fingerprint) counts.sealed++;
      else counts.otherKey++;
    }
  return counts;
}

/** Seals every stored secret with `box`, in one transaction; `old` opens those of the previous key. Returns how many were written. */
export async function resealSecrets(store: Store, box: SecretBox, old?: SecretBox): Promise<number> {
  return store.transaction(async () => {
    let written = 0;
    for (const { table, column, keys } of TABLES) {
      const rows = await store.all<Record<string, unknown>>(
        sql`SELECT ${sql.raw([column, ...keys].join(', '))} FROM ${sql.raw(table)}`,
      );
      for (const row of rows) {
        const stored = fromJson(row[column]);
        if (isSealed(stored) && fingerprintOf(stored) === box.fingerprint) continue;
        const what = `a row of ${table}`;
        const value = isSealed(stored) ? (old ?? box).open(stored, what) : stored;
        const where = sql.join(
          keys.map((k) => sql`${sql.raw(k)} = ${keyValue(row[k], table)}`),
          ' AND ',
        );
        await store.run(
          sql`UPDATE ${sql.raw(table)} SET ${sql.raw(column)} = ${toJson(box.seal(value))} WHERE ${where}`,
        );
        written++;
      }
    }
    return written;
  });
}

/** A key column's value, which the UPDATE binds. */
function keyValue(value: unknown, table: string): string | number {
  if (typeof value === 'string' || typeof value === 'number') return value;
  throw new Error(`a row of ${table} has a key that is neither text nor a number`);
}
