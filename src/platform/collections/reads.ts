/**
 * Reads: find, count, aggregate and explain. The pushable part of a filter (and sort) runs as SQL
 * (pushdown.ts); when that is exact the engine's answer is the answer, otherwise mingo re-checks
 * every candidate and sorts in memory.
 */
import { Budget } from '../../limits/index.js';
import { sql, type Sql } from '../../store/index.js';
import { checkSort, isStage, sortFromObject, unknownCollection } from './checks.js';
import type { CollectionCore, Plan } from './core.js';
import { CollectionError } from './errors.js';
import {
  checkSpec,
  compileFilter,
  prepareFilter,
  runPipeline,
  sortDocuments,
  type PreparedFilter,
} from './mingo.js';
import { groupResults, groupStatement, planGroup } from './group.js';
import { compilePredicate, compileSort, splitFilter } from './pushdown.js';
import { and, countPrefix, scope, type CollectionRow } from './rows.js';
import { isPlainObject, parseStoredDocument } from './safety.js';
import { propertyOf } from '../../safety/narrow.js';
import { docColumn, documentsOf, largeDocument, readDoc, scan, stateColumn, type DocRow } from './scan.js';
import type { Actor, BudgetOption, Document, FindOptions, SortSpec } from './types.js';

/** Pipeline stages that would write or read outside the collection: refused. */
const REFUSED_STAGES = new Set(['$out', '$merge', '$lookup', '$graphLookup', '$unionWith', '$documents']);

/** Refuses REFUSED_STAGES, also inside the sub-pipelines of `$facet` (named in the message). */
function refuseStages(stages: readonly unknown[], facet: string | undefined): void {
  for (const stage of stages) {
    if (stage === null || typeof stage !== 'object') continue;
    const [op] = Object.keys(stage);
    if (op && REFUSED_STAGES.has(op))
      throw new CollectionError(
        'not-allowed',
        facet === undefined
          ? `operator ${op} is not supported`
          : `operator ${op} is not supported (in the sub-pipeline '${facet}' of $facet)`,
      );
    const sub = op === '$facet' ? propertyOf(stage, '$facet') : undefined;
    if (sub !== null && typeof sub === 'object')
      for (const [name, pipeline] of Object.entries(sub))
        if (Array.isArray(pipeline)) refuseStages(pipeline, name);
  }
}

export interface ExplainOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
  count?: boolean;
}

export interface Explanation {
  /** Some condition went to SQL. */
  pushed: boolean;
  /** SQL selects exactly mingo's matches (no re-check). */
  exact: boolean;
  /** SQL orders exactly as mingo would (no sort in memory). */
  sortPushed: boolean;
  /** The engine orders by reading an index (no sort of every match); false for a count. */
  sortIndexed: boolean;
  /** The engine's plan of the statement. */
  plan: string[];
}

/** Documents matching `filter` (MongoDB syntax), sorted, skipped and limited like a MongoDB cursor. */
export async function find(
  core: CollectionCore,
  actor: Actor,
  name: string,
  filter: Record<string, unknown>,
  options: FindOptions = {},
): Promise<Document[]> {
  const prepared = prepareFilter(filter, options.budget ?? new Budget());
  const sort = checkSort(options.sort);
  return core.read(actor, name, [], (row, plan, check) =>
    findIn(core, row, plan, check, prepared, sort, options.skip ?? 0, options.limit),
  );
}

export function count(
  core: CollectionCore,
  actor: Actor,
  name: string,
  filter: Record<string, unknown>,
  options: BudgetOption = {},
): Promise<number> {
  let prepared: PreparedFilter;
  try {
    prepared = prepareFilter(filter, options.budget ?? new Budget());
  } catch (e) {
    return Promise.reject(e);
  }
  return core.read(actor, name, 0, (row, plan, check) => countIn(core, row, plan, check, prepared));
}

function countIn(
  core: CollectionCore,
  row: CollectionRow,
  plan: Plan,
  check: boolean,
  prepared: PreparedFilter,
): Promise<number> {
  const predicate = compilePredicate(prepared.split, plan.shape, core.store.dialect, plan.keys);
  if (predicate.exact)
    return core.store
      .get<{ n: number; v: number | null }>(
        predicate.where ? sql`${countPrefix(row)} AND ${predicate.where}` : countPrefix(row),
      )
      .then((result) => {
        if (check) core.expectState(row, result!.v);
        return Number(result!.n);
      });
  return countMatches(core, row, predicate.where, check, prepared);
}

