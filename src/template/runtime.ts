/**
 * The state of one render (FreeMarker's Environment): output buffer, namespaces, the macro call
 * frame and its loop-variable contexts, settings, limits, and the bookkeeping that lets a sync
 * expression evaluation suspend on a Promise and resume (an expression is re-evaluated with the
 * results of the calls it already made, so no call runs twice).
 */
import type * as A from './ast.js';
import { Budget, BudgetExceededError, SLOT_BYTES, STRING_CHAR_BYTES } from '../limits/budget.js';
import { BigDec } from './bigdecimal.js';
import { canonical } from './canonical.js';
import { TIP_MISSING, TemplateError, locationText, withTips, errorMessage } from './errors.js';
import { LazySeq } from './lazy.js';
import { carryMark } from './provenance.js';
import { suggestCallable } from './suggest.js';
import {
  FmCollection,
  FmDate,
  FmMethod,
  FmRange,
  JDouble,
  MarkupOutput,
  MatchItem,
  MatchResult,
  StringBoolean,
  EmptyDefault,
  Namespace,
  isDirectiveObject,
  isPlainObject,
} from './values.js';
import { Transform, sharedVariable } from './transforms.js';

export type Ev = (env: Env) => unknown;
export type Exec = (env: Env) => void | Promise<void>;

export interface Limits {
  maxSteps: number;
  maxDepth: number;
  maxOutputChars: number;
}

/**
 * FreeMarker's incompatible_improvements versions whose legacy behaviours flowmark keeps, as the
 * ints `ExprContext.ici` holds (compile.ts: iciInt): 2.3.20 is 2003020.
 */
export const ICI = { V2_3_20: 2_003_020, V2_3_21: 2_003_021, V2_3_31: 2_003_031 } as const;

export const DEFAULT_LIMITS: Limits = { maxSteps: 5_000_000, maxDepth: 200, maxOutputChars: 20_000_000 };

/** A compiled template: what the runtime needs to run it. */
export interface TemplateUnit {
  readonly name: string;
  readonly run: Exec;
  readonly macros: MacroDef[];
  readonly outputFormat: string;
  readonly autoEscape: boolean;
  readonly source: string;
  readonly attributes: Record<string, unknown>;
  /** The element tree (for the FTL stack trace of errors). */
  readonly root: A.El;
}

export interface MacroDef {
  readonly name: string;
  readonly isFunction: boolean;
  readonly params: { name: string; def: Ev | null }[];
  readonly catchAll: string | null;
  readonly body: Exec;
  /**
   * A #function whose whole body is `<#return expr>`: expr's evaluator, so a call gives its value
   * without throwing a ReturnSignal through the body (same value, same errors).
   */
  readonly returns?: { ev: Ev; at: A.Expr };
  readonly el: A.MacroEl;
  readonly unit: TemplateUnit;
}

/** A macro or function as a value: the definition plus the namespace it was defined in. */
export class MacroValue {
  constructor(
    readonly def: MacroDef,
    readonly ns: Namespace,
  ) {}
}

/** A local context: loop variables of #list/#items, #nested parameters, lambda parameters. */
export class LoopCtx {
  index = 0;
  hasNext = false;
  /** A #list/#items iteration (lambda parameters use this class too, but are not loops). */
  isLoop = false;
  /** #list without "as": the listed items, waiting for #items. */
  pending: unknown[] | null = null;
  value: unknown = undefined;
  value2: unknown = undefined;
  constructor(
    public name: string | null,
    public name2: string | null,
  ) {}
  get(n: string): unknown {
    if (n === this.name) return this.value;
    if (n === this.name2) return this.value2;
    // legacy loop variables: x_index and x_has_next
    if (this.isLoop && this.name !== null && n.length > this.name.length && n.startsWith(this.name)) {
      const rest = n.slice(this.name.length);
      if (rest === '_index') return this.index;
      if (rest === '_has_next') return this.hasNext;
    }
    return undefined;
  }
  has(n: string): boolean {
    return n === this.name || n === this.name2;
  }
}

export class NamedCtx {
  constructor(
    readonly names: string[],
    readonly values: unknown[],
  ) {}
  get(n: string): unknown {
    const i = this.names.indexOf(n);
    return i < 0 ? undefined : this.values[i];
  }
  has(n: string): boolean {
    return this.names.includes(n);
  }
}

