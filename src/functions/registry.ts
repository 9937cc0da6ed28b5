/**
 * The function registry: every function of the library declared once (spec.ts), bound to an
 * execution context as the callables a template sees.
 *
 *   import { defineFunction } from '../spec.js';
 *   export const myGroup = [defineFunction({ name: 'f', group: 'Utilities', doc, returns, forms: [...] })];
 *   // then one line in src/functions/library.ts
 *
 * Group modules import spec.ts and errors.ts, never this module: the registry alone imports the
 * groups (through library.ts), so src/functions has no import cycle (test/functions/import-cycles.test.ts).
 *
 * A bound callable is called as `fn.call(env, ...args)` (src/template/calls.ts); it checks the
 * arity, coerces the arguments to the declared types, fills defaults, resolves overloads, enforces
 * the availability flags of the context's surface, and calls `impl(ctx, args, env, fn)`.
 */
export { arityOf, defineFunction, formSignature, FUNCTION_GROUPS, FUNCTION_RIGHTS } from './spec.js';
export type {
  ArgsOf,
  FunctionFlags,
  FunctionForm,
  FunctionGroup,
  FunctionRights,
  FunctionSpec,
  ParamSpec,
  ParamType,
} from './spec.js';
export { argumentError, FunctionError } from './errors.js';
export type { ExecutionContext, Mode, Surface } from './context.js';
export type { CallEnv, Scope } from './template-types.js';

import type { ExecutionContext } from './context.js';
import { FunctionError } from './errors.js';
import { MESSAGES } from '../platform/errors.js';
import { RIGHTS_MESSAGES } from '../platform/rights.js';
import { platformOf } from './request/calls.js';
import { requireUser } from './rights.js';
import { compileFunction, type BoundFunction, type CompiledFunction } from './invoke.js';
import type { FunctionSpec } from './spec.js';
import type { CallEnv, Scope } from './template-types.js';
import { DECLARED, MODULES } from './declarations.js';
import { lazySpecs, type DeclaredFunction, type ModuleImporters } from './lazy.js';
import { registerCallableNames } from '../template/suggest.js';

export type { BoundFunction } from './invoke.js';

/** Raised when a function exists but may not run in this context (web interface, manual task …). */
export class FunctionUnavailableError extends Error {
  override name = 'FunctionUnavailableError';
  constructor(
    readonly functionName: string,
    message: string,
  ) {
    super(message);
  }
}

interface Entry {
  spec: FunctionSpec;
  /** Compiled on the first bind. */
  compiled: CompiledFunction | undefined;
}

export class FunctionRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly specs: FunctionSpec[] = [];
  private loadAllModules: () => Promise<void> = () => Promise.resolve();

  constructor(specs: Iterable<FunctionSpec>) {
    for (const spec of specs) {
      this.specs.push(spec);
      for (const name of [spec.name, ...(spec.aliases ?? [])]) {
        if (this.entries.has(name)) throw new Error(`function registry: ${name} is declared twice`);
        this.entries.set(name, { spec, compiled: undefined });
      }
    }
  }

  /**
   * A registry of declarations (src/functions/lazy.ts) whose implementing modules are imported
   * on the first call of one of their functions; arguments, rights and surface are checked from
   * the declaration before. The first call of a function of a module not yet loaded returns a
   * Promise.
   */
  static lazy(declared: readonly DeclaredFunction[], importers: ModuleImporters): FunctionRegistry {
    let registry: FunctionRegistry | undefined = undefined;
    const lazy = lazySpecs(declared, importers, (specs) => {
      // later bindings call the implementation directly
      for (const spec of specs)
        for (const name of [spec.name, ...(spec.aliases ?? [])])
          registry!.entries.get(name)!.compiled = compileFunction(spec, name);
    });
    registry = new FunctionRegistry(lazy.specs);
    registry.loadAllModules = lazy.loadAll;
    return registry;
  }

  /** Imports every implementation now (then no first call returns a Promise for loading). */
  loadAll(): Promise<void> {
    return this.loadAllModules();
  }

  /** The declaration of a function, by name or alias. */
  get(name: string): FunctionSpec | undefined {
    return this.entries.get(name)?.spec;
  }

  /** Every declaration, in library order. */
  list(): readonly FunctionSpec[] {
    return this.specs;
  }

  /** Every callable name (names and aliases), sorted. */
  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** The callables of the library for one evaluation. Cheap: callables are made on first use. */
  bind(ctx: ExecutionContext): Scope {
    const cache = new Map<string, BoundFunction>();
    return {
      get: (name: string) => {
        let fn = cache.get(name);
        if (fn === undefined) {
          const made = this.callable(ctx, name);
          if (made === undefined) return undefined;
          cache.set(name, (fn = made));
        }
        return fn;
      },
    };
  }

  /** One bound callable, or undefined for a name the library does not have. */
  callable(ctx: ExecutionContext, name: string): BoundFunction | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    const spec = entry.spec;
    const refusal = surfaceRefusal(spec, name, ctx);
    if (refusal) {
      return () => {
        throw new FunctionUnavailableError(name, refusal);
      };
    }
    const fn = (entry.compiled ??= compileFunction(spec, name)).bindTo(ctx);
    return guarded(spec, name, ctx, fn);
  }

  /** Calls a function by name with already-converted arguments (the JS backend's entry point). */
  invoke(ctx: ExecutionContext, name: string, args: readonly unknown[], env?: CallEnv): unknown {
    const fn = this.callable(ctx, name);
    if (!fn) throw new Error(`unknown function ${name}`);
    return Reflect.apply(fn, env, args);
  }
}

