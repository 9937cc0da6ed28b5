/**
 * SQL text with its parameters kept apart, written once for both engines:
 *
 *   sql`SELECT doc FROM documents WHERE account_id = ${accountId} AND id IN (${sql.join(ids)})`
 *
 * Interpolated values become bound parameters (`?` on SQLite, `$n` on PostgreSQL); interpolated
 * `Sql` fragments are spliced in; `sql.raw` is trusted text (never user input); `sql.literal`
 * inlines a value as a quoted SQL literal (for partial-index predicates and DDL, which cannot
 * take parameters); `sql.ident` quotes an identifier.
 */
export type EngineName = 'sqlite' | 'postgres';

const LITERAL = Symbol('literal');
interface InlineLiteral {
  [LITERAL]: string | number | boolean | null;
}

type Piece = string | { value: unknown } | InlineLiteral;

export class Sql {
  /** @internal */
  readonly pieces: readonly Piece[];

  /** @internal */
  constructor(pieces: readonly Piece[]) {
    this.pieces = pieces;
  }

  /** The text and parameters for one engine. */
  render(engine: EngineName): { text: string; values: unknown[] } {
    let text = '';
    const values: unknown[] = [];
    for (const piece of this.pieces) {
      if (typeof piece === 'string') text += piece;
      else if (LITERAL in piece) text += literalText(piece[LITERAL], engine);
      else {
        values.push(piece.value);
        text += engine === 'postgres' ? `$${values.length}` : '?';
      }
    }
    return { text, values };
  }

  /** True when nothing but whitespace would be rendered. */
  get isEmpty(): boolean {
    return this.pieces.every((p) => typeof p === 'string' && p.trim() === '');
  }
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const pieces: Piece[] = [];
  strings.forEach((s, i) => {
    if (s) pieces.push(s);
    if (i < values.length) append(pieces, values[i]);
  });
  return new Sql(pieces);
}

function append(pieces: Piece[], value: unknown): void {
  if (value instanceof Sql) pieces.push(...value.pieces);
  else pieces.push({ value });
}

/** Trusted SQL text (identifiers and keywords chosen by our code, never user input). */
sql.raw = (text: string): Sql => new Sql([text]);

/** Fragments joined by a separator (`, ` by default); plain values become parameters. */
sql.join = (items: readonly unknown[], separator = ', '): Sql => {
  const pieces: Piece[] = [];
  items.forEach((item, i) => {
    if (i > 0) pieces.push(separator);
    append(pieces, item);
  });
  return new Sql(pieces);
};

/** A value inlined as a quoted literal: strings, finite numbers, booleans, null. */
sql.literal = (value: string | number | boolean | null): Sql => {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`sql.literal: ${value}`);
  return new Sql([{ [LITERAL]: value }]);
};

/** A double-quoted identifier. */
sql.ident = (name: string): Sql => new Sql([quoteIdent(name)]);

export function quoteIdent(name: string): string {
  if (!name || name.includes('\0')) throw new Error(`invalid SQL identifier ${JSON.stringify(name)}`);
  return `"${name.replace(/"/g, '""')}"`;
}

/** `'it''s'`: a string literal with quotes doubled (both engines use standard strings). */
export function quoteString(text: string): string {
  if (text.includes('\0')) throw new Error('a SQL string literal cannot contain NUL');
  return `'${text.replace(/'/g, "''")}'`;
}

function literalText(value: string | number | boolean | null, engine: EngineName): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean')
    return engine === 'postgres' ? (value ? 'TRUE' : 'FALSE') : value ? '1' : '0';
  if (typeof value === 'number') return String(value);
  return quoteString(value);
}
