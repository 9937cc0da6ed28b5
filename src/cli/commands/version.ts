import { readFileSync } from 'node:fs';
import type { Command } from '../main.js';

export const version: Command = {
  name: 'version',
  usage: 'flowmark version',
  async run(args, io) {
    if (args.length > 0) {
      const [first] = args;
      io.stderr.write(
        `flowmark version: ${first!.startsWith('-') ? `unknown option ${first}` : `unexpected argument ${first}`}\nusage: flowmark version\n`,
      );
      return 2;
    }
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    io.stdout.write(`flowmark ${pkg.version}\n`);
    return 0;
  },
};