/**
 * The callable with its declared rights enforced before it runs (FunctionRights): the connected
 * user for `user`, `self-or-admin`, `admin`, `design`; the administrator right for `admin`; the
 * design right on the context's project for `design` (held by a script stored in that project,
 * ExecutionContext.designedIn, whoever runs it). `argument` and `service` check in the impl.
 */
function guarded(spec: FunctionSpec, name: string, ctx: ExecutionContext, fn: BoundFunction): BoundFunction {
  const rule = spec.rights;
  if (rule === 'none' || rule === 'argument' || rule === 'service') return fn;
  if (rule === 'design') {
    return async function (this: CallEnv | undefined, ...args: unknown[]) {
      // a script stored in the project acts with its design authority, whoever runs it
      if (ctx.designedIn !== undefined && ctx.designedIn === ctx.projectId) return fn.apply(this, args);
      const user = requireUser(name, ctx);
      if (ctx.projectId === undefined) throw new FunctionError(name, MESSAGES.projectNotFound);
      if (!(await platformOf(name, ctx).rights.canDesign(ctx.accountId, user, ctx.projectId)))
        throw new FunctionError(name, RIGHTS_MESSAGES.design(ctx.projectId));
      return fn.apply(this, args);
    };
  }
  const denied = spec.adminOnlyMessage ?? RIGHTS_MESSAGES.admin;
  return function (this: CallEnv | undefined, ...args: unknown[]) {
    const user = requireUser(name, ctx);
    if (rule === 'admin' && !user.isAdmin) throw new FunctionError(name, denied);
    return fn.apply(this, args);
  };
}

/** Why a function may not run on the context's surface, or undefined when it may. */
export function surfaceRefusal(spec: FunctionSpec, name: string, ctx: ExecutionContext): string | undefined {
  if (ctx.surface === 'web-interface' && !spec.flags?.webInterface)
    return `function ${name} is not available in a web interface`;
  if (spec.flags?.manualTaskInputOnly && ctx.surface !== 'manual-task-input')
    return `function ${name} is only available in the input variables of a manual task`;
  return undefined;
}

let library: FunctionRegistry | undefined;

/**
 * The registry of the whole library, built on first use from its generated declarations
 * (src/functions/declarations.ts, from the groups of src/functions/library.ts): a function's
 * module is imported on its first call (FunctionRegistry.lazy).
 */
export function defaultRegistry(): FunctionRegistry {
  if (!library) {
    const made = (library = FunctionRegistry.lazy(DECLARED, MODULES));
    // a call of a misspelled library function gets "did you mean …?" (src/template/suggest.ts)
    registerCallableNames(() => made.names());
  }
  return library;
}

/** The callables of the library for one evaluation (a Scope for the template engine). */
export function bind(ctx: ExecutionContext, registry: FunctionRegistry = defaultRegistry()): Scope {
  return registry.bind(ctx);
}
