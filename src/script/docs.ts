/**
 * The RMP* reference of docs/script.md, generated from the same description the sandbox uses
 * (`npx tsx src/script/write-docs.ts` rewrites the part between the markers).
 */
import type { FunctionRegistry } from '../functions/registry.js';
import {
  describeScriptApi,
  jsMethodName,
  objectsOfGroups,
  platformNames,
  scriptApi,
  SCRIPT_OBJECTS,
} from './api.js';
import { DOCUMENTED_METHODS, documentedStatus } from './platform-reference.js';

export const BEGIN_MARKER = '<!-- BEGIN GENERATED: RMP objects (npx tsx src/script/write-docs.ts) -->';
export const END_MARKER = '<!-- END GENERATED: RMP objects -->';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The generated part: how groups map to objects, the renames, then every method of every object. */
export function scriptApiMarkdown(registry: FunctionRegistry): string {
  const methods = describeScriptApi(registry);
  const out: string[] = [BEGIN_MARKER, ''];
  out.push('### Where each group goes', '', '| registry group | object |', '|---|---|');
  for (const [group, object] of objectsOfGroups()) out.push(`| ${group} | ${object} |`);
  out.push('', '### Documented names (docs.runmyprocess.com) against flowmark', '');
  out.push(
    'Every name the platform’s JavaScript ES6 API reference documents, as far as its text could be read ' +
      '(source `page`: the method’s own section; `index`: only the RunMyScript index title, the JS name read from it).',
    '',
  );
  out.push('| documented name | documented as | source | flowmark |', '|---|---|---|---|');
  const api = scriptApi(registry);
  for (const entry of DOCUMENTED_METHODS) {
    const status = documentedStatus(api, entry, jsMethodName);
    const here =
      status.kind === 'present'
        ? 'present'
        : status.kind === 'alias'
          ? `alias of \`${status.of}\`${status.method.args ? ` (${variantText(status.method.args)})` : ''}${status.method.result === 'string-ids' ? ' (lane ids as strings)' : ''}`
          : `not offered: ${status.reason}`;
    out.push(
      `| \`${entry.object}.${entry.name}\` | ${cell(entry.documented)} | ${entry.source} | ${here}${status.kind === 'present' && status.method.result === 'string-ids' ? ' (lane ids as strings)' : ''} |`,
    );
  }
  out.push('', '### The explicit table (platform names, moves, results)', '');
  out.push('| function | object | extra JS names | camelCase name | result |', '|---|---|---|---|---|');
  const resultText = (r: string | undefined) =>
    r === 'lock-obtained'
      ? 'true when obtained, false on `Timeout exception`'
      : r === 'done'
        ? 'true'
        : r === 'string-ids'
          ? 'lane ids as strings'
          : 'the function’s';
  for (const [fn, rule] of platformNames()) {
    out.push(
      `| \`${fn}\` | ${rule.object ?? '(its group’s)'} | ${[
        ...(rule.names ?? []).map((n) => `\`${n}\``),
        ...(rule.variants ?? []).map((v) => `\`${v.name}\` (${variantText(v.args)})`),
      ].join(', ')} | ` + `${rule.replaceCamelCase ? 'not offered' : 'kept'} | ${resultText(rule.result)} |`,
    );
  }
  for (const object of SCRIPT_OBJECTS) {
    const own = methods.filter((m) => m.object === object);
    // One row per function: its names (camelCase, aliases, platform names) together.
    const rows = new Map<string, typeof own>();
    for (const m of own) {
      const key = m.function ?? `:${m.name}`;
      rows.set(key, [...(rows.get(key) ?? []), m]);
    }
    out.push('', `### ${object}`, '', `${own.length} methods.`, '');
    out.push('| method | calls | returns | what it does |', '|---|---|---|---|');
    for (const group of rows.values()) {
      const m = group[0]!;
      const pure = m.function ? registry.get(m.function)?.flags?.pure : undefined;
      const where =
        pure === true ? ' (in the worker)' : pure === 'clock' ? ' (in the worker on the system clock)' : '';
      const calls = m.function ? `\`${m.function}\`${where}` : '(RMPData itself)';
      const signatures = group.flatMap((g) => g.signatures.map((s) => `\`${s.slice(object.length + 1)}\``));
      out.push(
        `| ${signatures.join('<br>')}${m.deprecated ? ' (deprecated)' : ''} | ${calls} | ${cell(m.returns)} | ${cell(m.doc)} |`,
      );
    }
  }
  out.push('', END_MARKER);
  return out.join('\n');
}

function variantText(a: NonNullable<ReturnType<typeof scriptApi>['methods'][number]['args']>): string {
  return a.kind === 'fixed'
    ? `argument ${a.index + 1} fixed to ${JSON.stringify(a.value)}`
    : `option ${a.key} set to ${a.value}`;
}

/** The document with its generated part replaced (the markers must be there). */
export function withGeneratedApi(document: string, registry: FunctionRegistry): string {
  const begin = document.indexOf(BEGIN_MARKER);
  const end = document.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error('docs/script.md: the generated-part markers are missing');
  return document.slice(0, begin) + scriptApiMarkdown(registry) + document.slice(end + END_MARKER.length);
}