export type LocalCtx = LoopCtx | NamedCtx;

/** A macro or function invocation (FreeMarker's Macro.Context). */
export class Frame {
  readonly locals = new Map<string, unknown>();
  constructor(
    readonly macro: MacroValue,
    /** The caller's state, restored around #nested. */
    readonly callerFrame: Frame | null,
    readonly callerLoops: LocalCtx[],
    readonly callerNs: Namespace,
    readonly callerUnit: TemplateUnit,
    /** Body of the call (<@m>…</@m>) and its loop variable names (<@m ; x, y>). */
    readonly body: Exec | null,
    readonly bodyParams: string[] | null,
    readonly callEl: A.El | null,
  ) {}
}

export class Buf {
  s = '';
}

/** Thrown by a sync evaluation that met a Promise; the enclosing session awaits it and replays. */
export class AsyncNeeded {
  constructor(
    readonly promise: Promise<unknown>,
    readonly index: number,
  ) {}
}

/** An expression result that is not there yet. */
export class Pending {
  constructor(readonly promise: Promise<unknown>) {}
}

interface Snapshot {
  frame: Frame | null;
  loops: LocalCtx[];
  ns: Namespace;
  buf: Buf;
  unit: TemplateUnit;
  depth: number;
}

export interface DataModel {
  get(name: string): unknown;
}

export interface EnvSettings {
  numberFormat: string;
  booleanFormat: string;
  dateFormat: string;
  timeFormat: string;
  datetimeFormat: string;
  urlEscapingCharset: string | null;
  outputEncoding: string | null;
  classicCompatible: boolean;
}

/** The date_format, time_format or datetime_format setting: the default format of a value of that kind. */
export function dateFormatSetting(settings: EnvSettings, kind: string): string {
  return kind === 'date'
    ? settings.dateFormat
    : kind === 'time'
      ? settings.timeFormat
      : settings.datetimeFormat;
}

/** Characters from which a concatenation result counts as a long rope (see Env.chargeConcat). */
const LONG_ROPE = 1 << 20;

/** Steps between two looks at the wall clock. */
const TIME_CHECK_STEPS = 4096;

export class Env {
  buf = new Buf();
  steps = 0;
  depth = 0;
  readonly maxSteps: number;
  readonly maxDepth: number;
  readonly maxOut: number;
  /**
   * The evaluation's budget: wall time and bytes allocated (shared with the functions the template
   * calls). Without one from the caller, a default one is made on first use (its clock starts
   * then, within the first few thousand steps), so short renders do not pay for it.
   */
  get budget(): Budget {
    return (this.ownBudget ??= new Budget({
      maxSteps: this.maxSteps,
      maxOutputChars: this.maxOut,
    }));
  }
  private ownBudget: Budget | null;
  /** The step count at which `tick` next looks at the clock and the step limit. */
  private gate: number;

  locale: string;
  timeZone: string;
  settings: EnvSettings;
  /** Formatter caches, reset when a setting changes. */
  cache: Record<string, unknown> = {};

  readonly globals = new Map<string, unknown>();
  readonly mainNs: Namespace;
  ns: Namespace;
  frame: Frame | null = null;
  loops: LocalCtx[] = [];
  unit: TemplateUnit;
  readonly mainUnit: TemplateUnit;

  callLog: unknown[] | null = null;
  callIdx = 0;
  /** Errors being handled by #recover (innermost last), for .error. */
  get recovered(): TemplateError[] {
    return (this.recoveredList ??= []);
  }
  /** Imported libraries by template name. */
  get libs(): Map<string, Namespace> {
    return (this.libsMap ??= new Map());
  }
  /** Element trees of the templates that ran, by name (FTL stack traces); the main one first. */
  get roots(): Map<string, A.El> {
    return (this.rootsMap ??= new Map([[this.mainUnit.name, this.mainUnit.root]]));
  }
  // made on first use: most renders import nothing, recover nothing and fail nowhere
  private recoveredList: TemplateError[] | null = null;
  private libsMap: Map<string, Namespace> | null = null;
  private rootsMap: Map<string, A.El> | null = null;
  private callEnvObj: CallEnvImpl | null = null;

