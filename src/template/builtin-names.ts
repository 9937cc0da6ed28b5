/** The 177 built-in names of FreeMarker 2.3.31 and the groups the parser treats specially. */

export const BUILTIN_NAMES: readonly string[] = (
  'abs absolute_template_name ancestors api boolean byte c cap_first capitalize ceiling children chop_linebreak ' +
  'chunk contains counter date date_if_unknown datetime datetime_if_unknown default double drop_while ends_with ' +
  'ensure_ends_with ensure_starts_with esc eval eval_json exists filter first float floor groups has_api ' +
  'has_content has_next html if_exists index index_of int interpret is_boolean is_collection is_collection_ex ' +
  'is_date is_date_like is_date_only is_datetime is_directive is_enumerable is_even_item is_first is_hash ' +
  'is_hash_ex is_indexable is_infinite is_last is_macro is_markup_output is_method is_nan is_node is_number ' +
  'is_odd_item is_sequence is_string is_time is_transform is_unknown_date_like iso iso_h iso_h_nz iso_local ' +
  'iso_local_h iso_local_h_nz iso_local_m iso_local_m_nz iso_local_ms iso_local_ms_nz iso_local_nz iso_m ' +
  'iso_m_nz iso_ms iso_ms_nz iso_nz iso_utc iso_utc_fz iso_utc_h iso_utc_h_nz iso_utc_m iso_utc_m_nz iso_utc_ms ' +
  'iso_utc_ms_nz iso_utc_nz item_cycle item_parity item_parity_cap j_string join js_string json_string ' +
  'keep_after keep_after_last keep_before keep_before_last keys last last_index_of left_pad length long ' +
  'lower_abc lower_case map markup_string matches max min namespace new next_sibling no_esc node_name ' +
  'node_namespace node_type number number_to_date number_to_datetime number_to_time parent previous_sibling ' +
  'remove_beginning remove_ending replace reverse right_pad root round rtf seq_contains seq_index_of ' +
  'seq_last_index_of sequence short size sort sort_by split starts_with string substring switch take_while then ' +
  'time time_if_unknown trim truncate truncate_c truncate_c_m truncate_m truncate_w truncate_w_m uncap_first ' +
  'upper_abc upper_case url url_path values web_safe with_args with_args_last word_list xhtml xml'
).split(' ');

/** camelCase → legacy name (startsWith → starts_with, isoUtcFZ → iso_utc_fz, isoNZ → iso_nz). */
export const CAMEL_TO_LEGACY = new Map<string, string>();
for (const n of BUILTIN_NAMES) {
  if (n.indexOf('_') < 0) continue;
  const parts = n.split('_');
  const camel =
    parts[0] +
    parts
      .slice(1)
      .map((p) => (p === 'nz' || p === 'fz' ? p.toUpperCase() : p[0].toUpperCase() + p.slice(1)))
      .join('');
  CAMEL_TO_LEGACY.set(camel, n);
}

const NAME_SET = new Set(BUILTIN_NAMES);

/** The legacy name of a built-in written either way, or undefined if there is no such built-in. */
export function builtinName(written: string): string | undefined {
  if (NAME_SET.has(written)) return written;
  return CAMEL_TO_LEGACY.get(written);
}

export const LOOP_VAR_BUILTINS = new Set([
  'index',
  'counter',
  'has_next',
  'is_first',
  'is_last',
  'item_cycle',
  'item_parity',
  'item_parity_cap',
  'is_even_item',
  'is_odd_item',
]);

/** Legacy escaping built-ins, refused at parse time when auto-escaping with a markup format. */
export const BANNED_WHEN_AUTO_ESCAPING = new Set(['html', 'xhtml', 'xml', 'rtf', 'web_safe']);

/** Need a markup output format in effect where they are written. */
export const MARKUP_FORMAT_BOUND = new Set(['esc', 'no_esc']);

/** Parameters parsed specially: lazily evaluated (then, switch) or lambdas allowed (filter, map …). */
export const PARSE_TIME_PARAM_BUILTINS = new Set(['then', 'switch']);
export const LAMBDA_BUILTINS = new Set(['filter', 'map', 'take_while', 'drop_while']);

/** Built-ins that need the JVM or XML DOM nodes; refused with a "not supported" error. */
export const UNSUPPORTED_BUILTINS = new Set([
  'api',
  'has_api',
  'ancestors',
  'children',
  'node_name',
  'next_sibling',
  'node_namespace',
  'node_type',
  'parent',
  'previous_sibling',
  'root',
]);

/** The settings #setting may change (FreeMarker's PropertySetting.SETTING_NAMES). */
export const SETTING_NAMES: readonly string[] = [
  'boolean_format',
  'classic_compatible',
  'date_format',
  'datetime_format',
  'locale',
  'number_format',
  'output_encoding',
  'sql_date_and_time_time_zone',
  'time_format',
  'time_zone',
  'url_escaping_charset',
];

/** The legacy name of a #setting name written either way, or undefined if it is not one. */
export function settingName(n: string): string | undefined {
  const legacy = n.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
  return SETTING_NAMES.includes(legacy) ? legacy : undefined;
}

/** Built-in names as FreeMarker lists them for a naming convention (camelCase: the camel and one-word names). */
function namesFor(naming: 'camel' | 'legacy'): readonly string[] {
  if (naming === 'legacy') return BUILTIN_NAMES;
  return [...BUILTIN_NAMES.filter((n) => !n.includes('_')), ...CAMEL_TO_LEGACY.keys()].sort();
}

export function unknownBuiltinMessage(name: string, naming: 'camel' | 'legacy' = 'legacy'): string {
  const lines: string[] = [];
  let cur = '';
  let letter = '';
  for (const n of namesFor(naming)) {
    if (n[0] !== letter) {
      if (cur) lines.push(cur);
      cur = '';
      letter = n[0];
    }
    cur += n + ', ';
  }
  lines.push(cur.slice(0, -2));
  return (
    `Unknown built-in: ${JSON.stringify(name)}. Help (latest version): https://freemarker.apache.org/docs/ref_builtins.html; you're using FreeMarker 2.3.31.\n` +
    'The alphabetical list of built-ins:\n' +
    lines.join('\n')
  );
}
