import { quoteIdent, sql, type Dialect, type Sql } from '../../store/index.js';
import { fieldSql } from './fields.js';

export interface IndexDefinition {
  keys: string[];
  unique: boolean;
  ascending: boolean;
}

/**
 * The DDL of a collection index: partial indexes on `documents` restricted to the collection, over
 * the same field expressions the pushdown writes (fields.ts), so the engine's planner uses them.
 * Leading scope columns match every query's scope (account_id, plus collection_id on SQLite); on
 * SQLite the rowid (seq) ends every index, so an equality hands rows over in natural order.
 *
 * Unique indexes: documents where a key is missing or null are not checked (SQL NULLs never
 * collide), on both engines. SQLite reads true/false as 1/0, so its uniqueness is enforced by a
 * second index that adds each key's json_type (true stays apart from 1).
 */
export function createIndexSql(
  dialect: Dialect,
  sqlName: string,
  collectionId: number,
  def: IndexDefinition,
): Sql[] {
  const direction = def.ascending ? '' : ' DESC';
  const render = (s: Sql) => s.render(dialect.name).text;
  const values: string[] = [];
  const types: string[] = [];
  for (const key of def.keys) {
    if (key === '_id') {
      values.push(`id${direction}`);
      continue;
    }
    const f = fieldSql(dialect.name, key);
    values.push(
      dialect.name === 'sqlite' ? `${render(f.value)}${direction}` : `(${render(f.value)})${direction}`,
    );
    if (dialect.name === 'sqlite') types.push(render(f.type));
  }
  const where = `WHERE collection_id = ${Math.trunc(collectionId)}`;
  // PostgreSQL drops `collection_id = N` from the index conditions (the partial predicate implies
  // it): as a column it would leave a gap before the keys and every search would walk the whole
  // collection. SQLite keeps it as a search term.
  const scopeColumns = dialect.name === 'postgres' ? ['account_id'] : ['account_id', 'collection_id'];
  const create = (name: string, unique: boolean, columns: string[]) =>
    sql.raw(
      `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${quoteIdent(name)} ON documents (${[...scopeColumns, ...columns].join(', ')}) ${where}`,
    );
  if (dialect.name === 'sqlite' && def.unique && types.length)
    return [create(sqlName, false, values), create(`${sqlName}_u`, true, [...values, ...types])];
  if (dialect.name === 'postgres') {
    // PostgreSQL ignores the statistics of partial indexes when estimating a condition: without
    // statistics on the expressions themselves it guesses 0.5 % of the table and scans it all.
    const expressions = def.keys
      .filter((k) => k !== '_id')
      .map((k) => `(${render(fieldSql('postgres', k).value)})`);
    const statistics = expressions.length
      ? [
          sql.raw(
            `CREATE STATISTICS ${quoteIdent(`${sqlName}_st`)} ON ${expressions.join(', ')} FROM documents`,
          ),
          sql.raw('ANALYZE documents'),
        ]
      : [];
    return [create(sqlName, def.unique, values), ...statistics];
  }
  return [create(sqlName, def.unique, values)];
}

export function dropIndexSql(dialect: Dialect, sqlName: string): Sql[] {
  const drops = [sql.raw(`DROP INDEX IF EXISTS ${quoteIdent(sqlName)}`)];
  if (dialect.name === 'sqlite') drops.push(sql.raw(`DROP INDEX IF EXISTS ${quoteIdent(`${sqlName}_u`)}`));
  else drops.push(sql.raw(`DROP STATISTICS IF EXISTS ${quoteIdent(`${sqlName}_st`)}`));
  return drops;
}
