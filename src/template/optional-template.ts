/**
 * `.get_optional_template(name[, options])` (FreeMarker's GetOptionalTemplateMethod): loads a
 * template through the render's TemplateLoader like #include does, and returns a hash with
 * `exists`, and when it exists an `include` directive and an `import` method.
 */
import type * as A from './ast.js';
import { TemplateError, jQuote } from './errors.js';
import { loadSource, plainTextUnit, resolveName, runLibrary, runUnitHere } from './loading.js';
import {
  AsyncNeeded,
  type Env,
  LimitError,
  type TemplateUnit,
  describeType,
  elError,
  recordCall,
  replayed,
} from './runtime.js';
import { DIRECTIVE, FmMethod, LookupHash, MatchItem, hashGet, hashKeys, isHash } from './values.js';

/** The `include` of an existing optional template: `<@t.include/>` runs it here, like #include. */
export class OptionalTemplateInclude {
  readonly [DIRECTIVE] = true;
  constructor(readonly unit: TemplateUnit) {}

  call(env: Env, hasParams: boolean, el: A.CallEl): void | Promise<void> {
    if (hasParams) throw elError('TemplateException', 'This directive supports no parameters.', el);
    if (el.loopVars && el.loopVars.length)
      throw elError('TemplateException', 'This directive supports no loop variables.', el);
    if (el.children.length)
      throw elError('TemplateException', 'This directive supports no nested content.', el);
    return runUnitHere(env, this.unit);
  }
}

/** "a number (wrapper: …)", "an extended_hash (…)", "a Null": FreeMarker's _DelayedAOrAn of a type description. */
function aType(v: unknown): string {
  if (v === undefined) return 'a Null';
  const d = describeType(v);
  return `${/^[aeiou]/i.test(d) ? 'an' : 'a'} ${d}`;
}

/** The method value of `.get_optional_template` (`name` as written: `.getOptionalTemplate` too). */
export function getOptionalTemplateMethod(name: string, origin: A.Pos): FmMethod {
  return new FmMethod(
    (args, env: Env, at?: A.Pos) => getOptionalTemplate(env, name, args, at ?? origin),
    name,
  );
}

function getOptionalTemplate(env: Env, m: string, args: unknown[], at: A.Pos): unknown {
  const n = args.length;
  if (n < 1 || n > 2) {
    throw elError(
      '_TemplateModelException',
      `${m}(...) expects 1 or 2 arguments but has received ${n === 0 ? 'none' : n}.`,
      at,
    );
  }
  const a0 = args[0];
  const given = typeof a0 === 'string' ? a0 : a0 instanceof MatchItem ? a0.text : null;
  if (given === null) {
    throw elError(
      '_TemplateModelException',
      `${m}(...) expects a string as argument #1, but received ${aType(a0)}.`,
      at,
    );
  }
  let parse = true;
  if (n > 1) {
    const options = args[1];
    if (!isHash(options) || options instanceof LookupHash) {
      throw elError(
        '_TemplateModelException',
        `${m}(...) expects an extended hash as argument #2, but received ${aType(options)}.`,
        at,
      );
    }
    const invalid = (what: string): TemplateError =>
      elError('_TemplateModelException', `${m}(...) argument #2 had invalid value: ${what}`, at);
    for (const key of hashKeys(options)) {
      const v = hashGet(options, key);
      if (key === 'encoding') {
        // templates arrive as text: the encoding is checked, then has nothing to do
        if (typeof v !== 'string' && !(v instanceof MatchItem))
          throw invalid(`The value of the "encoding" option must be a string, but it was ${aType(v)}.`);
      } else if (key === 'parse') {
        if (typeof v !== 'boolean')
          throw invalid(`The value of the "parse" option must be a boolean, but it was ${aType(v)}.`);
        parse = v;
      } else {
        throw invalid(`Unsupported option ${jQuote(key)}; valid names are: "encoding", "parse".`);
      }
    }
  }
  // loading may be asynchronous: the result goes through the call log like a JavaScript method's
  const rp = replayed(env);
  if (rp.hit) return rp.value;
  const r = resolveName(env, given);
  const src = loadSource(env, r);
  if (src instanceof Promise) {
    throw new AsyncNeeded(
      src.then((s) => result(env, r.full, s, parse, at)),
      rp.index,
    );
  }
  const v = result(env, r.full, src, parse, at);
  recordCall(env, rp.index, v);
  return v;
}

/** The hash FreeMarker returns (a SimpleHash: its keys come out as include, import, exists). */
function result(
  env: Env,
  full: string,
  src: string | undefined,
  parse: boolean,
  at: A.Pos,
): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (src !== undefined) {
    let unit: TemplateUnit;
    try {
      unit = parse ? env.compileTemplate(src, full) : plainTextUnit(full, src);
    } catch (e) {
      throw elError(
        '_TemplateModelException',
        `I/O error when trying to load optional template ${jQuote(full)}; see cause exception`,
        at,
        [],
        e,
      );
    }
    out.set('include', new OptionalTemplateInclude(unit));
    out.set('import', importMethod(unit, at));
  }
  out.set('exists', src !== undefined);
  return out;
}

/** `t.import()`: the template as a library (Environment.importLib, not bound to a name). */
function importMethod(unit: TemplateUnit, origin: A.Pos): FmMethod {
  return new FmMethod((args, env: Env, at?: A.Pos) => {
    const pos = at ?? origin;
    if (args.length) throw elError('TemplateModelException', 'This method supports no parameters.', pos);
    const rp = replayed(env);
    if (rp.hit) return rp.value;
    const failed = (e: unknown): unknown =>
      e instanceof TemplateError && !(e instanceof LimitError)
        ? elError(
            '_TemplateModelException',
            'Failed to import loaded template; see cause exception',
            pos,
            [],
            e,
          )
        : e;
    let run: ReturnType<typeof runLibrary>;
    try {
      run = runLibrary(env, unit);
    } catch (e) {
      throw failed(e);
    }
    const { lib, done } = run;
    if (done === undefined) {
      recordCall(env, rp.index, lib);
      return lib;
    }
    throw new AsyncNeeded(
      done.then(
        () => lib,
        (e) => {
          throw failed(e);
        },
      ),
      rp.index,
    );
  }, 'import');
}
