/**
 * The template language (contract §1): FreeMarker 2.3.31 compiled to JavaScript closures.
 *
 *   const t = compile('Hello ${name}!');
 *   await t.render({ name: 'Ann' });   // "Hello Ann!"
 *
 * Values crossing the boundary are plain JS values (see docs/template.md); a method may return a
 * Promise; `${hash}` prints compact JSON unless `strict` is set.
 */
import { compileUnit, type UnitOptions } from './compile.js';
import { applySetting } from './directives/setting.js';
import { importLibrary, resolveName } from './loading.js';
import { TemplateError, errorMessage } from './errors.js';
import { ensureStack } from './ftl-stack.js';
import {
  DEFAULT_LIMITS,
  Env,
  type DataModel,
  type EnvSettings,
  type Limits,
  LimitError,
  MacroValue,
  budgetLimitError,
  type TemplateUnit,
  fromPlain,
  toPlain,
} from './runtime.js';
import { DIRECTIVE, RangeTooLargeError } from './values.js';
import { javaTimeZone } from '../jdk/index.js';
import { type Budget, BudgetExceededError } from '../limits/budget.js';

export { TemplateError, ParseError } from './errors.js';
export { compileCacheSize, setCompileCacheLimits } from './compile.js';
export { FmDate, DIRECTIVE, StringBoolean } from './values.js';
export { isRequestInput, markAsRequestInput, markRequestInput, requestStrings } from './provenance.js';

export interface CompileOptions {
  /** Template name used in errors (default "template"). */
  name?: string;
  /** true: ${hash}/${seq} is FreeMarker's error instead of compact JSON. */
  strict?: boolean;
  /** Parser settings (FreeMarker's Configuration); defaults are FreeMarker's. */
  tagSyntax?: 'angle_bracket' | 'square_bracket' | 'auto_detect';
  interpolationSyntax?: 'legacy' | 'dollar' | 'square_bracket';
  strictSyntax?: boolean;
  whitespaceStripping?: boolean;
  /** "undefined" (default), "HTML", "XML", "XHTML", "RTF", "plainText", "JavaScript", "JSON", "CSS". */
  outputFormat?: string;
  autoEscaping?: boolean;
  /** FreeMarker's incompatible_improvements ("2.3.31" by default; older values restore legacy quirks). */
  incompatibleImprovements?: string;
}

export interface Scope {
  get(name: string): unknown;
}

export interface RenderOptions {
  locale?: string;
  timeZone?: string;
  loader?: TemplateLoader;
  limits?: { maxSteps?: number; maxDepth?: number; maxOutputChars?: number };
  /**
   * The evaluation's budget (wall time, bytes allocated, and the step and output limits unless
   * `limits` sets them): the host's, shared with the functions the template calls; a fresh one
   * from `limits` when absent.
   */
  budget?: Budget;
  /** number_format, date_format, time_format, datetime_format, boolean_format, url_escaping_charset, output_encoding, auto_import … */
  settings?: Record<string, string>;
  /** Clock for .now (epoch ms); Date.now by default. */
  now?: () => number;
}

export interface TemplateLoader {
  load(name: string): string | undefined | Promise<string | undefined>;
}

export interface DirectiveBody {
  source: string;
  render(): Promise<string>;
}

export interface CallEnv {
  getVariable(name: string): unknown;
  setVariable?(name: string, value: unknown): void;
  readonly templateName: string;
  readonly locale: string;
  readonly timeZone: string;
}

export interface TemplateDirective {
  [DIRECTIVE]: true;
  invoke(
    params: Record<string, unknown>,
    body: DirectiveBody | null,
    env: CallEnv,
  ): Promise<string | void> | string | void;
}

export interface Template {
  readonly name: string;
  render(data: Scope | Record<string, unknown>, options?: RenderOptions): Promise<string>;
  renderDetailed(
    data: Scope | Record<string, unknown>,
    options?: RenderOptions,
  ): Promise<{ output: string; globals: Record<string, unknown> }>;
  /**
   * `render` with options resolved ahead (prepareRender) and the evaluation's own budget: what a
   * host serving many calls alike pays per call is the render's Env only. The output comes at
   * once (a string) when nothing in the template waits, else as a promise.
   */
  renderPrepared(data: Scope, prepared: PreparedRender, budget: Budget): string | Promise<string>;
}

