/** Special variables: `.now`, `.vars`, `.locale`, `.error` … */
import type * as A from './ast.js';
import type { ExprContext } from './compile-expr.js';
import { type Env, type Ev, type MacroDef, MacroValue, elError } from './runtime.js';
import { getOptionalTemplateMethod } from './optional-template.js';
import { EngineDate, LookupHash, Namespace } from './values.js';
import { sharedVariable } from './transforms.js';

const FM_VERSION = '2.3.31';

/** `.pass`: a macro that does nothing. */
const PASS_DEF: MacroDef = {
  name: 'pass',
  isFunction: false,
  params: [],
  catchAll: null,
  body: () => undefined,
  el: undefined as unknown as A.MacroEl,
  unit: undefined as unknown as MacroDef['unit'],
};

function camelToSnake(n: string): string {
  return n.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

export function specialVariable(e: A.SpecialVar, _cx: ExprContext): Ev {
  const name = camelToSnake(e.name);
  switch (name) {
    case 'now':
      return (env) => new EngineDate(env.now(), 'datetime');
    case 'vars':
      return (env) => new LookupHash((k) => env.lookup(k));
    case 'globals':
      return (env) => new LookupHash((k) => env.globalLookup(k));
    case 'data_model':
      return (env) => new LookupHash((k) => env.data.get(k) ?? sharedVariable(k));
    case 'locals':
      return (env) => {
        const frame = env.frame;
        return frame ? new LookupHash((k) => frame.locals.get(k)) : undefined;
      };
    case 'main':
      return (env) => env.mainNs;
    case 'namespace':
      return (env) => env.ns;
    case 'lang':
      return (env) => env.locale.split(/[_-]/)[0];
    case 'locale':
    case 'locale_object':
      return (env) => env.locale;
    case 'time_zone':
      return (env) => env.timeZone;
    case 'template_name':
    case 'main_template_name':
      return (env) => env.mainUnit.name;
    case 'current_template_name':
      return (env) => env.unit.name;
    case 'caller_template_name':
      return (env) => {
        if (!env.frame) {
          throw elError(
            '_MiscTemplateException',
            "Can't get the .caller_template_name, because there's no macro or function (that's implemented in the template) call in context.",
            e,
          );
        }
        return env.frame.callerUnit.name;
      };
    case 'version':
    case 'incompatible_improvements':
      return () => FM_VERSION;
    case 'error':
      return (env) => {
        const err = env.recovered[env.recovered.length - 1];
        if (!err)
          throw elError('_MiscTemplateException', '.error is not available outside of a #recover block', e);
        return err.message;
      };
    case 'output_encoding':
      return (env) => env.settings.outputEncoding ?? undefined;
    case 'url_escaping_charset':
      return (env) => env.settings.urlEscapingCharset ?? undefined;
    case 'output_format':
    case 'auto_esc': {
      const v = e.parseTime;
      return () => v;
    }
    case 'pass':
      return (env) => new MacroValue(PASS_DEF, env.ns);
    case 'node':
    case 'current_node':
      return () => undefined;
    case 'args':
      return (env) => {
        if (!env.frame) return undefined;
        const m = new Map<string, unknown>();
        for (const [k, v] of env.frame.locals) m.set(k, v);
        return env.frame.macro.def.isFunction ? Array.from(m.values()) : m;
      };
    case 'get_optional_template': {
      const method = getOptionalTemplateMethod('.' + e.name, e);
      return () => method;
    }
    default:
      return () => {
        throw elError('_MiscTemplateException', `Unknown special variable: .${e.name}`, e);
      };
  }
}

export { Namespace, type Env };