  constructor(
    unit: TemplateUnit,
    readonly data: DataModel,
    opts: {
      locale: string;
      timeZone: string;
      limits: Limits;
      budget: Budget | null;
      settings: EnvSettings;
      strict: boolean;
      loader?: (name: string) => string | undefined | Promise<string | undefined>;
      compile: (source: string, name: string, outputFormat?: string) => TemplateUnit;
      now?: () => number;
    },
  ) {
    this.unit = this.mainUnit = unit;
    this.mainNs = this.ns = new Namespace(unit.name);
    this.locale = opts.locale;
    this.timeZone = opts.timeZone;
    this.settings = opts.settings;
    this.maxSteps = opts.limits.maxSteps;
    this.maxDepth = opts.limits.maxDepth;
    this.maxOut = opts.limits.maxOutputChars;
    this.ownBudget = opts.budget;
    this.gate = Math.min(this.maxSteps, TIME_CHECK_STEPS);
    this.strict = opts.strict;
    this.loader = opts.loader;
    this.compileTemplate = opts.compile;
    this.nowFn = opts.now;
  }

  readonly strict: boolean;
  readonly loader?: (name: string) => string | undefined | Promise<string | undefined>;
  readonly compileTemplate: (source: string, name: string, outputFormat?: string) => TemplateUnit;
  private readonly nowFn?: () => number;

  /** The clock, read at each use of `.now` like FreeMarker (scripts time themselves with it). */
  now(): number {
    return this.nowFn ? this.nowFn() : Date.now();
  }

  // ------------------------------------------------------------------ output and limits

  write(s: string): void {
    const b = this.buf;
    b.s += s;
    if (b.s.length > this.maxOut) throw limitError(`the output exceeds ${this.maxOut} characters`);
  }

  tick(): void {
    if (++this.steps > this.gate) this.passGate();
  }

  ticks(n: number): void {
    this.steps += n;
    if (this.steps > this.gate) this.passGate();
  }

  private passGate(): void {
    if (this.steps > this.maxSteps) throw limitError(`the render exceeded ${this.maxSteps} steps`);
    this.checkTime();
    this.gate = Math.min(this.maxSteps, this.steps + TIME_CHECK_STEPS);
  }

  /** Ends the render when the evaluation is past its wall time. */
  checkTime(): void {
    try {
      this.budget.checkTime('the template');
    } catch (e) {
      throw budgetLimitError(e as BudgetExceededError);
    }
  }

  /**
   * Charges `bytes` to the budget before `what` (a built-in, an operator) builds a value. Small
   * charges are gathered and passed on 64 KB at a time (ordinary renders never touch the budget).
   */
  allocate(bytes: number, what: string): void {
    const total = this.unbilled + bytes;
    if (total < 65536) {
      this.unbilled = total;
      return;
    }
    this.unbilled = 0;
    const b = this.budget;
    if (b.allocated + total > b.limits.maxAllocBytes) throw budgetLimitError(b.memoryError(what));
    b.allocate(total, what);
  }
  private unbilled = 0;

  /** `allocate` for a string of `length` characters. */
  allocateString(length: number, what: string): void {
    this.allocate(length * STRING_CHAR_BYTES, what);
  }

  /**
   * `l + r`, charged. V8 makes a rope (cons string) that shares both
   * operands, so only the shorter side is counted as new: `s = s + x` in a loop is charged its final
   * length, not the sum of every intermediate one, and `s = s + s` its doubling. A rope is copied
   * flat when a built-in reads it, though, so a long one that does not extend the previous long
   * result (`big + i` kept 300 times) is charged whole.
   */
  concat(l: string, r: string): string {
    const a = l.length;
    const b = r.length;
    if (a + b > this.maxOut) this.checkStringSize(a + b);
    if (a + b < LONG_ROPE) {
      this.allocate((a < b ? a : b) * STRING_CHAR_BYTES + 32, 'string concatenation');
      return l + r;
    }
    if (l === this.lastRope) this.allocate((a < b ? a : b) * STRING_CHAR_BYTES + 32, 'string concatenation');
    else this.allocate((a + b) * STRING_CHAR_BYTES, 'string concatenation');
    return (this.lastRope = l + r);
  }

  /** The last long concatenation result (see chargeConcat). */
  lastRope: string | null = null;

