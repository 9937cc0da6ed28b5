/**
 * The reference of the function library, generated from the registry: docs/functions.md
 * (`npm run docs:functions`), `flowmark functions` (text and --json).
 */
import { FUNCTION_GROUPS, formSignature, type FunctionRegistry, type FunctionSpec } from './registry.js';
import type { SourceIndex } from './source-index.js';

/** How many test files the reference lists per function (the rest are counted). */
const LISTED_TESTS = 3;

export interface FunctionDescription {
  name: string;
  aliases: string[];
  group: string;
  /** Who may call it (FunctionRights; docs/platform.md, "Rights"). */
  rights: string;
  doc: string;
  returns: string;
  flags: string[];
  forms: Array<{
    signature: string;
    deprecated: boolean;
    params: Array<{
      name: string;
      type: string;
      optional: boolean;
      default?: unknown;
      variadic: boolean;
      doc?: string;
    }>;
  }>;
}

/** Flags as words: web-interface, deprecated, manual-task-input-only, admin-only. */
export function flagWords(spec: FunctionSpec): string[] {
  const f = spec.flags ?? {};
  return [
    f.webInterface ? 'web-interface' : '',
    f.deprecated ? 'deprecated' : '',
    f.manualTaskInputOnly ? 'manual-task-input-only' : '',
    spec.rights === 'admin' ? 'admin-only' : '',
  ].filter(Boolean);
}

export function describeFunction(spec: FunctionSpec): FunctionDescription {
  return {
    name: spec.name,
    aliases: spec.aliases ?? [],
    group: spec.group,
    rights: spec.rights,
    doc: spec.doc,
    returns: spec.returns,
    flags: flagWords(spec),
    forms: spec.forms.map((form) => ({
      signature: formSignature(spec.name, form),
      deprecated: form.deprecated ?? false,
      params: form.params.map((p) => ({
        name: p.name,
        type: Array.isArray(p.type) ? p.type.join(' | ') : p.type,
        optional: p.optional ?? false,
        ...(p.default !== undefined ? { default: p.default } : {}),
        variadic: p.variadic ?? false,
        ...(p.doc ? { doc: p.doc } : {}),
      })),
    })),
  };
}

/** Every function, grouped in spec order, sorted by name within a group. */
export function describeLibrary(registry: FunctionRegistry): FunctionDescription[] {
  return [...registry.list()]
    .sort(
      (a, b) =>
        FUNCTION_GROUPS.indexOf(a.group) - FUNCTION_GROUPS.indexOf(b.group) || compareNames(a.name, b.name),
    )
    .map(describeFunction);
}

