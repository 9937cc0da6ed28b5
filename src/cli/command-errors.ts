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
    io.stderr.write(`flowmark ${command}: ${cliWords(message)}\nusage: ${usage}\n`);
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

/**
 * node:util parseArgs' refusals in the CLI's own words (`unknown option --x`, as the commands
 * parsing their arguments by hand say it); any other message as it is.
 */
export function cliWords(message: string): string {
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /^Option '(-\S+?)(?:, (-\S+))?(?: <value>)?' argument missing/.exec(message);
  if (missing) return `${missing[2] ?? missing[1]} needs a value`;
  const unexpected = /^Unexpected argument '([^']*)'/.exec(message);
  if (unexpected) return `unexpected argument ${unexpected[1]}`;
  const notBoolean = /^Option '(-\S+?)(?:, (-\S+))?' does not take an argument/.exec(message);
  if (notBoolean) return `${notBoolean[2] ?? notBoolean[1]} takes no value`;
  return message;
}

export { cannotRead } from './file-errors.js';