  /**
   * The last sequences and hashes made by `+`, not yet used as the left operand of another `+`.
   * Using one there (`list = list + [x]`, the usual way of building a list) charges only the right
   * operand's items, so building a list item by item is charged its final size; any other `+`
   * copies, and is charged, the whole result. A few recent ones are enough for loops that build
   * several lists at once.
   */
  private accumulators: (object | null)[] | null = null;
  private accumulatorNext = 0;

  addAccumulator(v: object): void {
    (this.accumulators ??= [null, null, null, null])[this.accumulatorNext] = v;
    this.accumulatorNext = (this.accumulatorNext + 1) & 3;
  }

  /** Whether `v` was a recent `+` result not yet used as a left operand (and now is). */
  takeAccumulator(v: object): boolean {
    const a = this.accumulators;
    if (a === null) return false;
    for (let i = 0; i < 4; i++) {
      if (a[i] === v) {
        a[i] = null;
        return true;
      }
    }
    return false;
  }

  /** `allocate` for `count` sequence items or hash entries. */
  allocateSlots(count: number, what: string): void {
    this.allocate(count * SLOT_BYTES, what);
  }

  checkStringSize(n: number): void {
    if (n > this.maxOut)
      throw limitError(`a string of ${n} characters exceeds the output limit (${this.maxOut})`);
  }

  // ------------------------------------------------------------------ variables

  lookup(name: string): unknown {
    const loops = this.loops;
    for (let i = loops.length - 1; i >= 0; i--) {
      const v = loops[i].get(name);
      if (v !== undefined) return v;
    }
    if (this.frame !== null) {
      const v = this.frame.locals.get(name);
      if (v !== undefined) return v;
    }
    const v = this.ns.vars.get(name);
    if (v !== undefined) return v;
    return this.globalLookup(name);
  }

  /** Globals, then the data model (FreeMarker's getGlobalVariable). */
  globalLookup(name: string): unknown {
    const g = this.globals.get(name);
    if (g !== undefined) return g;
    const d = this.data.get(name);
    return d === null || d === undefined ? sharedVariable(name) : d;
  }

  localLookup(name: string): unknown {
    const loops = this.loops;
    for (let i = loops.length - 1; i >= 0; i--) {
      const v = loops[i].get(name);
      if (v !== undefined) return v;
    }
    return this.frame?.locals.get(name);
  }

  // ------------------------------------------------------------------ context snapshots (async resumption)

  snap(): Snapshot {
    return {
      frame: this.frame,
      loops: this.loops,
      ns: this.ns,
      buf: this.buf,
      unit: this.unit,
      depth: this.depth,
    };
  }

  restore(s: Snapshot): void {
    this.frame = s.frame;
    this.loops = s.loops;
    this.ns = s.ns;
    this.buf = s.buf;
    this.unit = s.unit;
    this.depth = s.depth;
  }

  /**
   * Awaits `p` and puts this continuation's context back (other code may have run meanwhile).
   * The context is snapshotted when this is called, so an exec that changes the context (output
   * buffer, frame, unit …) and returns a Promise must restore the caller's context before returning.
   */
  async resumeAfter<T>(p: PromiseLike<T>): Promise<T> {
    const s = this.snap();
    const log = this.callLog;
    const idx = this.callIdx;
    try {
      return await p;
    } finally {
      this.restore(s);
      this.callLog = log;
      this.callIdx = idx;
    }
  }

  // ------------------------------------------------------------------ calls from templates into JavaScript

  callEnv(): CallEnvImpl {
    return (this.callEnvObj ??= new CallEnvImpl(this));
  }
}

export class CallEnvImpl {
  constructor(private readonly env: Env) {}
  getVariable(name: string): unknown {
    return toPlain(this.env.lookup(name));
  }
  setVariable(name: string, value: unknown): void {
    this.env.globals.set(name, fromPlain(value));
  }
  get templateName(): string {
    return this.env.unit.name;
  }
  get locale(): string {
    return this.env.locale;
  }
  get timeZone(): string {
    return this.env.timeZone;
  }
}

// ------------------------------------------------------------------ expression sessions