function compareNames(a: string, b: string): number {
  const ka = a.toLowerCase();
  const kb = b.toLowerCase();
  return ka < kb ? -1 : ka > kb ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

const anchor = (name: string) => name.toLowerCase();
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const INTRO = `# Function reference

Generated from the function registry (\`src/functions/\`) by \`npm run docs:functions\`; do not edit
by hand. \`npx flowmark functions\` prints the same list (\`--json\` for tools).

## Calling conventions

- Arguments are positional; \`name?\` marks an optional one, \`= value\` its default.
- Arguments are converted to the declared type the way scripts pass them:
  - **object** / **array**: a hash or sequence, or JSON text of one
    (\`<#assign q>{"a": "\${x?json_string}"}</#assign>\${list_objects(q, "c")}\`); a \`__proto__\` key is refused;
  - **boolean**: \`true\`/\`false\` or the text \`"true"\`/\`"false"\` (any case);
  - **integer**: an integral number or integer text (\`"12"\`); **number**: a number or numeric text;
  - **string**: text; numbers and booleans as their text, hashes and sequences as compact JSON.
- Errors name the function and the argument: \`get_time: argument 1 (date) Unparseable date: "x"\`,
  \`list_objects: argument 2 (name) is missing: expected a string\`, \`list_objects: operator $where is
  not allowed\`. One exception: an error the spec words (its part 7: \`Cannot count objects with an
  empty condition.\`, \`Project not found.\`, \`Timeout exception\`, \`Unable to retrieve user.\` …) reads
  exactly that wording, as on the platform, wherever a script or its caller sees the message:
  \`\${.error}\` in \`#recover\` (its first line), a composite API's or web interface's 500 body, a failed
  request's P_message, the eval API's error. The function is named by where the error happened:
  the error report under the message (\`==> count_objects({}, "orders")  [in template …]\`, \`Failed
  at: …\`) and the account's log line (\`…, line 2, column 3: count_objects: Cannot count objects
  with an empty condition.\`). \`throw\`'s message is the script's own. The JavaScript and Python
  backends keep \`RMPCollection.countObjects: …\` (the method before every message).
- A function of several forms (overloads) takes the first form whose arity fits and whose
  arguments convert.
- Flags: **web-interface** — usable in a web interface: the functions the platform lists for them, plus
  P_quoted and i18n, which are beyond that list and flagged because the platform's web-interface
  code uses both (docs/hosts.md, Web interfaces); every other function exists there but fails with
  \`function X is not available in a web interface\`; **manual-task-input-only** — only
  while computing the input variables of a manual task; **admin-only** — only for an administrator
  of the account; **deprecated** — kept for old scripts.
- Rights (docs/platform.md, "Rights"): a script runs as the user its host says (task user,
  connected user, or nobody for an anonymous composite API call) and each function checks that
  user as the matching REST route does. Functions without a **Rights** line may be called by
  anyone, anonymous callers included; **user** — a connected user; **self-or-admin** — a
  connected user, another user's data only for an administrator; **design** — an administrator,
  or a designer of the project the script runs in; **admin** — an administrator; **argument** —
  depends on what the arguments name (the function's text says how); **service** — the file or
  collection service checks the user, as for the REST routes. A function that needs a user fails
  with \`X: this function needs a connected user; the script runs anonymously\` when nobody is.
`;

const FORMATS = `## Data formats

### ESKV (\`load(text, "ESKV")\`)
Escaped key/value text, one \`key=value\` per line (LF, CRLF or CR). The key ends at the first
unescaped \`=\`; blanks around keys and values are trimmed; empty lines and lines starting with
\`#\` are skipped; a backslash escapes \`\\n\` \`\\r\` \`\\t\` \`\\\\\` \`\\=\` \`\\#\` and \`\\uXXXX\`; a key
seen several times collects its values in an array, in order. \`__proto__\`, \`constructor\` and
\`prototype\` are refused as keys.

\`\`\`
# order
id=42
note=a\\=b\\nsecond line
tag=red
tag=blue
\`\`\`
gives \`{"id":"42","note":"a=b\\nsecond line","tag":["red","blue"]}\`.

### EDI (\`load(text, "EDI")\`)
UN/EDIFACT. A UNA service string advice sets the separators (default \`:+.? '\`); the release
character escapes the next one; line breaks after a segment terminator are ignored. The result is
\`{"separators": {component, element, decimal, release, repetition, segment}, "segments": [{"tag",
"elements"}]}\` where each data element is the list of its components:
\`UNH+1+ORDERS:D:96A:UN'\` gives \`{"tag":"UNH","elements":[["1"],["ORDERS","D","96A","UN"]]}\`.

### XML (\`load(text, "XML")\`, \`to_xml\`)
Attributes are \`@name\` fields, the text of an element that also has attributes or children is
\`#text\`, repeated elements are arrays, values stay text. A DTD (\`<!DOCTYPE\`, \`<!ENTITY\`) is
refused, so no entity is expanded and no external resource is ever read.

### CSV (\`csv_to_json\`, \`json_to_csv\`, \`load(text, "CSV_HEAD" | "CSV_NOHEAD")\`)
Line ends CRLF, LF or CR on input (blank lines skipped), CRLF after every row on output. A value
holding the separator, the quoting character or a line break is quoted, the quoting character
doubled inside. parse_numbers reads Java doubles, parse_longs Java longs (kept exact in the JSON
text of csv_to_json), parse_booleans Java's Boolean.parseBoolean; empty entries keep the \`empty\`
value.
`;

/** `Source: [path](../path) · Tests: [a](../a), … (+N more)` for a function, relative to docs/. */
function sourceLine(name: string, sources: SourceIndex): string {
  const { declaration, tests } = sources(name);
  const link = (path: string) => `[${path}](../${path})`;
  const parts = [declaration ? `Declared and implemented in ${link(declaration)}.` : ''];
  if (tests.length) {
    const more = tests.length > LISTED_TESTS ? ` (+${tests.length - LISTED_TESTS} more)` : '';
    parts.push(`Tests: ${tests.slice(0, LISTED_TESTS).map(link).join(', ')}${more}.`);
  } else parts.push('Tests: none name it.');
  return parts.filter(Boolean).join(' ');
}

/**
 * docs/functions.md. With `sources` (docs generation, in a checkout), each function also links
 * the module that declares and implements it and the tests that call it.
 */
export function functionsMarkdown(registry: FunctionRegistry, sources?: SourceIndex): string {
  const all = describeLibrary(registry);
  const out: string[] = [INTRO];
  out.push('## Contents\n');
  for (const group of FUNCTION_GROUPS) {
    const inGroup = all.filter((f) => f.group === group);
    if (!inGroup.length) continue;
    out.push(
      `- **${group}** (${inGroup.length}): ${inGroup.map((f) => `[${f.name}](#${anchor(f.name)})`).join(', ')}`,
    );
  }
  out.push('');
  for (const group of FUNCTION_GROUPS) {
    const inGroup = all.filter((f) => f.group === group);
    if (!inGroup.length) continue;
    out.push(`## ${group}\n`);
    for (const f of inGroup) {
      out.push(`### ${f.name}\n`);
      for (const form of f.forms)
        out.push(`    ${form.signature} → ${f.returns}${form.deprecated ? '   (deprecated form)' : ''}`);
      out.push('');
      const notes = [
        f.aliases.length ? `Also callable as ${f.aliases.map((a) => `\`${a}\``).join(', ')}.` : '',
        f.flags.length ? `Flags: ${f.flags.join(', ')}.` : '',
        f.rights !== 'none' ? `Rights: ${f.rights}.` : '',
      ].filter(Boolean);
      if (notes.length) out.push(notes.join(' ') + '\n');
      out.push(`${f.doc}\n`);
      if (sources) out.push(`${sourceLine(f.name, sources)}\n`);
      const documented = f.forms.flatMap((form) => form.params).filter((p) => p.doc);
      if (documented.length) {
        out.push('| parameter | meaning |\n|---|---|');
        const seen = new Set<string>();
        for (const p of documented) {
          if (seen.has(p.name)) continue;
          seen.add(p.name);
          out.push(`| ${p.name} | ${cell(p.doc!)} |`);
        }
        out.push('');
      }
    }
  }
  out.push(FORMATS);
  return out.join('\n');
}

/** One line per form: name, group, signature, flags — what `flowmark functions` prints. */
export function functionsText(descriptions: FunctionDescription[]): string {
  const rows = descriptions.flatMap((f) =>
    f.forms.map((form, i) => [
      i === 0 ? f.name : '',
      i === 0 ? f.group : '',
      `${form.signature} → ${f.returns}`,
      [
        ...(i === 0 ? f.flags : []),
        ...(form.deprecated ? ['deprecated form'] : []),
        ...(i === 0 && f.aliases.length ? [`alias ${f.aliases.join(', ')}`] : []),
      ].join(', '),
    ]),
  );
  const header = ['name', 'group', 'signature', 'flags'];
  const widths = [0, 1].map((c) => Math.max(header[c].length, ...rows.map((r) => r[c].length)));
  const line = (r: string[], flags: string) =>
    `${r[0].padEnd(widths[0])}  ${r[1].padEnd(widths[1])}  ${r[2]}${flags}`;
  return (
    [line(header, '  (flags)'), ...rows.map((r) => line(r, r[3] ? `  [${r[3]}]` : ''))].join('\n') + '\n'
  );
}