async function countMatches(
  core: CollectionCore,
  row: CollectionRow,
  where: Sql | undefined,
  check: boolean,
  prepared: PreparedFilter,
): Promise<number> {
  let n = 0;
  await scan(core, row, where, check, prepared.budget, (doc) => {
    if (prepared.test(doc)) n++;
    return true;
  });
  return n;
}

/**
 * Runs a pipeline over the collection. Leading $match stages, then a $sort and $skip/$limit
 * stages, are answered like `find` (pushed to SQL when exact); mingo runs the rest.
 */
export async function aggregate(
  core: CollectionCore,
  actor: Actor,
  name: string,
  stages: Record<string, unknown>[],
  options: BudgetOption = {},
): Promise<Record<string, unknown>[]> {
  const budget = options.budget ?? new Budget();
  checkSpec(stages);
  refuseStages(stages, undefined);
  const matches: Record<string, unknown>[] = [];
  let i = 0;
  for (; i < stages.length && isStage(stages[i]!, '$match'); i++) {
    const match = stages[i]!.$match;
    if (!isPlainObject(match)) break;
    matches.push(match);
  }
  const filter = matches.length === 0 ? {} : matches.length === 1 ? matches[0]! : { $and: matches };
  if (i < stages.length && isStage(stages[i]!, '$group')) {
    const grouped = await groupInSql(core, actor, name, filter, stages[i]!.$group, budget);
    if (grouped) {
      const after = stages.slice(i + 1);
      return after.length ? runPipeline(grouped, after, budget) : grouped;
    }
  }
  let sort: SortSpec | undefined;
  if (i < stages.length && isStage(stages[i]!, '$sort')) {
    sort = sortFromObject(stages[i]!.$sort);
    if (sort) i++;
  }
  let skip = 0;
  let limit: number | undefined;
  for (; i < stages.length; i++) {
    const stage = stages[i]!;
    const n = isStage(stage, '$skip') ? stage.$skip : isStage(stage, '$limit') ? stage.$limit : undefined;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < (isStage(stage, '$limit') ? 1 : 0)) break;
    if (isStage(stage, '$skip')) {
      skip += n;
      if (limit !== undefined) limit = Math.max(0, limit - n);
    } else limit = limit === undefined ? n : Math.min(limit, n);
  }
  const rest = stages.slice(i);
  const prepared = prepareFilter(filter, budget);
  const none: Document[] = [];
  const docs = await core.read(actor, name, none, (row, plan, check) =>
    findIn(core, row, plan, check, prepared, sort, skip, limit, true),
  );
  if (limit === undefined && docs.length > core.limits.maxInMemoryDocuments) throw core.tooMany();
  return rest.length ? runPipeline(docs, rest, budget) : docs;
}

/**
 * A `$group` after the leading `$match` stages, as one GROUP BY (group.ts) when the filter is
 * pushed exactly and the stage is one SQL answers as mingo would; else undefined (mingo runs it).
 * The groups are what is held in memory, under the in-memory bound.
 */
async function groupInSql(
  core: CollectionCore,
  actor: Actor,
  name: string,
  filter: Record<string, unknown>,
  spec: unknown,
  budget: Budget,
): Promise<Record<string, unknown>[] | undefined> {
  const prepared = prepareFilter(filter, budget);
  const dialect = core.store.dialect;
  return core.read(actor, name, [], async (row, plan, check) => {
    const group = planGroup(spec, plan.shape);
    if (!group) return undefined;
    const predicate = compilePredicate(prepared.split, plan.shape, dialect, plan.keys);
    if (!predicate.exact) return undefined;
    const rows = await core.store.all(
      groupStatement(group, dialect, sql`${scope(row)}${and(predicate.where)}`, stateColumn(core, row)),
    );
    if (check) await core.checkState(row, rows);
    if (rows.length > core.limits.maxInMemoryDocuments) throw core.tooMany();
    // The groups are what the evaluation holds: charged like the documents a read keeps.
    let size = 0;
    for (const r of rows) for (const v of Object.values(r)) size += typeof v === 'string' ? v.length : 8;
    budget.allocateString(size, documentsOf(row));
    return groupResults(group, rows);
  });
}

/**
 * How a find (or with `count`, a count) would run: the SQL condition pushed down (if any),
 * whether it is exact (no mingo re-check), whether the sort is done by SQL, and the engine's plan
 * of the statement.
 */