/** Evaluates an expression that may call methods; returns the value or a Pending. */
export function evalSession(env: Env, ev: Ev): unknown {
  const savedLog = env.callLog;
  const savedIdx = env.callIdx;
  const log: unknown[] = [];
  env.callLog = log;
  env.callIdx = 0;
  try {
    return ev(env);
  } catch (e) {
    if (e instanceof AsyncNeeded) return new Pending(resumeSession(env, ev, log, e));
    throw e;
  } finally {
    env.callLog = savedLog;
    env.callIdx = savedIdx;
  }
}

async function resumeSession(env: Env, ev: Ev, log: unknown[], first: AsyncNeeded): Promise<unknown> {
  let pending = first;
  for (;;) {
    log[pending.index] = await env.resumeAfter(pending.promise);
    log.length = pending.index + 1;
    const savedLog = env.callLog;
    const savedIdx = env.callIdx;
    env.callLog = log;
    env.callIdx = 0;
    try {
      return ev(env);
    } catch (e) {
      if (e instanceof AsyncNeeded) {
        pending = e;
        continue;
      }
      throw e;
    } finally {
      env.callLog = savedLog;
      env.callIdx = savedIdx;
    }
  }
}

/** Records a call result in the current session (or returns the replayed one). */
export function replayed(env: Env): { hit: boolean; value: unknown; index: number } {
  const i = env.callIdx++;
  const log = env.callLog;
  if (log !== null && i < log.length) return { hit: true, value: log[i], index: i };
  return { hit: false, value: undefined, index: i };
}

export function recordCall(env: Env, index: number, value: unknown): void {
  const log = env.callLog;
  if (log !== null) log[index] = value;
}

// ------------------------------------------------------------------ errors

export class LimitError extends TemplateError {}

/** The render error for a breach of the evaluation's budget: its message, as a LimitExceeded error. */
export function budgetLimitError(e: BudgetExceededError): LimitError {
  return new LimitError(`Template execution stopped: ${e.message}.`, {
    templateName: '',
    line: 0,
    column: 0,
    kind: 'LimitExceeded',
    cause: e,
  });
}

export function limitError(what: string): LimitError {
  return new LimitError(`Template execution stopped: ${what}.`, {
    templateName: '',
    line: 0,
    column: 0,
    kind: 'LimitExceeded',
  });
}

function loc(at: A.Pos): string {
  return locationText(at.templateName ?? 'template', at.beginLine, at.beginColumn);
}

/** An error blaming an expression: "<lead>:\n==> expr  [in template …]" plus tips. */
export function exprError(
  kind: string,
  lead: string,
  at: A.Expr,
  tips: string[] = [],
  cause?: unknown,
): TemplateError {
  const expr = canonical(at);
  const description = `${lead}\n==> ${expr}  ${loc(at)}`;
  return new TemplateError(withTips(description, tips), {
    templateName: at.templateName ?? 'template',
    line: at.beginLine,
    column: at.beginColumn,
    expression: expr,
    kind,
    cause,
    endLine: at.endLine,
    endColumn: at.endColumn,
  });
}

/** An error of an instruction (no blamed expression): the description only, positioned at `at`. */
export function elError(
  kind: string,
  description: string,
  at: A.Pos,
  tips: string[] = [],
  cause?: unknown,
): TemplateError {
  return new TemplateError(withTips(description, tips), {
    templateName: at.templateName ?? 'template',
    line: at.beginLine,
    column: at.beginColumn,
    kind,
    cause,
  });
}

/** "<description>\nThe blamed expression:\n==> expr  [in template …]" (errors raised inside an operation). */
export function blamedError(
  kind: string,
  description: string,
  at: A.Expr,
  tips: string[] = [],
  cause?: unknown,
): TemplateError {
  return exprError(kind, `${description}\nThe blamed expression:`, at, tips, cause);
}

export function missingError(at: A.Expr): TemplateError {
  const tips: string[] = [];
  if (at.kind === 'dot')
    tips.push("It's the step after the last dot that caused this error, not those before it.");
  else if (at.kind === 'key')
    tips.push("It's the final [] step that caused this error, not those before it.");
  tips.push(TIP_MISSING);
  return exprError('InvalidReferenceException', 'The following has evaluated to null or missing:', at, tips);
}

/**
 * missingError for the target of a call (`f(…)`): when the target is a name close to a registered
 * callable (src/template/suggest.ts), a first tip asks "Did you mean …?".
 */
