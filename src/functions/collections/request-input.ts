/**
 * Request input never becomes a query operator by accident (docs/hosts.md, "Request input in
 * queries"). In a collection query, an object that came from the request's input (marked by the
 * host, see template/provenance.ts) and holds `$`-keys is taken literally:
 *
 * - where a field's value is expected (`{"pin": P_body.pin}`, the operand of `$elemMatch`), it is
 *   wrapped in `{"$eq": …}`: it matches only a field holding that very object;
 * - inside an aggregation expression (`$expr`, pipeline stages other than `$match`), in
 *   `{"$literal": …}`;
 * - where the query's own operators are expected (the whole condition, a clause of `$and`/`$or`/
 *   `$nor`, a pipeline stage, an element of `$all`), it is refused: no literal reading exists there;
 *   so is a whole update from the request with `$`-keys (its operators would be the caller's).
 *
 * The script's own operators keep working, with request values inside them (`{"age": {"$gt":
 * P_body.min}}`): their operands are literal in MongoDB's semantics already. Strings cannot be
 * marked: JSON text built from request values, and keys taken from them, are the script's to check.
 */
import { isRequestInput } from '../../template/index.js';
import { isHash } from '../coercion.js';
import type { ExecutionContext } from '../context.js';
import { argumentError } from '../errors.js';

/**
 * The request's texts starting with `$` (ExecutionContext.requestStrings) and how often a query
 * argument of one function call held each where an aggregation expression reads a field path or a
 * variable. Strings carry no mark, so they are known by their text: met once, it is taken
 * literally (`{"$literal": …}`: a label taken from the query string prints as that text); met
 * more than once, the script may have written the same text as its own field path (a login check
 * comparing `"$password"` with the posted value), and the query is refused.
 */
export interface RequestTexts {
  strings: ReadonlySet<string>;
  counts: Map<string, number>;
  refuse?: (text: string) => never;
}

export function requestTexts(ctx: ExecutionContext): RequestTexts {
  return { strings: ctx.requestStrings ?? NO_STRINGS, counts: new Map() };
}
const NO_STRINGS: ReadonlySet<string> = new Set();

function textRefuser(fn: string, index: number, name: string): (text: string) => never {
  return (text) => {
    throw argumentError(
      fn,
      index,
      name,
      `reads the text ${JSON.stringify(text.length > 60 ? text.slice(0, 60) + '…' : text)} from the request's input ` +
        'where a field path or variable is read, and the query uses the same text more than once: ' +
        'refused, a request value is never a field path (write the path in the script, or compare with {"$literal": …})',
    );
  };
}

/** Deeper than this the query engine refuses the query anyway (platform/collections/safety.ts). */
const MAX_DEPTH = 200;

type Refuse = (operator: string) => never;

function refuser(fn: string, index: number, name: string, what = 'a query'): Refuse {
  return (operator) => {
    throw argumentError(
      fn,
      index,
      name,
      `holds the operator ${operator} from the request's input: ${what}'s operators must be written in the script`,
    );
  };
}

function entries(h: Record<string, unknown> | Map<unknown, unknown>): [string, unknown][] {
  return h instanceof Map ? [...h].map(([k, v]) => [String(k), v]) : Object.entries(h);
}

function operatorOf(h: Record<string, unknown> | Map<unknown, unknown>): string | undefined {
  for (const [k] of entries(h)) if (k.startsWith('$')) return k;
  return undefined;
}

function build(pairs: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of pairs)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * A query argument (hash, possibly with `$query`/`$orderby`) with request input neutralised; JSON
 * text and other values are returned as they are.
 */
export function neutraliseQuery(
  fn: string,
  index: number,
  name: string,
  value: unknown,
  texts: RequestTexts = requestTextsNone(),
): unknown {
  if (!isHash(value)) return value;
  const refuse = refuser(fn, index, name);
  texts.refuse = textRefuser(fn, index, name);
  if (!isRequestInput(value) && entries(value).some(([k]) => k === '$query' || k === '$orderby'))
    return build(
      entries(value).map(([k, v]) => [k, k === '$query' && isHash(v) ? filter(v, refuse, 0, texts) : v]),
    );
  return filter(value, refuse, 0, texts);
}

function requestTextsNone(): RequestTexts {
  return { strings: NO_STRINGS, counts: new Map() };
}

/**
 * An update argument as it is, unless it is a request's object holding `$`-keys: those would be
 * update operators (`$unset`, `$inc`, `$rename` …) where the script passed fields to set.
 */
export function scriptUpdate(fn: string, index: number, name: string, value: unknown): unknown {
  if (isHash(value) && isRequestInput(value)) {
    const operator = operatorOf(value);
    if (operator) refuser(fn, index, name, 'an update')(operator);
  }
  return value;
}

