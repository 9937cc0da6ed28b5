/**
 * The set-based path of update_objects with `multi`: one UPDATE writing `$set`, `$inc` and
 * `$unset` of scalar fields into the stored JSON text (store/documents.ts, SetUpdate) instead of
 * reading each document, applying mingo's updater and writing it back.
 *
 * It is taken only where mingo's answer and SQL's are known to agree, else the caller goes the
 * batched way (writes.ts):
 * - the filter is wholly SQL (pushdown says exact) and the collection's shape is complete;
 * - each path is plain object keys (no `$`, no integer-like key, which JavaScript would move to
 *   the front of an object), no array seen at or above it, the paths of the update not
 *   overlapping (mingo refuses that);
 * - `$set` values are scalars (string, finite number, boolean, null), `$inc` amounts safe
 *   integers;
 * - in the matched documents (checked in the same transaction, under the collection's lock)
 *   every path above a change is an object and every `$inc` field is missing or an integer whose
 *   sum stays a safe integer — mingo leaves a non-number alone, and sums beyond 2^53 round;
 * - the largest matched document plus what the update can add stays within the size limit.
 */
import { isAddressablePath, sql, type FieldChange, type Sql } from '../../store/index.js';
import { and, scope } from './rows.js';
import { ARRAY, OBJECT, type Shape } from './shape.js';
import type { Writer } from './writer.js';
import { isRecord } from '../../safety/narrow.js';

export interface SetBasedPlan {
  changes: FieldChange[];
  /** The most bytes one document can grow by. */
  growth: number;
  /** Documents holding each new field's type at its path, for the shape. */
  shapeDocs: Array<Record<string, unknown>>;
}

const INTEGER_LIKE = /^\d+$/;

/** The plan of a checked update (writes.ts modifier), or undefined when it is not for this path. */
export function planSetUpdate(change: Record<string, unknown>, shape: Shape): SetBasedPlan | undefined {
  if (shape.overflow) return undefined;
  const changes: FieldChange[] = [];
  const shapeDocs: Array<Record<string, unknown>> = [];
  let growth = 0;
  for (const op of Object.keys(change)) {
    if (op !== '$set' && op !== '$inc' && op !== '$unset') return undefined;
    const fields = change[op];
    if (!isRecord(fields)) return undefined;
    for (const path of Object.keys(fields)) {
      if (!isAddressablePath(path) || !clearOfArrays(shape, path)) return undefined;
      const value = fields[path];
      const key = path.slice(path.lastIndexOf('.') + 1);
      if (op === '$set') {
        if (!isScalar(value)) return undefined;
        const json = JSON.stringify(value);
        changes.push({ kind: 'set', path, json });
        growth += Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(json) + 2;
        shapeDocs.push(nest(path, value));
      } else if (op === '$inc') {
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) return undefined;
        changes.push({ kind: 'inc', path, by: value });
        growth += Buffer.byteLength(JSON.stringify(key)) + 17 + 2;
        shapeDocs.push(nest(path, 0));
      } else changes.push({ kind: 'unset', path });
    }
  }
  if (!changes.length) return undefined;
  const paths = changes.map((c) => c.path);
  for (const a of paths) for (const b of paths) if (a !== b && b.startsWith(`${a}.`)) return undefined;
  if (new Set(paths).size !== paths.length) return undefined;
  return { changes, growth, shapeDocs };
}

/**
 * Runs the plan over the documents `where` selects (the exact pushed filter); undefined when a
 * matched document needs mingo (nothing written then), else the number of documents matched.
 * `onStart` is called once the statement is to run.
 */
export async function setBasedUpdate(
  w: Writer,
  where: Sql | undefined,
  plan: SetBasedPlan,
  maxDocumentBytes: number,
  onStart?: () => void,
): Promise<number | undefined> {
  const update = w.tx.dialect.documents.setUpdate(plan.changes, w.writtenKeys);
  const selected = sql`${scope(w.row)}${and(where)}`;
  const check = await w.tx.get<{ n: number | string; bad: number | string; big: number | string | null }>(
    update.check(selected),
  );
  const matched = Number(check?.n ?? 0);
  if (matched > 0 && (Number(check!.bad) > 0 || Number(check!.big) + plan.growth > maxDocumentBytes))
    return undefined;
  onStart?.();
  if (matched === 0) return 0;
  const r = await w.tx.run(update.statement(selected));
  for (const doc of plan.shapeDocs) w.track(doc);
  return r.changes;
}

function isScalar(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** No array seen at the path or above it, every key plain (not integer-like), every parent an object. */
function clearOfArrays(shape: Shape, path: string): boolean {
  const segments = path.split('.');
  let prefix = '';
  for (let i = 0; i < segments.length; i++) {
    if (INTEGER_LIKE.test(segments[i]!)) return false;
    prefix = i === 0 ? segments[0]! : `${prefix}.${segments[i]}`;
    const bits = shape.paths[prefix];
    if (bits !== undefined && bits & ARRAY) return false;
    if (i < segments.length - 1 && (bits === undefined || !(bits & OBJECT))) return false;
  }
  return true;
}

/** `{a: {b: value}}` for `a.b`. */
function nest(path: string, value: unknown): Record<string, unknown> {
  const segments = path.split('.');
  let out: Record<string, unknown> = { [segments.pop()!]: value };
  while (segments.length) out = { [segments.pop()!]: out };
  return out;
}