export function missingCallError(at: A.Expr): TemplateError {
  const name = at.kind === 'id' ? (at as A.Ident).name : undefined;
  const suggestion = name === undefined ? undefined : suggestCallable(name);
  if (suggestion === undefined) return missingError(at);
  const tips = [`There is no function ${name}: did you mean ${suggestion}?`, TIP_MISSING];
  return exprError('InvalidReferenceException', 'The following has evaluated to null or missing:', at, tips);
}

export function typeError(
  at: A.Expr,
  context: string,
  expected: string,
  value: unknown,
  tips: string[] = [],
): TemplateError {
  const lead = `${context ? context + ': ' : ''}Expected ${article(expected)} ${expected}, but this has evaluated to ${article(typeName(value))} ${describeType(value)}:`;
  const kind = /^(a )?boolean$/.test(expected)
    ? 'NonBooleanException'
    : expected === 'number'
      ? 'NonNumericalException'
      : expected === 'string' || expected.startsWith('string or something')
        ? 'NonStringException'
        : expected === 'sequence'
          ? 'NonSequenceException'
          : expected.startsWith('hash') || expected === 'extended hash'
            ? 'NonHashException'
            : expected === 'date'
              ? 'NonDateException'
              : expected.startsWith('method')
                ? 'NonMethodException'
                : 'UnexpectedTypeException';
  return exprError(kind, lead, at, tips);
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** FreeMarker's FTL type name of a value (as in "Expected a number, but … a string"). */
export function typeName(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number' || v instanceof BigDec || v instanceof JDouble) return 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (v instanceof FmDate)
    return v.kind === 'unknown' ? 'date_or_time_or_datetime' : v.kind === 'date' ? 'date' : v.kind;
  if (Array.isArray(v) || v instanceof FmRange) return 'sequence';
  if (v instanceof LazySeq) return 'sequence+collection';
  if (v instanceof MatchResult) return 'sequence+boolean';
  if (v instanceof StringBoolean) return 'string+boolean';
  if (v instanceof EmptyDefault) return 'sequence+extended_hash+string';
  if (v instanceof MatchItem) return 'string';
  if (v instanceof FmCollection) return 'collection';
  if (v instanceof MacroValue) return v.def.isFunction ? 'function' : 'macro';
  if (typeof v === 'function' || v instanceof FmMethod) return 'method';
  if (v instanceof MarkupOutput) return 'markup_output';
  if (v instanceof Transform) return 'transform';
  if (isDirectiveObject(v)) return 'directive';
  if (v instanceof Map || v instanceof Namespace || isPlainObject(v)) return 'extended_hash';
  return 'unknown';
}

/** Type name plus FreeMarker's wrapper hint, e.g. "string (wrapper: f.t.SimpleScalar)". */
export function describeType(v: unknown): string {
  const n = typeName(v);
  if (typeof v === 'string') return `${n} (wrapper: f.t.SimpleScalar)`;
  if (v instanceof EmptyDefault)
    return `${n} (wrapper: f.c.DefaultToExpression$EmptyStringAndSequenceAndHash)`;
  if (n === 'number') return `${n} (wrapper: f.t.SimpleNumber)`;
  if (typeof v === 'boolean') return `${n} (wrapper: f.t.TemplateBooleanModel)`;
  if (v instanceof FmDate) return `${n} (wrapper: f.t.SimpleDate)`;
  if (Array.isArray(v)) return `${n} (wrapper: f.t.DefaultListAdapter)`;
  if (v instanceof FmRange) return `${n} (wrapper: f.c.BoundedRangeModel)`;
  if (v instanceof LazySeq)
    return `${n} (wrapper: f.c.LazilyGeneratedCollectionModel${v.knownSize === null ? 'WithUnknownSize' : 'WithSameSizeSeq'})`;
  if (v instanceof Map) return `${n} (wrapper: f.t.SimpleHash)`;
  if (v instanceof Namespace) return `hash (wrapper: f.c.Environment$Namespace)`;
  if (isPlainObject(v) && !isDirectiveObject(v)) return `${n} (wrapper: f.t.DefaultMapAdapter)`;
  if (v instanceof Transform) return `transform (wrapper: f.t.utility.${v.javaClass})`;
  if (v instanceof MarkupOutput)
    return `markup_output (format=${v.format}, wrapper: f.c.TemplateHTMLOutputModel)`;
  return n;
}

/**
 * A JavaScript method (or directive) threw: the render ends with a TemplateError whose message starts
 * with the thrown message verbatim (contract §1.1), followed by where it was called.
 */
export function methodError(err: unknown, at: A.Pos, expr?: A.Expr): TemplateError {
  if (err instanceof TemplateError) return err;
  if (err instanceof BudgetExceededError) return budgetLimitError(err);
  const msg = errorMessage(err);
  const expression = expr ? canonical(expr) : undefined;
  const where = expression !== undefined ? `\n==> ${expression}  ${loc(at)}` : `\n${loc(at)}`;
  return new TemplateError(msg + where, {
    templateName: at.templateName ?? 'template',
    line: at.beginLine,
    column: at.beginColumn,
    expression,
    kind: 'TemplateModelException',
    description: msg,
    cause: err,
  });
}

// ------------------------------------------------------------------ the JS boundary (contract §1.1)

/**
 * Engine value → plain JS value (numbers as JS numbers, hash literals as plain objects …). A
 * sequence or hash met again (shared structure) is converted once; one inside itself, or nested
 * past 100 levels, converts to undefined.
 */
export function toPlain(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'function':
      return v;
  }
  return plainOf(v, 0, new Map());
}

