import { describeLibrary, functionsMarkdown, functionsText } from '../../functions/docs.js';
import { defaultRegistry, FUNCTION_GROUPS } from '../../functions/registry.js';
import type { Command } from '../main.js';

const USAGE =
  'flowmark functions [NAME…] [--group GROUP] [--json | --markdown]\n\n' +
  'Lists the function library: name, group, signature and flags (web-interface, deprecated,\n' +
  'manual-task-input-only, admin-only). NAME filters by name or alias; --group by group\n' +
  `(${FUNCTION_GROUPS.join(', ')}); --json prints descriptions for tools; --markdown the\n` +
  'reference docs/functions.md is generated from.';

export const functions: Command = {
  name: 'functions',
  usage: USAGE,
  async run(args, io) {
    let format: 'text' | 'json' | 'markdown' = 'text';
    let group: string | undefined;
    const names: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--json') format = 'json';
      else if (a === '--markdown') format = 'markdown';
      else if (a === '--group') {
        group = args[++i];
        const known = FUNCTION_GROUPS.find((g) => g.toLowerCase() === group?.toLowerCase());
        if (!known) {
          io.stderr.write(
            `flowmark functions: unknown group ${JSON.stringify(group ?? '')} (${FUNCTION_GROUPS.join(', ')})\n`,
          );
          return 2;
        }
        group = known;
      } else if (a.startsWith('-')) {
        io.stderr.write(`flowmark functions: unknown option ${a}\nusage: ${USAGE}\n`);
        return 2;
      } else names.push(a);
    }
    const registry = defaultRegistry();
    if (format === 'markdown') {
      io.stdout.write(functionsMarkdown(registry));
      return 0;
    }
    const wanted = new Set(names.map((n) => registry.get(n)?.name ?? n));
    const unknown = names.filter((n) => !registry.get(n));
    if (unknown.length) {
      io.stderr.write(`flowmark functions: no function named ${unknown.join(', ')}\n`);
      return 1;
    }
    const list = describeLibrary(registry).filter(
      (f) => (!group || f.group === group) && (wanted.size === 0 || wanted.has(f.name)),
    );
    io.stdout.write(format === 'json' ? `${JSON.stringify(list, null, 2)}\n` : functionsText(list));
    return 0;
  },
};
