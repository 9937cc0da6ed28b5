import type { CliIo } from './main.js';

/**
 * How a command reports a bad invocation (exit 2, with its usage) and a failure (exit 1), each
 * line starting `flowmark <command>: `.
 */
export function commandErrors(command: string, usage: string) {
  return {
    usageError(io: CliIo, message: string): number {
      io.stderr.write(`flowmark ${command}: ${message}\nusage: ${usage}\n`);
      return 2;
    },
    failure(io: CliIo, message: string): number {
      io.stderr.write(`flowmark ${command}: ${message}\n`);
      return 1;
    },
  };
}