/** Conversions of the containers met so far; IN_PROGRESS while one is being converted. */
type PlainMemo = Map<object, unknown>;
const IN_PROGRESS = Symbol('in progress');

function plainOf(v: unknown, depth: number, memo: PlainMemo): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'object') return v;
  const known = memo.get(v);
  if (known !== undefined) return known === IN_PROGRESS ? undefined : known;
  memo.set(v, IN_PROGRESS);
  const p = convert(v, depth, memo);
  memo.set(v, p);
  return p;
}

function convert(v: object, depth: number, memo: PlainMemo): unknown {
  const toPlain = (x: unknown, d: number): unknown => plainOf(x, d, memo);
  if (depth > 100) return undefined;
  if (v instanceof StringBoolean) return v.value;
  if (v instanceof EmptyDefault) return '';
  if (v instanceof BigDec) {
    // beyond a double's range (a 99,999-digit number): its text, not Infinity (JSON's null)
    const n = v.toNumber();
    return Number.isFinite(n) ? n : v.toString();
  }
  if (v instanceof JDouble) return v.value;
  if (v instanceof FmDate) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const p = toPlain(v[i], depth + 1);
      if (out === null && p !== v[i]) out = v.slice(0, i);
      if (out !== null) out.push(p);
    }
    return out ?? v;
  }
  if (v instanceof FmRange) return v.unbounded || v.size > 10_000_000 ? undefined : v.toArray(10_000_000);
  if (v instanceof FmCollection) return v.items.map((x) => toPlain(x, depth + 1));
  if (v instanceof Map || v instanceof Namespace) {
    const src = v instanceof Namespace ? v.vars : v;
    const o: Record<string, unknown> = {};
    for (const [k, val] of src) {
      if (val instanceof MacroValue && !val.def.isFunction) continue;
      Object.defineProperty(o, String(k), {
        value: toPlain(val, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    carryMark(v, o);
    return o;
  }
  if (v instanceof MarkupOutput) return v.markup;
  if (isDirectiveObject(v)) return v;
  if (isPlainObject(v)) {
    let out: Record<string, unknown> | null = null;
    for (const k of Object.keys(v)) {
      const p = toPlain(v[k], depth + 1);
      if (out === null && p !== v[k]) {
        out = {};
        for (const k2 of Object.keys(v)) {
          if (k2 === k) break;
          Object.defineProperty(out, k2, {
            value: v[k2],
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      if (out !== null)
        Object.defineProperty(out, k, { value: p, enumerable: true, writable: true, configurable: true });
    }
    if (out === null) return v;
    carryMark(v, out);
    return out;
  }
  return v;
}

/** Plain JS value (method result, scope value) → engine value. */
export function fromPlain(v: unknown): unknown {
  if (v === null) return undefined;
  if (typeof v === 'bigint') return BigInt.asIntN(53, v) === v ? Number(v) : new BigDec(v, 0);
  if (v instanceof Date) return new FmDate(v.getTime(), 'datetime');
  return v;
}
