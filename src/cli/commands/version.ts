import { readFileSync } from 'node:fs';
import type { Command } from '../main.js';

export const version: Command = {
  name: 'version',
  usage: 'flowmark version',
  async run(_args, io) {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    io.stdout.write(`flowmark ${pkg.version}\n`);
    return 0;
  },
};