/**
 * Render options (locale, time zone, settings, clock) resolved once for many renders: made by
 * prepareRender, given to Template.renderPrepared. Holds nothing of any one render.
 */
export interface PreparedRender {
  readonly locale: string;
  readonly timeZone: string;
}

interface Prepared extends PreparedRender {
  /** Frozen: a setting changed by a render (<#setting>) replaces its Env's settings, never this. */
  readonly settings: Readonly<EnvSettings>;
  readonly now: (() => number) | undefined;
  /** The Env limits of the last budget limits seen (a host's budgets share one limits object). */
  limitsOf: { budgetLimits: object; limits: Limits } | undefined;
}

/**
 * Resolves `locale`, `timeZone`, `settings` (but auto_import and auto_include) and `now` of
 * RenderOptions once; a bad setting throws here as render would. `limits`, `budget` and `loader`
 * are per render (renderPrepared takes the budget; a prepared render loads no templates).
 */
export function prepareRender(
  options: Pick<RenderOptions, 'locale' | 'timeZone' | 'settings' | 'now'>,
): PreparedRender {
  const scratch = new Env(compileUnit('', unitOptions({ name: 'settings' })), dataModel(null), {
    locale: (options.locale ?? 'en_US').replace('-', '_'),
    timeZone: javaTimeZone(options.timeZone ?? 'UTC'),
    limits: DEFAULT_LIMITS,
    budget: null,
    settings: { ...DEFAULT_SETTINGS },
    strict: false,
    compile: () => {
      throw new Error('prepareRender compiles nothing');
    },
  });
  if (options.settings !== undefined) applySettings(scratch, options.settings, 'settings');
  const prepared: Prepared = {
    locale: scratch.locale,
    timeZone: scratch.timeZone,
    settings: Object.freeze({ ...scratch.settings }),
    now: options.now,
    limitsOf: undefined,
  };
  return prepared;
}

/**
 * FreeMarker Configuration settings by name (snake_case or camelCase, as FreeMarker accepts them)
 * split into what compile takes (the parser-level ones) and what render takes. Used by the CLI
 * and by tools that speak the oracle's settings maps.
 */
export function optionsFromSettings(settings: Record<string, string>): {
  compile: CompileOptions;
  render: RenderOptions;
} {
  const c: CompileOptions = {};
  const r: RenderOptions = {};
  const rest: Record<string, string> = {};
  for (const [key, v] of Object.entries(settings)) {
    const k = key.replace(/[A-Z]/g, (m) => '_' + m.toLowerCase());
    switch (k) {
      case 'output_format':
        c.outputFormat = v;
        break;
      case 'tag_syntax':
        c.tagSyntax = v as CompileOptions['tagSyntax'];
        break;
      case 'interpolation_syntax':
        c.interpolationSyntax = v as CompileOptions['interpolationSyntax'];
        break;
      case 'strict_syntax':
        c.strictSyntax = v === 'true' || v === 'y' || v === 'yes';
        break;
      case 'whitespace_stripping':
        c.whitespaceStripping = v === 'true' || v === 'y' || v === 'yes';
        break;
      case 'auto_escaping_policy':
        c.autoEscaping = !/^disable$/i.test(v);
        break;
      case 'incompatible_improvements':
        c.incompatibleImprovements = v;
        break;
      case 'locale':
        r.locale = v;
        break;
      case 'time_zone':
        r.timeZone = v;
        break;
      default:
        rest[key] = v;
    }
  }
  if (Object.keys(rest).length) r.settings = rest;
  return { compile: c, render: r };
}

/** Compiles a template (cached by source and options); parse errors throw TemplateError here. */
export function compile(source: string, options: CompileOptions = {}): Template {
  const uo = unitOptions(options);
  const unit = compileUnit(source, uo);
  return new CompiledTemplate(unit, uo);
}

function unitOptions(o: CompileOptions): UnitOptions {
  return {
    name: o.name ?? 'template',
    strict: o.strict ?? false,
    tagSyntax: o.tagSyntax,
    interpolationSyntax: o.interpolationSyntax,
    strictSyntax: o.strictSyntax,
    stripWhitespace: o.whitespaceStripping,
    outputFormat: o.outputFormat,
    autoEscaping: o.autoEscaping,
    incompatibleImprovements: o.incompatibleImprovements,
  };
}

