/** Writes: save (insert or replace by _id), update, remove and import, each one transaction. */
import { Budget } from '../../limits/index.js';
import { sql } from '../../store/index.js';
import type { CollectionCore } from './core.js';
import { CollectionError } from './errors.js';
import { applyUpdate, checkSpec, compileFilter } from './mingo.js';
import { compilePredicate, splitFilter } from './pushdown.js';
import { and, scope } from './rows.js';
import { assertSafePath, isPlainObject, toJsonDocument } from './safety.js';
import { scan } from './scan.js';
import { planSetUpdate, setBasedUpdate } from './set-update.js';
import type { Actor, BudgetOption, Document } from './types.js';
import { INSERT_BATCH } from './writer.js';

/** The JSON characters of the new versions an update holds before it writes them. */
const UPDATE_BATCH_CHARS = 8 * 1024 * 1024;

/** How an update was written: one set-based statement, or read, changed by mingo and written back. */
export type UpdatePath = 'set-based' | 'batched';

export interface ImportProgress {
  /** Documents inserted so far. */
  documents: number;
}

const UPDATE_OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$rename',
  '$push',
  '$pull',
  '$pullAll',
  '$addToSet',
  '$pop',
  '$currentDate',
  '$bit',
]);

/**
 * Stores documents: each gets a string `_id` (a given `_id` replaces the document that has it,
 * keeping its place in natural order). Returns the stored form.
 */
export async function save(
  core: CollectionCore,
  actor: Actor,
  name: string,
  values: unknown[],
): Promise<Document[]> {
  const docs = values.map((v) => prepareDocument(core, v));
  const result = await core.write(actor, name, true, async (w) => {
    await w.insert(docs, true);
    return docs;
  });
  return result!;
}

/**
 * Applies `change` to the first matching document (or every one with `multi`): update
 * operators (`{"$set": …}`, `$inc`, `$unset` …) or, for a plain object, a replacement keeping
 * `_id`. Returns the number of documents matched. With `multi`, an exact filter and `$set` /
 * `$inc` / `$unset` of scalar fields, one set-based UPDATE where it gives mingo's answer
 * (set-update.ts); otherwise the matches are read and written back in batches. `onPath` is
 * told which.
 */
export async function update(
  core: CollectionCore,
  actor: Actor,
  name: string,
  filter: Record<string, unknown>,
  change: Record<string, unknown>,
  options: { multi: boolean; onPath?: (path: UpdatePath) => void } & BudgetOption,
): Promise<number> {
  const budget = options.budget ?? new Budget();
  const query = compileFilter(filter, budget);
  const modify = modifier(core, change, budget);
  const n = await core.write(actor, name, false, async (w) => {
    const predicate = compilePredicate(splitFilter(filter), w.shape, core.store.dialect, w.keys);
    // a watched collection's writes go through the writer, which keeps them for its triggers
    if (options.multi && core.setBasedUpdates && predicate.exact && !w.triggered) {
      const plan = planSetUpdate(change, w.shape);
      const done =
        plan &&
        (await setBasedUpdate(w, predicate.where, plan, core.limits.maxDocumentBytes, () =>
          options.onPath?.('set-based'),
        ));
      if (done !== undefined) return done;
    }
    options.onPath?.('batched');
    let matched = 0;
    // New versions are written a batch at a time (INSERT_BATCH documents or UPDATE_BATCH_CHARS of
    // JSON), in the transaction: a failure on any document undoes every one.
    let pending: Array<{ seq: number; doc: Document }> = [];
    let pendingChars = 0;
    const flush = async () => {
      const changed = modify(pending.map((p) => p.doc));
      await w.replace(pending.map((p, i) => ({ seq: p.seq, doc: changed[i]! })));
      pending = [];
      pendingChars = 0;
    };
    await scan(
      core,
      w.row,
      predicate.where,
      false,
      budget,
      async (doc, seq, size) => {
        if (!predicate.exact && !query.test(doc)) return true;
        matched++;
        pending.push({ seq, doc });
        pendingChars += size;
        if (pending.length >= INSERT_BATCH || pendingChars >= UPDATE_BATCH_CHARS) await flush();
        return options.multi;
      },
      w.tx,
    );
    if (pending.length) await flush();
    return matched;
  });
  return n ?? 0;
}

