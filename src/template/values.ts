/**
 * Runtime values. Plain JavaScript values are template values as they are (string, number,
 * boolean, array = sequence, plain object or Map = hash, function = method, undefined/null =
 * missing); the engine adds a few classes of its own for what JavaScript has no type for.
 */
import type * as A from './ast.js';
import { BigDec } from './bigdecimal.js';

/** A FreeMarker date, time or date-time (contract §1). */
export class FmDate {
  constructor(
    readonly epochMs: number,
    readonly kind: 'date' | 'time' | 'datetime' | 'unknown',
  ) {}
}

/**
 * A date the engine made (parsed, converted, .now, ?number_to_*). Time values from the data model
 * stand for java.sql.Time, which ISO formats print without an offset; these don't.
 */
export class EngineDate extends FmDate {}

/** True for time values FreeMarker would hold as java.sql.Time (printed without a zone offset in ISO). */
export function isSqlTime(d: FmDate): boolean {
  return d.kind === 'time' && !(d instanceof EngineDate);
}

/** Marks a user-defined directive object (contract §1). */
export const DIRECTIVE: unique symbol = Symbol.for('flowmark.template.directive') as any;

/** A java.lang.Double or Float (?double, ?float, NaN and infinities): formatted and compared as a double. */
export class JDouble {
  constructor(
    readonly value: number,
    readonly isFloat = false,
  ) {}
}

export type FmNumber = number | BigDec | JDouble;

/** A lazily evaluated numerical range (`1..n`, `1..`, `1..*n`). */
export class FmRange {
  constructor(
    readonly start: number,
    /** Number of items (Integer.MAX_VALUE for a right-unbounded range, as FreeMarker reports it). */
    readonly size: number,
    readonly step: 1 | -1,
    /** Right-unbounded ranges (`1..`) are not sequences for ?size and the like in FreeMarker. */
    readonly unbounded: boolean,
    /** `a..*n` ranges adapt to the sliced value's length. */
    readonly rightAdaptive = false,
    /** `a..b` inclusive ranges: "foo"[n..n-1] gives "" (FreeMarker keeps this legacy behaviour). */
    readonly inclusive = false,
  ) {}
  get(i: number): number {
    return this.start + i * this.step;
  }
  toArray(limit: number): number[] {
    if (this.size > limit) throw new RangeTooLargeError(this.size);
    const out = new Array<number>(this.size);
    for (let i = 0; i < this.size; i++) out[i] = this.start + i * this.step;
    return out;
  }
}

export class RangeTooLargeError extends Error {
  constructor(readonly size: number) {
    super(`range too large to materialize (${size} items)`);
  }
}

/** A method implemented by the engine (built-in method values, ?with_args results, lambdas …); gets engine values. */
export class FmMethod {
  constructor(
    /** `at`: the call being evaluated, when there is one (errors of the method point to it). */
    readonly invoke: (args: unknown[], env: any, at?: A.Pos) => unknown,
    readonly label: string,
  ) {}
}

/** Output of a markup output format (HTML, XML, RTF …): holds markup and/or the plain text it escapes. */
export class MarkupOutput {
  constructor(
    readonly format: string,
    private plainText: string | undefined,
    private markupText: string | undefined,
    private readonly escaper: (s: string) => string,
  ) {}
  get markup(): string {
    if (this.markupText === undefined) this.markupText = this.escaper(this.plainText!);
    return this.markupText;
  }
  /** Plain text when this value was created from plain text (needed by ?markup_string comparisons). */
  get plain(): string | undefined {
    return this.plainText;
  }
}

/** The namespace of a template (main or an imported library): a hash of its variables. */
export class Namespace {
  readonly vars = new Map<string, unknown>();
  constructor(readonly templateName: string) {}
}

/** Sequences (`?keys` of a hash, `?values` …) that can only be listed, not indexed. */
export class FmCollection {
  constructor(readonly items: unknown[]) {}
}

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && typeof v === 'object' && typeof Reflect.get(v, 'then') === 'function';
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

export function isNumber(v: unknown): v is FmNumber {
  return typeof v === 'number' || v instanceof BigDec || v instanceof JDouble;
}

export function isSequence(v: unknown): boolean {
  return Array.isArray(v) || v instanceof FmRange || v instanceof MatchResult || v instanceof EmptyDefault;
}

export function isDirectiveObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && Reflect.get(v, DIRECTIVE) === true;
}

export function isHash(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (v instanceof Map || v instanceof Namespace || v instanceof LookupHash || v instanceof EmptyDefault)
    return true;
  return isPlainObject(v) && !isDirectiveObject(v);
}

/** Own-property lookup in a hash; never reaches prototypes (`constructor`, `__proto__` are plain keys). */
export function hashGet(h: unknown, key: string): unknown {
  if (h instanceof Map) {
    const v = h.get(key);
    return v === null ? undefined : v;
  }
  if (h instanceof Namespace) {
    const v = h.vars.get(key);
    return v === null ? undefined : v;
  }
  if (h instanceof LookupHash) {
    const v = h.lookup(key);
    return v === null ? undefined : v;
  }
  if (h instanceof EmptyDefault) return undefined;
  if (h === null || typeof h !== 'object' || !Object.prototype.hasOwnProperty.call(h, key)) return undefined;
  const v: unknown = Reflect.get(h, key);
  return v === null ? undefined : v;
}