/** The stages of a pipeline argument (one stage or an array of them) with request input neutralised. */
export function neutralisePipeline(
  fn: string,
  index: number,
  name: string,
  value: unknown,
  texts: RequestTexts = requestTextsNone(),
): unknown {
  texts.refuse = textRefuser(fn, index, name);
  return pipeline(value, refuser(fn, index, name), 0, texts);
}

function pipeline(value: unknown, refuse: Refuse, depth: number, texts: RequestTexts): unknown {
  if (Array.isArray(value)) return value.map((stage) => pipelineStage(stage, refuse, depth + 1, texts));
  return pipelineStage(value, refuse, depth, texts);
}

function pipelineStage(stage: unknown, refuse: Refuse, depth: number, texts: RequestTexts): unknown {
  if (!isHash(stage)) return stage;
  if (isRequestInput(stage)) {
    const operator = operatorOf(stage);
    if (operator) refuse(operator);
    return stage;
  }
  return build(
    entries(stage).map(([k, v]) => {
      if (k === '$match' && isHash(v)) return [k, filter(v, refuse, depth + 1, texts)];
      if (k === '$facet' && isHash(v))
        return [k, build(entries(v).map(([f, p]) => [f, pipeline(p, refuse, depth + 2, texts)]))];
      return [k, expression(v, depth + 1, texts)];
    }),
  );
}

/** A condition: field names to values, and the logical operators of the query language. */
function filter(
  f: Record<string, unknown>,
  refuse: Refuse,
  depth: number,
  texts: RequestTexts,
): Record<string, unknown> {
  if (depth > MAX_DEPTH) return f;
  const fromRequest = isRequestInput(f);
  return build(
    entries(f).map(([k, v]): [string, unknown] => {
      if (!k.startsWith('$')) return [k, fieldValue(v, refuse, depth + 1)];
      if (fromRequest) refuse(k);
      if ((k === '$and' || k === '$or' || k === '$nor') && Array.isArray(v))
        return [k, v.map((clause) => (isHash(clause) ? filter(clause, refuse, depth + 2, texts) : clause))];
      if (k === '$expr') return [k, expression(v, depth + 1, texts)];
      return [k, v];
    }),
  );
}

/** What a field is compared with: a value, or an expression of operators written by the script. */
function fieldValue(v: unknown, refuse: Refuse, depth: number): unknown {
  if (!isHash(v) || depth > MAX_DEPTH) return v;
  if (isRequestInput(v)) return operatorOf(v) === undefined ? v : { $eq: v };
  if (operatorOf(v) === undefined) return v; // an embedded document, compared whole
  return build(
    entries(v).map(([op, operand]): [string, unknown] => {
      if (op === '$not') return [op, fieldValue(operand, refuse, depth + 1)];
      if (op === '$elemMatch') return [op, elementCondition(operand, refuse, depth + 1)];
      if (op === '$all' && Array.isArray(operand))
        return [
          op,
          operand.map((item) => {
            if (!isHash(item)) return item;
            if (isRequestInput(item)) {
              const operator = operatorOf(item);
              if (operator) refuse(operator);
              return item;
            }
            return fieldValue(item, refuse, depth + 2);
          }),
        ];
      return [op, operand];
    }),
  );
}

/** The operand of `$elemMatch`: a condition on the elements' fields, or operators on the elements. */
function elementCondition(v: unknown, refuse: Refuse, depth: number): unknown {
  if (!isHash(v)) return v;
  const operator = operatorOf(v);
  // $expr is not allowed inside $elemMatch: no request text is read as a path here
  const texts = requestTextsNone();
  if (isRequestInput(v)) return operator === undefined ? filter(v, refuse, depth, texts) : { $eq: v };
  return operator === undefined || operator === '$and' || operator === '$or' || operator === '$nor'
    ? filter(v, refuse, depth, texts)
    : fieldValue(v, refuse, depth);
}

/**
 * An aggregation expression: request objects with `$`-keys become `{"$literal": …}`, and so do the
 * request's `$` texts (RequestTexts: refused when one is met more than once).
 */
function expression(v: unknown, depth: number, texts: RequestTexts): unknown {
  if (depth > MAX_DEPTH) return v;
  if (typeof v === 'string') {
    if (!texts.strings.has(v)) return v;
    const n = (texts.counts.get(v) ?? 0) + 1;
    texts.counts.set(v, n);
    if (n > 1) texts.refuse!(v);
    return { $literal: v };
  }
  if (Array.isArray(v)) return v.map((item) => expression(item, depth + 1, texts));
  if (!isHash(v)) return v;
  if (isRequestInput(v) && operatorOf(v) !== undefined) return { $literal: v };
  // what $literal holds is read as it is
  if (entries(v).length === 1 && entries(v)[0]![0] === '$literal') return v;
  return build(entries(v).map(([k, item]) => [k, expression(item, depth + 1, texts)]));
}