export async function explain(
  core: CollectionCore,
  actor: Actor,
  name: string,
  filter: Record<string, unknown>,
  options: ExplainOptions = {},
): Promise<Explanation> {
  compileFilter(filter);
  const sort = checkSort(options.sort);
  const dialect = core.store.dialect;
  const result = await core.read(actor, name, undefined, async (row, plan) => {
    const predicate = compilePredicate(splitFilter(filter), plan.shape, dialect, plan.keys);
    const order = sort?.length ? compileSort(sort, plan.shape, dialect, plan.keys) : sql`seq`;
    // The statement findIn runs when the filter is exact (ties broken by natural order).
    const query = options.count
      ? sql`SELECT count(*) AS n FROM documents WHERE ${scope(row)}${and(predicate.where)}`
      : sql`SELECT doc FROM documents WHERE ${scope(row)}${and(predicate.where)}
            ORDER BY ${order ?? sql`seq`}${sort?.length && order ? sql`, seq` : sql``}${dialect.documents.limitOffset(options.limit, options.skip ?? 0)}`;
    const lines = dialect.documents.planLines(await core.store.all(dialect.documents.explain(query)));
    return {
      pushed: predicate.where !== undefined,
      exact: predicate.exact,
      sortPushed: order !== undefined,
      sortIndexed: !options.count && order !== undefined && dialect.documents.sortsByIndex(lines),
      plan: lines,
    };
  });
  if (!result) throw unknownCollection(name);
  return result;
}

async function findIn(
  core: CollectionCore,
  row: CollectionRow,
  plan: Plan,
  check: boolean,
  prepared: PreparedFilter,
  sort: SortSpec | undefined,
  skip: number,
  limit: number | undefined,
  forAggregate = false,
): Promise<Document[]> {
  const dialect = core.store.dialect;
  const predicate = compilePredicate(prepared.split, plan.shape, dialect, plan.keys);
  const order = sort?.length ? compileSort(sort, plan.shape, dialect, plan.keys) : sql`seq`;
  if (predicate.exact && order) {
    if (forAggregate && limit === undefined) await assertFits(core, row, predicate.where, skip);
    const rows = await core.store.all<DocRow>(
      sql`SELECT ${docColumn(core)}${stateColumn(core, row)} FROM documents WHERE ${scope(row)}${and(predicate.where)}
          ORDER BY ${order}${sort?.length ? sql`, seq` : sql``}${dialect.documents.limitOffset(limit, skip)}`,
    );
    if (check) await core.checkState(row, rows);
    // Every document is charged before a large one is read (a page of 15 MB documents is
    // refused without holding them).
    const what = documentsOf(row);
    const docs = rows.map((r) => readDoc(r.doc));
    for (const d of docs) prepared.budget.allocateString(d.size, what);
    const out: Document[] = [];
    for (const d of docs) {
      // A large document read apart may have changed since the statement: the newer is given.
      const text = d.text ?? (await largeDocument(core.store, row, d.seq));
      if (text !== undefined) out.push(parseStoredDocument(text));
    }
    return out;
  }
  const max = core.limits.maxInMemoryDocuments;
  if (order && !sort?.length) {
    // Natural order, filter not exact: walk the candidates, keep the first matches.
    const out: Document[] = [];
    let seen = 0;
    await scan(core, row, predicate.where, check, prepared.budget, (doc, _seq, size) => {
      if (!prepared.test(doc)) return true;
      if (seen++ >= skip) {
        prepared.budget.allocateString(size, documentsOf(row));
        out.push(doc);
      }
      if (out.length > max) throw core.tooMany();
      return limit === undefined || out.length < limit;
    });
    return out;
  }
  const matches: Document[] = [];
  await scan(core, row, predicate.where, check, prepared.budget, (doc, _seq, size) => {
    if (!prepared.test(doc)) return true;
    prepared.budget.allocateString(size, documentsOf(row));
    matches.push(doc);
    if (matches.length > max) throw core.tooMany();
    return true;
  });
  const sorted = sortDocuments(matches, sort!, prepared.budget);
  return sorted.slice(skip, limit === undefined ? undefined : skip + limit);
}

async function assertFits(
  core: CollectionCore,
  row: CollectionRow,
  where: Sql | undefined,
  skip: number,
): Promise<void> {
  const r = await core.store.get<{ n: number }>(
    sql`SELECT count(*) AS n FROM (SELECT 1 FROM documents WHERE ${scope(row)}${and(where)}
        LIMIT ${core.limits.maxInMemoryDocuments + skip + 1}) AS capped`,
  );
  if (Number(r!.n) - skip > core.limits.maxInMemoryDocuments) throw core.tooMany();
}