export function hashKeys(h: unknown): string[] {
  if (h instanceof LegacyHashLiteral) return h.pairs.map((p) => p[0]);
  if (h instanceof Map) {
    const keys = new Array<string>(h.size);
    let i = 0;
    for (const k of h.keys()) keys[i++] = typeof k === 'string' ? k : String(k);
    return keys;
  }
  if (h instanceof Namespace) return Array.from(h.vars.keys());
  if (h instanceof LookupHash || h instanceof EmptyDefault) return [];
  return Object.keys(Object(h));
}

export function hashSize(h: unknown): number {
  if (h instanceof Map) {
    if (h instanceof LegacyHashLiteral) return h.pairs.length;
    if (h instanceof RepeatedKeyHashLiteral) return h.literalSize;
    return h.size;
  }
  if (h instanceof LookupHash || h instanceof EmptyDefault) return 0;
  if (h instanceof Namespace) return h.vars.size;
  return Object.keys(Object(h)).length;
}

/** Number of items of a sequence value (array or bounded range). */
export function seqSize(s: unknown): number {
  if (Array.isArray(s)) return s.length;
  if (s instanceof MatchResult) return s.items.length;
  if (s instanceof EmptyDefault) return 0;
  return s instanceof FmRange ? s.size : 0;
}

export function seqGet(s: unknown, i: number): unknown {
  if (Array.isArray(s)) {
    const v = s[i];
    return v === null ? undefined : v;
  }
  if (s instanceof MatchResult) return s.items[i];
  if (s instanceof EmptyDefault) return undefined;
  return s instanceof FmRange && i >= 0 && i < s.size ? s.get(i) : undefined;
}

/** The items of a sequence or collection as an array (ranges materialized up to `limit` items). */
export function seqItems(s: unknown, limit: number): unknown[] {
  if (Array.isArray(s)) return s;
  if (s instanceof MatchResult) return s.items;
  if (s instanceof FmCollection) return s.items;
  if (s instanceof EmptyDefault) return [];
  return s instanceof FmRange ? s.toArray(limit) : [];
}

/** One match of ?matches: a string that also has ?groups. */
export class MatchItem {
  constructor(
    readonly text: string,
    readonly groups: (string | undefined)[],
  ) {}
  /** Written to JSON (eval variables, data documents) as its text. */
  toJSON(): unknown {
    return this.text;
  }
}

/**
 * A value that is a string and a boolean at once, as FreeMarker's multi-typed models (a
 * TemplateScalarModel that is also a TemplateBooleanModel): `${v}`, `v == 'true'`, `?is_string`
 * and string built-ins see the text "true"/"false"; `<#if v>`, `!v`, `v && …`, `v == true`,
 * `?is_boolean`, `?c` and `?string("yes", "no")` see the boolean. A MatchItem without groups, so
 * every string operation takes it as its text. JSON (variables, data documents, the JS backend)
 * sees the boolean.
 */
export class StringBoolean extends MatchItem {
  constructor(readonly value: boolean) {
    super(value ? 'true' : 'false', []);
  }
  override toJSON(): boolean {
    return this.value;
  }
}

/**
 * What `missing!` (no default) gives when the value is missing: at once an empty string, an empty
 * sequence and an empty hash, as FreeMarker's DefaultToExpression.EMPTY_STRING_AND_SEQUENCE_AND_HASH
 * (`${missing!}` prints nothing, `<#list missing! as x>` lists nothing, `(missing!)?size` is 0,
 * `(missing!).foo` is missing). A MatchItem without groups, so string operations take it as "".
 */
export class EmptyDefault extends MatchItem {
  constructor() {
    super('', []);
  }
}

export const EMPTY_DEFAULT = new EmptyDefault();

/** The result of ?matches: a boolean (whole string matched), a sequence of matches, and ?groups. */
export class MatchResult {
  private found: MatchItem[] | undefined;
  constructor(
    readonly matched: boolean,
    private readonly find: () => MatchItem[],
    readonly groups: (string | undefined)[],
  ) {}
  /** Every match of the pattern in the string, found on first use. */
  get items(): MatchItem[] {
    return (this.found ??= this.find());
  }
}

/** A hash literal of FreeMarker before 2.3.21: listing shows every key/value pair, duplicates included. */
export class LegacyHashLiteral extends Map<string, unknown> {
  readonly pairs: [string, unknown][] = [];
}

/**
 * A hash literal that repeats a key (`{"a": 1, "a": 2}`): FreeMarker's HashLiteral.SequenceHash
 * keeps the last value of each key but counts every key written in ?size (2 here).
 */
export class RepeatedKeyHashLiteral extends Map<string, unknown> {
  constructor(
    entries: Map<string, unknown>,
    readonly literalSize: number,
  ) {
    super(entries);
  }
}

/** A hash that can only be looked up by key (.vars, .globals, .data_model). */
export class LookupHash {
  constructor(readonly lookup: (key: string) => unknown) {}
}

/** A macro, function or method with arguments bound by ?with_args / ?with_args_last. */
export class BoundCallable {
  constructor(
    readonly target: unknown,
    readonly named: Map<string, unknown> | null,
    readonly positional: unknown[] | null,
    readonly last: boolean,
  ) {}
}
