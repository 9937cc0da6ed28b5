import type { ExecutionContext } from './context.js';
import type { CallEnv } from './template-types.js';

/**
 * Declared parameter types. Arguments reach `impl` coerced to them:
 * - string: strings; numbers and booleans as their text; hashes/sequences as compact JSON text
 * - integer: integral numbers or integer text ("12")
 * - number: numbers or numeric text ("1.5", "-2e3")
 * - boolean: true/false or the text "true"/"false" (any case)
 * - object: a hash, or JSON text of an object
 * - array: a sequence, or JSON text of an array
 * - any: the value as the template gave it
 * A list of types is a union: a value already of one of them is kept as it is, otherwise the
 * first type it coerces to wins.
 */
export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'any';

export const PARAM_TYPES: readonly ParamType[] = [
  'string',
  'integer',
  'number',
  'boolean',
  'object',
  'array',
  'any',
];

export interface ParamSpec {
  name: string;
  type: ParamType | ParamType[];
  /** May be omitted (only after the required ones). */
  optional?: boolean;
  /** Filled in when an optional argument is omitted (or passed as null/undefined). */
  default?: unknown;
  /**
   * Last parameter only: takes every remaining argument (at least one unless optional); they reach
   * impl flattened (args[i], args[i+1] …).
   */
  variadic?: boolean;
  doc?: string;
}

/** The value a declared type coerces to. */
export type ValueOf<T extends ParamType> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'object'
        ? Record<string, unknown>
        : T extends 'array'
          ? unknown[]
          : unknown;

/** The value a parameter reaches impl as: its type's (a union's: any of them), or undefined when it may be omitted without a default. */
export type ArgOf<P extends ParamSpec> = (
  P['type'] extends readonly (infer U extends ParamType)[]
    ? ValueOf<U>
    : P['type'] extends ParamType
      ? ValueOf<P['type']>
      : unknown
) extends infer V
  ? P extends { optional: true }
    ? P extends { default: NonNullable<unknown> }
      ? V
      : V | undefined
    : V
  : never;

/** The arguments impl receives for declared parameters: a tuple, the variadic one flattened at its end. */
export type ArgsOf<Ps extends readonly ParamSpec[]> = Ps extends readonly [
  infer H extends ParamSpec,
  ...infer R extends readonly ParamSpec[],
]
  ? H extends { variadic: true }
    ? ArgOf<H>[]
    : [ArgOf<H>, ...ArgsOf<R>]
  : Ps extends readonly []
    ? []
    : unknown[];

/**
 * One form. `impl` receives its arguments coerced to the declared types (typed by ArgsOf when the
 * declaration is written in place), the call's environment, and the function's name for its errors.
 */
export interface FunctionForm<Ps extends readonly ParamSpec[] = readonly ParamSpec[]> {
  params: Ps;
  /** This form (overload) is deprecated (spec part 9), e.g. import_objects with a separator. */
  deprecated?: boolean;
  /** Optional note shown in the docs for this form. */
  doc?: string;
  impl(ctx: ExecutionContext, args: ArgsOf<Ps>, call: CallEnv, fn: string): unknown;
}

export type FunctionGroup =
  'Application' | 'Collections' | 'Composite API' | 'File' | 'Request' | 'User' | 'Utilities';

export const FUNCTION_GROUPS: readonly FunctionGroup[] = [
  'Application',
  'Collections',
  'Composite API',
  'File',
  'Request',
  'User',
  'Utilities',
];

export interface FunctionFlags {
  /** Usable in a web interface (spec 2.1, plus P_quoted and i18n). */
  webInterface?: boolean;
  /** The whole function is deprecated (spec part 9). */
  deprecated?: boolean;
  /** Works only while computing the input variables of a manual task. */
  manualTaskInputOnly?: boolean;
  /**
   * Needs no I/O, no platform state and nothing of its context but the locale, the time zone and
   * the budget: a script's call runs inside the script worker (src/script/in-worker-functions.ts) instead
   * of crossing to the main thread. `'clock'`: it also reads the context's clock, so it runs there
   * only when that clock is the system clock (a context that freezes time keeps it on the bridge).
   * Only for `rights: 'none'` functions of the groups the worker loads (WORKER_GROUPS).
   */
  pure?: true | 'clock';
}

