/**
 * The library's declarations without their implementations (src/functions/declarations.ts,
 * generated from the group modules by `npm run docs:functions`): the registry checks a call's
 * arguments, rights and surface from the declaration, and imports the module that implements the
 * function on its first call (docs/architecture.md, "The CLI loads on demand"). A first call
 * returns a Promise (the template engine and the script bridge await it); once the module is in,
 * every function it declares is called directly.
 */
import type { FunctionForm, FunctionSpec } from './spec.js';

/** A function's declaration as generated: everything but the forms' impl, and its module. */
export type DeclaredFunction = Omit<FunctionSpec, 'forms'> & {
  /** The module that declares and implements it, relative to src/functions, without extension. */
  module: string;
  forms: ReadonlyArray<Omit<FunctionForm, 'impl'>>;
};

/** Importers of the implementing modules, by DeclaredFunction.module. */
export type ModuleImporters = Readonly<Record<string, () => Promise<unknown>>>;

/** The specs lazySpecs made from the generated declarations (the library's own functions). */
const generated = new WeakSet<FunctionSpec>();

/** Whether `spec` is the library's own declaration (made by lazySpecs), not a copy or another spec of that name. */
export function isLibraryDeclaration(spec: FunctionSpec): boolean {
  return generated.has(spec);
}

/** The declaration of a spec as the generated table holds it (JSON-safe: no impl, no module). */
export function declarationOf(spec: FunctionSpec): Omit<DeclaredFunction, 'module'> {
  return { ...spec, forms: spec.forms.map(({ impl: _impl, ...form }) => form) };
}

/** Every FunctionSpec a module exports, as a value or in an exported array, by name. */
export function exportedSpecs(exports: unknown): Map<string, FunctionSpec> {
  const found = new Map<string, FunctionSpec>();
  const add = (v: unknown) => {
    const s = v as Partial<FunctionSpec> | null;
    if (typeof s === 'object' && s !== null && typeof s.name === 'string' && Array.isArray(s.forms))
      found.set(s.name, s as FunctionSpec);
  };
  for (const value of Object.values(exports as Record<string, unknown>)) {
    if (Array.isArray(value)) value.forEach(add);
    else add(value);
  }
  return found;
}

/**
 * Specs whose forms' impl import the implementing module on first use, then call the declared
 * impl; `loaded` hears of each module's real specs once they are in (the registry recompiles
 * their callables without this indirection).
 */
export function lazySpecs(
  declared: readonly DeclaredFunction[],
  importers: ModuleImporters,
  loaded: (specs: readonly FunctionSpec[]) => void,
): { specs: FunctionSpec[]; loadAll(): Promise<void> } {
  const real = new Map<string, FunctionSpec>();
  const loads = new Map<string, Promise<void>>();
  const byModule = new Map<string, DeclaredFunction[]>();
  for (const d of declared) {
    const list = byModule.get(d.module);
    if (list) list.push(d);
    else byModule.set(d.module, [d]);
  }

  const load = (module: string): Promise<void> => {
    let p = loads.get(module);
    if (!p) {
      const importer = importers[module];
      if (!importer) throw new Error(`function registry: no importer for the module functions/${module}`);
      p = importer().then((exports) => {
        const specs = implementationsOf(module, byModule.get(module)!, exportedSpecs(exports));
        for (const s of specs) real.set(s.name, s);
        loaded(specs);
      });
      loads.set(module, p);
    }
    return p;
  };

  const specs = declared.map(({ module, ...d }): FunctionSpec => {
    const name = d.name;
    const spec: FunctionSpec = {
      ...d,
      forms: d.forms.map((form, i) => ({
        ...form,
        impl(ctx, args, call, fn) {
          const spec = real.get(name);
          if (spec) return spec.forms[i]!.impl(ctx, args, call, fn);
          return load(module).then(() => real.get(name)!.forms[i]!.impl(ctx, args, call, fn));
        },
      })),
    };
    generated.add(spec);
    return spec;
  });
  return {
    specs,
    loadAll: async () => {
      await Promise.all([...byModule.keys()].map(load));
    },
  };
}

/**
 * The module's specs for its declarations, each checked against the generated declaration (a
 * changed declaration without `npm run docs:functions` fails loudly instead of checking arguments
 * one way and implementing another).
 */
function implementationsOf(
  module: string,
  declared: readonly DeclaredFunction[],
  exported: Map<string, FunctionSpec>,
): FunctionSpec[] {
  return declared.map(({ module: _module, ...d }) => {
    const spec = exported.get(d.name);
    if (!spec || JSON.stringify(declarationOf(spec)) !== JSON.stringify(d))
      throw new Error(
        `function registry: functions/${module} does not declare ${d.name} as src/functions/declarations.ts says; run npm run docs:functions`,
      );
    return spec;
  });
}
