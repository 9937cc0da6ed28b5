/**
 * The layer picture of docs/architecture.md as data: each top-level folder of src/, what it is,
 * and the folders it may import. test/architecture/layers.test.ts checks the real imports against
 * it, and `npm run docs:architecture` writes the table of docs/architecture.md from it.
 *
 * Runtime imports (static and `import()`) must follow `imports`. A type-only import (`import type`,
 * `typeof import(…)`) loads nothing, so it cannot break the loading order the layers keep; it may
 * also follow `typeImports`: a seam whose types a lower layer declares for the layer above.
 */
import type { LayerRule } from './imports.js';

export interface Layer {
  folder: string;
  /** What it holds, one line. */
  role: string;
  /** The folders it may import at run time. */
  imports: readonly string[];
  /** The folders it may also import types from, and why. */
  typeImports?: Readonly<Record<string, string>>;
}

/** The leaves: any server-side layer may import them; they import only other leaves. */
const LEAVES = [
  'config',
  'limits',
  'safety',
  'jdk',
  'atom',
  'bpmn-extension',
  'metrics',
  'traces',
  'errors',
] as const;

export const LAYERS: readonly Layer[] = [
  {
    folder: 'cli',
    role: 'the `flowmark` commands; `serve` wires the server, the evaluation pool and the store',
    imports: [
      'isolation',
      'server',
      'hosts',
      'script',
      'functions',
      'template',
      'platform',
      'store',
      ...LEAVES,
    ],
  },
  {
    folder: 'isolation',
    role: "the evaluation pool: worker threads running the hosts' calls, and remote objects of the server's seam",
    imports: ['server', 'hosts', 'script', 'functions', 'platform', 'store', ...LEAVES],
  },
  {
    folder: 'server',
    role: 'the HTTP API (Fastify), composite APIs, the console assets; declares the seam the hosts fill',
    imports: ['functions', 'platform', 'store', ...LEAVES],
    typeImports: { hosts: 'the seam (`server/hosts.ts`) names the input and output types of the eval host' },
  },
  {
    folder: 'hosts',
    role: 'evaluation surfaces: eval, process requests, web interfaces, composite APIs',
    imports: ['script', 'functions', 'template', 'platform', 'store', ...LEAVES],
  },
  {
    folder: 'script',
    role: 'the script sandboxes (QuickJS, Pyodide) exposing the function library',
    imports: ['functions', 'template', 'platform', ...LEAVES],
  },
  {
    folder: 'functions',
    role: 'the function library: one module per group and the signature registry',
    imports: ['template', 'platform', 'store', ...LEAVES],
  },
  {
    folder: 'template',
    role: 'the FreeMarker dialect: lexer, parser, built-ins, directives',
    imports: [...LEAVES],
  },
  {
    folder: 'platform',
    role: 'the state the functions act on: services over a store',
    imports: ['store', ...LEAVES],
  },
  {
    folder: 'store',
    role: 'storage engines (SQLite, PostgreSQL) and their SQL dialects',
    imports: [...LEAVES],
  },
  {
    folder: 'console',
    role: 'browser code of the console: talks HTTP only',
    imports: ['client', 'atom', 'bpmn-extension', 'safety'],
    typeImports: {
      functions: "autocompletion reads the shape of GET /api/v1/functions' function descriptions",
      server: "the JSON API's bodies, as `Static<typeof …>` of the route schemas (`server/schemas.ts`)",
    },
  },
  { folder: 'client', role: 'the browser client library: talks HTTP only', imports: ['atom', 'safety'] },
  {
    folder: 'atom',
    role: 'leaf: the Atom resource format, loaded by the server and the browser',
    imports: ['safety'],
  },
  {
    folder: 'bpmn-extension',
    role: "leaf: the flowmark BPMN extension namespace (a moddle descriptor), read by the server and the console's modeler",
    imports: [],
  },
  {
    folder: 'safety',
    role: 'leaf: the prototype-key deny-list and the JSON parse refusing `__proto__`',
    imports: [],
  },
  { folder: 'limits', role: 'leaf: the evaluation budget and the bounded JSON writer', imports: ['config'] },
  {
    folder: 'jdk',
    role: 'leaf: Java standard-library semantics (formats, calendars, URL coding)',
    imports: [],
  },
  {
    folder: 'config',
    role: 'leaf: process-wide settings from the environment, and where the built worker programs are',
    imports: [],
  },
  {
    folder: 'errors',
    role: 'leaf: what a caught value says (`errorMessage`); not loaded by the browser code',
    imports: [],
  },
  { folder: 'metrics', role: 'leaf: the metric families, one registry per thread', imports: [] },
  {
    folder: 'traces',
    role: 'leaf: the OpenTelemetry spans, loaded only when an exporter is configured',
    imports: ['config'],
  },
];

/** The runtime rule: folder → the folders it may import. */
export const RUNTIME_RULE: LayerRule = Object.fromEntries(LAYERS.map((l) => [l.folder, l.imports]));

/** The type-only rule: the runtime rule plus each layer's `typeImports`. */
export const TYPE_RULE: LayerRule = Object.fromEntries(
  LAYERS.map((l) => [l.folder, [...l.imports, ...Object.keys(l.typeImports ?? {})]]),
);

/** The markdown table of docs/architecture.md. */
export function layerTable(): string {
  const rows = LAYERS.map((l) => {
    const imports = l.imports.filter((f) => !(LEAVES as readonly string[]).includes(f));
    const leaves = l.imports.filter((f) => (LEAVES as readonly string[]).includes(f));
    const runtime = [
      ...imports.map((f) => `${f}/`),
      ...(leaves.length === LEAVES.length ? ['the leaves'] : leaves.map((f) => `${f}/`)),
    ];
    const types = Object.entries(l.typeImports ?? {}).map(([f, why]) => `types of ${f}/: ${why}`);
    return `| ${l.folder}/ | ${l.role} | ${[...runtime, ...types].join(', ') || '—'} |`;
  });
  return [
    `The leaves are ${LEAVES.map((f) => `${f}/`).join(', ')}.`,
    '',
    '| folder | what it holds | may import |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}

export const BEGIN_MARKER = '<!-- BEGIN GENERATED: layers (npm run docs:architecture) -->';
export const END_MARKER = '<!-- END GENERATED: layers -->';

/** `doc` with the text between the markers replaced by the layer table. */
export function withLayerTable(doc: string): string {
  const begin = doc.indexOf(BEGIN_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (begin < 0 || end < begin)
    throw new Error(`docs/architecture.md: the markers ${BEGIN_MARKER} … ${END_MARKER} are missing`);
  return `${doc.slice(0, begin + BEGIN_MARKER.length)}\n${layerTable()}\n${doc.slice(end)}`;
}