const DEFAULT_SETTINGS: EnvSettings = {
  numberFormat: 'number',
  booleanFormat: 'true,false',
  dateFormat: '',
  timeFormat: '',
  datetimeFormat: '',
  urlEscapingCharset: null,
  outputEncoding: null,
  classicCompatible: false,
};

function isScope(data: Scope | Record<string, unknown>): data is Scope {
  return typeof data.get === 'function';
}

function dataModel(data: Scope | Record<string, unknown> | null | undefined): DataModel {
  if (data === null || data === undefined) return { get: () => undefined };
  if (isScope(data)) {
    const s = data;
    return { get: (n) => fromPlain(s.get(n)) };
  }
  const o = data;
  return {
    get: (n) => (Object.prototype.hasOwnProperty.call(o, n) ? fromPlain(o[n]) : undefined),
  };
}

class CompiledTemplate implements Template {
  constructor(
    private readonly unit: TemplateUnit,
    private readonly uo: UnitOptions,
  ) {}

  get name(): string {
    return this.unit.name;
  }

  render(data: Scope | Record<string, unknown>, options: RenderOptions = {}): Promise<string> {
    // a template that calls no async method renders synchronously: one promise, no await
    try {
      const r = this.run(data, options);
      return r instanceof Promise ? r.then((env) => env.buf.s) : Promise.resolve(r.buf.s);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  renderPrepared(data: Scope, prepared: PreparedRender, budget: Budget): string | Promise<string> {
    const p = prepared as Prepared;
    let limits = p.limitsOf?.budgetLimits === budget.limits ? p.limitsOf.limits : undefined;
    if (limits === undefined) {
      limits = envLimits(budget, undefined);
      p.limitsOf = { budgetLimits: budget.limits, limits };
    }
    const env = new Env(this.unit, dataModel(data), {
      locale: p.locale,
      timeZone: p.timeZone,
      limits,
      budget,
      settings: p.settings,
      strict: this.uo.strict,
      compile: this.compileIncluded,
      now: p.now,
    });
    const r = this.start(env, undefined);
    return r instanceof Promise ? r.then((done) => done.buf.s) : r.buf.s;
  }

  /** What an #include or #import of this template compiles with (its options, the included name). */
  private readonly compileIncluded = (source: string, name: string): TemplateUnit =>
    compileUnit(source, { ...this.uo, name });

  async renderDetailed(
    data: Scope | Record<string, unknown>,
    options: RenderOptions = {},
  ): Promise<{ output: string; globals: Record<string, unknown> }> {
    const env = await this.run(data, options);
    return { output: env.buf.s, globals: globalsOf(env) };
  }

  private run(data: Scope | Record<string, unknown>, options: RenderOptions): Env | Promise<Env> {
    let env: Env;
    try {
      env = this.newEnv(data, options);
    } catch (e) {
      throw finalError(e, this.unit.name);
    }
    return this.start(env, options);
  }

  /** Runs the main template in `env`: the Env when it finished at once, else when it will. */
  private start(env: Env, options: RenderOptions | undefined): Env | Promise<Env> {
    const fail = (e: unknown): never => {
      const err = finalError(e, this.unit.name);
      if (err instanceof TemplateError) ensureStack(err, env.roots);
      throw err;
    };
    try {
      const r = runMain(env, options);
      if (r !== undefined) return r.then(() => env, fail);
    } catch (e) {
      fail(e);
    }
    return env;
  }

  private newEnv(data: Scope | Record<string, unknown>, options: RenderOptions): Env {
    const budget = options.budget ?? null;
    const limits = envLimits(budget, options.limits);
    const loader = options.loader;
    const env = new Env(this.unit, dataModel(data), {
      locale: (options.locale ?? 'en_US').replace('-', '_'),
      timeZone: javaTimeZone(options.timeZone ?? 'UTC'),
      limits,
      budget,
      settings: { ...DEFAULT_SETTINGS },
      strict: this.uo.strict,
      loader: loader ? (name) => loader.load(name) : undefined,
      compile: this.compileIncluded,
      now: options.now,
    });
    if (options.settings !== undefined) applySettings(env, options.settings, this.unit.name);
    return env;
  }
}

/** The engine's limits of a render: the budget's step and output limits (if any) under `limits`. */
function envLimits(budget: Budget | null, limits: RenderOptions['limits']): Limits {
  if (budget)
    return {
      ...DEFAULT_LIMITS,
      maxSteps: budget.limits.maxSteps,
      maxOutputChars: budget.limits.maxOutputChars,
      ...stripUndefined(limits ?? {}),
    };
  return limits === undefined ? DEFAULT_LIMITS : { ...DEFAULT_LIMITS, ...stripUndefined(limits) };
}

/** Applies RenderOptions.settings to a new Env (but auto_import and auto_include, which runMain reads). */
function applySettings(env: Env, settings: Record<string, string>, templateName: string): void {
  const at = { beginLine: 0, beginColumn: 0, endLine: 0, endColumn: 0, templateName };
  for (const [k, v] of Object.entries(settings)) {
    const name = k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
    if (name === 'auto_import' || name === 'auto_include') continue;
    applySetting(env, name, v, at);
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Defines the main template's macros, runs auto-imports, then the template. */
function runMain(env: Env, options: RenderOptions | undefined): void | Promise<void> {
  const unit = env.mainUnit;
  for (const m of unit.macros) env.mainNs.vars.set(m.name, new MacroValue(m, env.mainNs));
  const settings = options?.settings;
  if (settings?.auto_import === undefined && settings?.autoImport === undefined) {
    return unit.run(env);
  }
  const imports = (settings.auto_import ?? settings.autoImport ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const steps: (() => void | Promise<void>)[] = imports.map((spec) => () => {
    const m = /^(\S+)\s+as\s+(\S+)$/.exec(spec);
    if (!m)
      throw new TemplateError(`Malformed auto_import setting: ${spec}`, {
        templateName: unit.name,
        line: 0,
        column: 0,
      });
    const lib = m[1].replace(/^["']|["']$/g, '');
    return importLibrary(env, resolveName(env, lib, ''), lib, m[2].replace(/^["']|["']$/g, ''), {
      beginLine: 0,
      beginColumn: 0,
      endLine: 0,
      endColumn: 0,
      templateName: unit.name,
    });
  });
  steps.push(() => unit.run(env));
  const next = (i: number): void | Promise<void> => {
    for (; i < steps.length; i++) {
      const r = steps[i]();
      if (r !== undefined) {
        const k = i;
        return r.then(() => next(k + 1));
      }
    }
  };
  return next(0);
}

function finalError(e: unknown, templateName: string): unknown {
  if (e instanceof BudgetExceededError) e = budgetLimitError(e);
  if (e instanceof TemplateError) {
    if (!e.templateName) e.templateName = templateName;
    return e;
  }
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new LimitError(
      'Template execution stopped: the template recursed too deeply (JavaScript stack exhausted).',
      {
        templateName,
        line: 0,
        column: 0,
        kind: 'LimitExceeded',
        cause: e,
      },
    );
  }
  if (e instanceof RangeTooLargeError) {
    return new LimitError(
      `Template execution stopped: a range of ${e.size} items is too large to turn into a sequence (the step budget would not allow iterating it).`,
      { templateName, line: 0, column: 0, kind: 'LimitExceeded', cause: e },
    );
  }
  if (e instanceof RangeError && /string length/i.test(e.message)) {
    return new LimitError('Template execution stopped: a string grew beyond what JavaScript can hold.', {
      templateName,
      line: 0,
      column: 0,
      kind: 'LimitExceeded',
      cause: e,
    });
  }
  const msg = errorMessage(e);
  return new TemplateError(`Internal error while rendering: ${msg}`, {
    templateName,
    line: 0,
    column: 0,
    cause: e,
    kind: 'InternalError',
  });
}

function globalsOf(env: Env): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown): void => {
    if (v instanceof MacroValue && !v.def.isFunction) return;
    Object.defineProperty(out, k, {
      value: toPlain(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  };
  for (const [k, v] of env.mainNs.vars) put(k, v);
  for (const [k, v] of env.globals) put(k, v);
  return out;
}

/** Converts data in the oracle's JSON convention ({"$date"|"$time"|"$datetime": ISO}, null = missing) to scope values. */
export { fromJsonData } from './data.js';
