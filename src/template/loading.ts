/**
 * Loading other templates, shared by #include, #import and `.get_optional_template`: names resolved
 * against the current template, FreeMarker's TemplateCache lookup (localized names, `*` acquisition)
 * on the render's TemplateLoader, and running a loaded template here or as a library.
 */
import type * as A from './ast.js';
import { RootLeavingName, resolveTemplateName } from './names.js';
import { Buf, type Env, LimitError, MacroValue, type TemplateUnit, elError } from './runtime.js';
import { Namespace } from './values.js';

/** A name given to #include/#import/.get_optional_template, resolved against the current template. */
export interface ResolvedName {
  /** The full name (for a name above the root: the root-based name FreeMarker reports). */
  full: string;
  /** Why no template can have this name (FreeMarker's "Reason given"), or null. */
  reason: string | null;
}

export function resolveName(env: Env, given: string, baseName = env.unit.name): ResolvedName {
  try {
    return { full: resolveTemplateName(baseName, given), reason: null };
  } catch (e) {
    if (e instanceof RootLeavingName) return { full: e.rootBased, reason: e.message };
    throw e;
  }
}

/** "Template not found for name …", with FreeMarker's reason line when there is one. */
export function notFoundText(r: ResolvedName): string {
  return `Template not found for name ${JSON.stringify(r.full)}.${r.reason !== null ? `\nReason given: ${r.reason}` : ''}`;
}

/**
 * Template lookup as FreeMarker's TemplateCache does it: localized names first (foo_en_US.ftl,
 * foo_en.ftl, foo.ftl), and a "*" step searched in the directory and its ancestors.
 */
function candidateNames(env: Env, name: string): string[] {
  const out: string[] = [];
  const dot = name.lastIndexOf('.');
  const slash = name.lastIndexOf('/');
  const base = dot > slash ? name.slice(0, dot) : name;
  const ext = dot > slash ? name.slice(dot) : '';
  const parts = env.locale.split('_').filter(Boolean);
  const localized: string[] = [];
  for (let i = parts.length; i > 0; i--) localized.push(`${base}_${parts.slice(0, i).join('_')}${ext}`);
  localized.push(name);
  for (const n of localized) {
    const segs = n.split('/');
    const star = segs.indexOf('*');
    if (star < 0) {
      out.push(n);
      continue;
    }
    const rest = segs.slice(star + 1).filter((x) => x !== '*');
    for (let d = star; d >= 0; d--) out.push([...segs.slice(0, d), ...rest].join('/'));
  }
  return out;
}

/** The source of the template `r` names, or undefined when there is none. */
export function loadSource(env: Env, r: ResolvedName): string | undefined | Promise<string | undefined> {
  const loader = env.loader;
  if (!loader || r.reason !== null) return undefined;
  const names = candidateNames(env, r.full);
  const tryFrom = (i: number): string | undefined | Promise<string | undefined> => {
    for (; i < names.length; i++) {
      const v = loader(names[i]);
      if (v instanceof Promise) {
        const k = i;
        return v.then((s) => (s !== undefined && s !== null ? s : tryFrom(k + 1)));
      }
      if (v !== undefined && v !== null) return v;
    }
    return undefined;
  };
  return tryFrom(0);
}

/** A template loaded with `parse: false`: its text, output as it is. */
export function plainTextUnit(name: string, text: string): TemplateUnit {
  const root: A.TextEl = {
    kind: 'text',
    text,
    unparsed: true,
    beginLine: 0,
    beginColumn: 0,
    endLine: 0,
    endColumn: 0,
    templateName: name,
    children: [],
    parent: null,
    index: 0,
  };
  return {
    name,
    run: (env) => env.write(text),
    macros: [],
    outputFormat: 'undefined',
    autoEscape: false,
    source: text,
    attributes: {},
    root,
  };
}

/** Runs a template in the current namespace (#include, ?interpret): its macros are defined there first. */
export function runUnitHere(env: Env, unit: TemplateUnit): void | Promise<void> {
  if (++env.depth > env.maxDepth) {
    env.depth--;
    throw new LimitError(`Template execution stopped: includes nested deeper than ${env.maxDepth} levels.`, {
      templateName: unit.name,
      line: 0,
      column: 0,
      kind: 'LimitExceeded',
    });
  }
  const saved = env.unit;
  env.unit = unit;
  env.roots.set(unit.name, unit.root);
  for (const m of unit.macros) env.ns.vars.set(m.name, new MacroValue(m, env.ns));
  let r: void | Promise<void>;
  try {
    r = unit.run(env);
  } catch (e) {
    env.unit = saved;
    env.depth--;
    throw e;
  }
  env.unit = saved;
  const depth = --env.depth;
  if (r === undefined) return;
  return r.then(
    () => {
      env.unit = saved;
      env.depth = depth;
    },
    (e) => {
      env.unit = saved;
      env.depth = depth;
      throw e;
    },
  );
}

/**
 * Environment.importLib: runs `unit` as a library in a namespace of its own (its output discarded),
 * once per template name and render; `bind` is called with the namespace before the library runs.
 * Returns the namespace and, when the library runs on asynchronously, the Promise of its end.
 */
export function runLibrary(
  env: Env,
  unit: TemplateUnit,
  bind: (lib: Namespace) => void = () => undefined,
): { lib: Namespace; done: void | Promise<void> } {
  const existing = env.libs.get(unit.name);
  if (existing) {
    bind(existing);
    return { lib: existing, done: undefined };
  }
  const lib = new Namespace(unit.name);
  bind(lib);
  env.libs.set(unit.name, lib);
  const snap = env.snap();
  env.ns = lib;
  env.buf = new Buf();
  env.frame = null;
  env.loops = [];
  let r: void | Promise<void>;
  try {
    r = runUnitHere(env, unit);
  } catch (e) {
    env.restore(snap);
    throw e;
  }
  env.restore(snap);
  if (r === undefined) return { lib, done: undefined };
  return {
    lib,
    done: r.then(
      () => env.restore(snap),
      (e) => {
        env.restore(snap);
        throw e;
      },
    ),
  };
}

/** #import (and auto_import): the library `r` names, bound to `nsName` in the current namespace. */
export function importLibrary(
  env: Env,
  r: ResolvedName,
  given: string,
  nsName: string | null,
  at: A.Pos,
): void | Promise<void> {
  const bind = (lib: Namespace): void => {
    if (nsName === null) return;
    env.ns.vars.set(nsName, lib);
    if (env.ns === env.mainNs) env.globals.set(nsName, lib);
  };
  const existing = env.libs.get(r.full);
  if (existing) {
    bind(existing);
    return;
  }
  const onSource = (src: string | undefined): void | Promise<void> => {
    if (src === undefined) {
      throw elError(
        '_MiscTemplateException',
        `Template importing failed (for parameter value ${JSON.stringify(given)}):\n${notFoundText(r)}`,
        at,
      );
    }
    return runLibrary(env, env.compileTemplate(src, r.full), bind).done;
  };
  const src = loadSource(env, r);
  if (src instanceof Promise) return env.resumeAfter(src).then(onSource);
  return onSource(src);
}
