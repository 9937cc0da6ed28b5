import { quoteString, sql, type EngineName, type Sql } from '../../store/index.js';

/**
 * The SQL expressions reading one field path of the JSON column `doc`, written identically in
 * queries and in the expression indexes R_create_index creates (the planners match them).
 *
 * SQLite:     value = json_extract(doc, '$."a"."b"')   (NULL for JSON null and missing;
 *                                                       true/false become 1/0)
 *             type  = json_type(doc, '$."a"."b"')      (NULL when missing; 'null', 'integer',
 *                                                       'real', 'text', 'true', 'false', …)
 * PostgreSQL: raw   = ((doc)::jsonb -> 'a' -> 'b')     (SQL NULL when missing)
 *             value = NULLIF(raw, 'null'::jsonb)       (SQL NULL for JSON null and missing)
 */
export interface FieldSql {
  value: Sql;
  /** SQLite: json_type; PostgreSQL: the jsonb value before NULLIF. */
  type: Sql;
}

/** A field path SQL can address: dot-separated plain keys, none empty or starting with `$`. */
export function isAddressablePath(path: string): boolean {
  if (path === '' || path.length > 1000) return false;
  for (const segment of path.split('.')) {
    if (segment === '' || segment.startsWith('$')) return false;
    for (let i = 0; i < segment.length; i++) {
      const c = segment.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
    }
  }
  return true;
}

export function fieldSql(engine: EngineName, path: string): FieldSql {
  const segments = path.split('.');
  if (engine === 'sqlite') {
    const jsonPath = quoteString('$' + segments.map((s) => `."${s}"`).join(''));
    return {
      value: sql.raw(`json_extract(doc, ${jsonPath})`),
      type: sql.raw(`json_type(doc, ${jsonPath})`),
    };
  }
  const raw = `((doc)::jsonb${segments.map((s) => ` -> ${quoteString(s)}`).join('')})`;
  return { value: sql.raw(`NULLIF(${raw}, 'null'::jsonb)`), type: sql.raw(raw) };
}
