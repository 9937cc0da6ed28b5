import type { Command } from '../main.js';

/**
 * One CLI command as `flowmark --help` lists it. The command's module is imported only when the
 * command runs (`load`), so `flowmark version` does not load Fastify or the function library and
 * `flowmark render` does not load the server (bench/cli.bench.ts measures it).
 */
export interface CommandEntry {
  name: string;
  summary: string;
  /** Imports the command's module. */
  load(): Promise<Command>;
  /**
   * True when the command may start script sandbox workers (it evaluates templates or scripts):
   * the CLI stops them once the command is done, so the process ends by itself.
   */
  scripts: boolean;
}

/** Every CLI command, in the order `flowmark --help` lists them. One module per command. */
export const commands: readonly CommandEntry[] = [
  {
    name: 'version',
    summary: 'print the flowmark version',
    load: async () => (await import('./version.js')).version,
    scripts: false,
  },
  {
    name: 'functions',
    summary: 'list the function library (name, group, signature, flags)',
    load: async () => (await import('./functions.js')).functions,
    scripts: false,
  },
  {
    name: 'render',
    summary: 'render a template (FreeMarker dialect) with JSON data',
    load: async () => (await import('./render.js')).render,
    scripts: true,
  },
  {
    name: 'render-batch',
    summary: 'render many templates: JSON lines {"id","template","data"} in, results out',
    load: async () => (await import('./render-batch.js')).renderBatch,
    scripts: true,
  },
  {
    name: 'run',
    summary: 'run a process definition (JSON) as a request, printing its progress and final status',
    load: async () => (await import('./run.js')).run,
    scripts: true,
  },
  {
    name: 'serve',
    summary: 'start the HTTP service (API, composite APIs, web interfaces)',
    load: async () => (await import('./serve.js')).serve,
    scripts: true,
  },
  {
    name: 'token',
    summary: 'create, list and revoke API tokens',
    load: async () => (await import('./token.js')).token,
    scripts: false,
  },
  {
    name: 'accounts',
    summary:
      'create an account and its administrator (with cells: in a cell); list the accounts and their cells',
    load: async () => (await import('./accounts.js')).accounts,
    scripts: false,
  },
  {
    name: 'users',
    summary: "list an account's users; give a user a new password (a lost administrator password)",
    load: async () => (await import('./users.js')).users,
    scripts: false,
  },
  {
    name: 'secrets',
    summary: 'count the stored secrets by key; seal them with the current key (key rotation)',
    load: async () => (await import('./secrets.js')).secrets,
    scripts: false,
  },
  {
    name: 'seed',
    summary: 'create the demo account (users, lanes, a project, a request …)',
    load: async () => (await import('./seed.js')).seed,
    scripts: false,
  },
  {
    name: 'collections',
    summary: 'list collections, import a CSV/JSON file into one, show its indexes',
    load: async () => (await import('./collections.js')).collections,
    scripts: false,
  },
  {
    name: 'project',
    summary: 'export a project as a bundle (zip of JSON files); import one, showing what changes',
    load: async () => (await import('./project.js')).project,
    scripts: false,
  },
  {
    name: 'files',
    summary: 'store a local file as an uploaded file, read one back, list them',
    load: async () => (await import('./files.js')).files,
    scripts: false,
  },
];