/** Deletes the matching documents; returns how many. */
export async function remove(
  core: CollectionCore,
  actor: Actor,
  name: string,
  filter: Record<string, unknown>,
  options: BudgetOption = {},
): Promise<number> {
  const budget = options.budget ?? new Budget();
  const query = compileFilter(filter, budget);
  const n = await core.write(actor, name, false, async (w) => {
    const predicate = compilePredicate(splitFilter(filter), w.shape, core.store.dialect, w.keys);
    if (predicate.exact) {
      const r = await w.tx.run(sql`DELETE FROM documents WHERE ${scope(w.row)}${and(predicate.where)}`);
      return r.changes;
    }
    const doomed: number[] = [];
    await scan(
      core,
      w.row,
      predicate.where,
      false,
      budget,
      (doc, seq) => {
        if (query.test(doc)) doomed.push(seq);
        return true;
      },
      w.tx,
    );
    for (let i = 0; i < doomed.length; i += INSERT_BATCH)
      await w.tx.run(
        sql`DELETE FROM documents WHERE ${scope(w.row)} AND seq IN (${sql.join(doomed.slice(i, i + INSERT_BATCH))})`,
      );
    return doomed.length;
  });
  return n ?? 0;
}

/**
 * Inserts every document of `source` in one transaction (created if needed; emptied first with
 * `drop`): one bad document rolls everything back, leaving the collection as it was.
 */
export async function importDocuments(
  core: CollectionCore,
  actor: Actor,
  name: string,
  source: Iterable<unknown> | AsyncIterable<unknown>,
  options: { drop?: boolean; onProgress?: (p: ImportProgress) => void } = {},
): Promise<number> {
  const n = await core.write(actor, name, true, async (w) => {
    if (options.drop) await w.tx.run(sql`DELETE FROM documents WHERE ${scope(w.row)}`);
    let count = 0;
    let batch: Document[] = [];
    for await (const value of source) {
      batch.push(prepareDocument(core, value));
      if (batch.length === INSERT_BATCH) {
        await w.insert(batch, false);
        count += batch.length;
        batch = [];
        options.onProgress?.({ documents: count });
      }
    }
    if (batch.length) await w.insert(batch, false);
    count += batch.length;
    options.onProgress?.({ documents: count });
    return count;
  });
  return n ?? 0;
}

/** A document as stored: JSON values only, a string `_id` first, within the size limit. */
function prepareDocument(core: CollectionCore, value: unknown): Document {
  const body = toJsonDocument(value);
  const given = body._id;
  let id: string;
  if (given === undefined || given === null) id = core.newId();
  else if (typeof given === 'number' && Number.isFinite(given)) id = String(given);
  else if (typeof given === 'string' && given !== '') id = given;
  else throw new CollectionError('invalid', '_id must be a non-empty string or a number');
  delete body._id;
  const doc: Document = { _id: id, ...body };
  const text = JSON.stringify(doc);
  const max = core.limits.maxDocumentBytes;
  if (text.length * 3 > max && Buffer.byteLength(text) > max)
    throw new CollectionError(
      'too-large',
      `a document of ${Buffer.byteLength(text)} bytes is larger than the limit of ${max} bytes`,
    );
  return doc;
}

/** The function turning matched documents into their new versions (in order). */
function modifier(
  core: CollectionCore,
  change: Record<string, unknown>,
  budget: Budget,
): (docs: Document[]) => Document[] {
  checkSpec(change);
  const keys = Object.keys(change);
  const operators = keys.filter((k) => k.startsWith('$'));
  if (operators.length === 0) {
    // A replacement: the new body under the old _id.
    const replacement = toJsonDocument(change);
    return (docs) =>
      docs.map((doc) => {
        if (replacement._id !== undefined && String(replacement._id) !== doc._id)
          throw new CollectionError('invalid', `the replacement cannot change _id ('${doc._id}')`);
        return prepareDocument(core, { ...replacement, _id: doc._id });
      });
  }
  if (operators.length !== keys.length)
    throw new CollectionError('invalid', 'an update cannot mix operators ($set …) with plain fields');
  for (const op of operators) {
    if (!UPDATE_OPERATORS.has(op)) throw new CollectionError('invalid', `unknown update operator ${op}`);
    const fields = change[op];
    if (!isPlainObject(fields)) throw new CollectionError('invalid', `${op} needs an object of fields`);
    for (const path of Object.keys(fields)) {
      assertSafePath(path);
      if (path === '_id' || path.startsWith('_id.'))
        throw new CollectionError('invalid', `the field '_id' cannot be changed`);
    }
  }
  return (docs) => {
    const ids = docs.map((doc) => doc._id);
    applyUpdate(docs, change, budget);
    return docs.map((doc, i) => prepareDocument(core, { ...doc, _id: ids[i] }));
  };
}