/**
 * Who may call a function (docs/platform.md, "Rights"); the registry enforces the rule before the
 * function runs, except `argument` and `service`, whose check needs the arguments:
 * - none: anyone, anonymous callers included (computation, the evaluation's own state, configuration)
 * - user: a connected user of the account
 * - self-or-admin: a connected user; another user's data needs the administrator right (impl checks)
 * - design: the administrator right, or the design right on the project the script runs in
 * - admin: the administrator right
 * - argument: depends on what the arguments name; the impl asks src/platform/rights.ts
 * - service: the platform service checks the context's user, as for the REST routes (files, collections)
 */
export type FunctionRights = 'none' | 'user' | 'self-or-admin' | 'design' | 'admin' | 'argument' | 'service';

export const FUNCTION_RIGHTS: readonly FunctionRights[] = [
  'none',
  'user',
  'self-or-admin',
  'design',
  'admin',
  'argument',
  'service',
];

export interface FunctionSpec {
  name: string;
  aliases?: string[];
  group: FunctionGroup;
  doc: string;
  returns: string;
  /** One form, or the overloads, tried in order: the first whose arity fits and whose arguments coerce. */
  forms: readonly FunctionForm[];
  flags?: FunctionFlags;
  /** Who may call it (see FunctionRights). */
  rights: FunctionRights;
  /**
   * What follows `name: ` when a connected user without the right calls an `admin` function
   * (default `only an administrator of the account may call this function`).
   */
  adminOnlyMessage?: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A declaration as written: each form's impl typed by its own parameters. */
export type FunctionDeclaration<Fs extends readonly (readonly ParamSpec[])[]> = Omit<
  FunctionSpec,
  'forms'
> & {
  forms: { [K in keyof Fs]: FunctionForm<Fs[K]> };
};

/**
 * Declares one function of the library; checks the declaration's shape and returns it unchanged.
 * Each form's `impl` gets its arguments typed by the form's `params` (ArgsOf) and the function's
 * name (`fn`) for the errors it raises.
 */
export function defineFunction<const Fs extends readonly (readonly ParamSpec[])[]>(
  declaration: FunctionDeclaration<Fs>,
): FunctionSpec {
  const spec: FunctionSpec = declaration;
  const where = `defineFunction(${spec.name})`;
  if (!NAME.test(spec.name)) throw new Error(`${where}: invalid function name`);
  for (const alias of spec.aliases ?? [])
    if (!NAME.test(alias)) throw new Error(`${where}: invalid alias ${alias}`);
  if (!FUNCTION_GROUPS.includes(spec.group)) throw new Error(`${where}: unknown group ${spec.group}`);
  if (spec.forms.length === 0) throw new Error(`${where}: no form`);
  if (!FUNCTION_RIGHTS.includes(spec.rights)) throw new Error(`${where}: unknown rights ${spec.rights}`);
  if (spec.flags?.pure && spec.rights !== 'none')
    throw new Error(`${where}: a pure function checks no rights (rights 'none')`);
  for (const form of spec.forms) checkParams(where, form.params);
  return spec;
}

function checkParams(where: string, params: readonly ParamSpec[]): void {
  let optionalSeen = false;
  const names = new Set<string>();
  params.forEach((p, i) => {
    if (names.has(p.name)) throw new Error(`${where}: parameter ${p.name} declared twice`);
    names.add(p.name);
    const types = Array.isArray(p.type) ? p.type : [p.type];
    if (types.length === 0 || types.some((t) => !PARAM_TYPES.includes(t)))
      throw new Error(`${where}: parameter ${p.name} has an unknown type`);
    if (p.variadic && i !== params.length - 1)
      throw new Error(`${where}: only the last parameter may be variadic`);
    if (p.default !== undefined && !p.optional)
      throw new Error(`${where}: parameter ${p.name} has a default but is required`);
    if (p.optional) optionalSeen = true;
    else if (optionalSeen) throw new Error(`${where}: required parameter ${p.name} follows an optional one`);
  });
}

/** Number of arguments a form accepts. */
export function arityOf(form: FunctionForm): { min: number; max: number } {
  let min = 0;
  for (const p of form.params) if (!p.optional) min++;
  const last = form.params[form.params.length - 1];
  return { min, max: last?.variadic ? Infinity : form.params.length };
}

/** `name(a: string, b?: integer = 0, …rest: object)` */
export function formSignature(name: string, form: FunctionForm): string {
  const params = form.params.map((p) => {
    const type = Array.isArray(p.type) ? p.type.join(' | ') : p.type;
    const def = p.default !== undefined ? ` = ${JSON.stringify(p.default)}` : '';
    return `${p.variadic ? '…' : ''}${p.name}${p.optional ? '?' : ''}: ${type}${def}`;
  });
  return `${name}(${params.join(', ')})`;
}
