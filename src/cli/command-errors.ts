import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CliIo } from './main.js';
import { errorMessage } from '../errors/index.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Strict<O extends Options> = { args: string[]; options: O; strict: true; allowPositionals: true };

/**
 * How a command reports a bad invocation (exit 2, with its usage) and a failure (exit 1), each
 * line starting `flowmark <command>: `.
 */
export function commandErrors(command: string, usage: string) {
  const usageError = (io: CliIo, message: string): number => {
    io.stderr.write(`flowmark ${command}: ${message}\nusage: ${usage}\n`);
    return 2;
  };
  return {
    usageError,
    /** The command's options and positionals (`parseArgs`, strict), or the exit code of its usage error. */
    parse<O extends Options>(
      io: CliIo,
      args: string[],
      options: O,
    ): ReturnType<typeof parseArgs<Strict<O>>> | number {
      try {
        return parseArgs<Strict<O>>({ args, options, strict: true, allowPositionals: true });
      } catch (e) {
        return usageError(io, errorMessage(e));
      }
    },
    failure(io: CliIo, message: string): number {
      io.stderr.write(`flowmark ${command}: ${message}\n`);
      return 1;
    },
  };
}
