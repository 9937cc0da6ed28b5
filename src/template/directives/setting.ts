/** #setting (FreeMarker's PropertySetting): changes a setting of the running template. */
import type * as A from '../ast.js';
import { settingName, SETTING_NAMES } from '../builtin-names.js';
import { canonical } from '../canonical.js';
import { jQuote } from '../errors.js';
import { evaluator, thenDo } from '../exec.js';
import { type Env, type Exec, elError, missingError } from '../runtime.js';
import { MatchItem } from '../values.js';
import { javaTimeZone } from '../../jdk/index.js';
import { type Directive, type DirectiveParser, type ElementCompiler, elementBase } from './types.js';

/** Both spellings of legacy names: `data_model` and `dataModel`. */
export function withCamelCase(names: readonly string[]): Set<string> {
  const out = new Set(names);
  for (const n of names) {
    if (n.includes('_')) out.add(n.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase()));
  }
  return out;
}

/** Settings #setting may change (PropertySetting.SETTING_NAMES), both spellings. */
const TEMPLATE_SETTINGS = withCamelCase(SETTING_NAMES);

/** Every other Configuration setting name of FreeMarker 2.3.31: recognized, but not settable from a template. */
const CONFIGURATION_SETTINGS = withCamelCase(
  (
    'api_builtin_enabled arithmetic_engine attempt_exception_reporter auto_escaping_policy auto_flush ' +
    'auto_import auto_include cache_storage custom_date_formats custom_number_formats default_encoding ' +
    'fallback_on_null_loop_variable incompatible_improvements interpolation_syntax lazy_auto_imports ' +
    'lazy_imports localized_lookup log_template_exceptions naming_convention new_builtin_class_resolver ' +
    'object_wrapper output_format recognize_standard_file_extensions registered_custom_output_formats ' +
    'show_error_tips strict_bean_models strict_syntax tab_size tag_syntax template_configurations ' +
    'template_exception_handler template_loader template_lookup_strategy template_name_format ' +
    'template_update_delay truncate_builtin_algorithm whitespace_stripping wrap_unchecked_exceptions'
  ).split(' '),
);

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const key = p.expect('ID');
  p.expect('EQUALS');
  const value = p.expression();
  // PropertySetting's checks, made when the directive is parsed
  p.checkNaming(key);
  if (settingName(key.image) === undefined) {
    throw p.err(
      CONFIGURATION_SETTINGS.has(key.image)
        ? "The setting name is recognized, but changing this setting from inside a template isn't supported."
        : `Unknown setting name: ${jQuote(key.image)}. The allowed setting names are: ${p.namesInShownConvention(TEMPLATE_SETTINGS).join(', ')}`,
      key,
    );
  }
  const end = p.looseDirectiveEnd();
  return p.el<A.SettingEl>(
    {
      kind: 'setting',
      name: key.image,
      value,
      ...elementBase(p),
    },
    p.span(p.tokPos(start), p.tokPos(end)),
  );
}

function compile(el: A.SettingEl, c: ElementCompiler): Exec {
  // the parser accepts only names settingName knows
  const name = settingName(el.name)!;
  const value = evaluator(el.value, c.cx);
  const vn = el.value;
  return (env) =>
    thenDo(env, value(env), (v) => {
      if (v === undefined) throw missingError(vn);
      applySetting(env, name, v, el);
    });
}

export function applySetting(env: Env, name: string, v: unknown, at: A.Pos): void {
  const str =
    typeof v === 'string' ? v : typeof v === 'boolean' ? String(v) : v instanceof MatchItem ? v.text : null;
  if (str === null)
    throw elError('_MiscTemplateException', `The value of the "${name}" setting must be a string.`, at);
  switch (name) {
    case 'locale':
      env.locale = str.replace('-', '_');
      break;
    case 'time_zone':
      env.timeZone = str === 'default' || str === 'JVM default' ? 'UTC' : javaTimeZone(str);
      break;
    case 'sql_date_and_time_time_zone':
      break;
    case 'number_format':
      env.settings = { ...env.settings, numberFormat: str };
      break;
    case 'boolean_format': {
      if (str !== 'c' && str.indexOf(',') < 0) {
        throw elError(
          '_MiscTemplateException',
          `Failed to set FreeMarker configuration setting "boolean_format" to value ${JSON.stringify(str)}; see cause exception.\nThe value must be "c", or contain a comma (like "yes,no").`,
          at,
        );
      }
      env.settings = { ...env.settings, booleanFormat: str };
      break;
    }
    case 'date_format':
      env.settings = { ...env.settings, dateFormat: str };
      break;
    case 'time_format':
      env.settings = { ...env.settings, timeFormat: str };
      break;
    case 'datetime_format':
      env.settings = { ...env.settings, datetimeFormat: str };
      break;
    case 'url_escaping_charset':
      env.settings = { ...env.settings, urlEscapingCharset: str };
      break;
    case 'output_encoding':
      env.settings = { ...env.settings, outputEncoding: str };
      break;
    case 'classic_compatible':
      env.settings = { ...env.settings, classicCompatible: /^(true|yes|y|t|1|2)$/i.test(str) };
      break;
  }
  env.cache = {};
}

export const setting: Directive<'setting'> = {
  startTags: { setting: 'blank' },
  kinds: ['setting'],
  nonOutputting: ['setting'],
  parse,
  compile,
  stackLabel: (el) => `#setting ${el.name}=${canonical(el.value)}`,
};
