import { commands, type CommandEntry } from './commands/index.js';

export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** A command's module (src/cli/commands/<name>.ts); its name and summary are in commands/index.ts. */
export interface Command {
  name: string;
  usage: string;
  /** Runs the command; resolves to the process exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

const defaultIo: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

export function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: flowmark <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nflowmark <command> --help shows the options of one command; flowmark --version the version.\n`;
}

function find(name: string): CommandEntry | undefined {
  return commands.find((c) => c.name === (name === '--version' || name === '-V' ? 'version' : name));
}

export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name ? 0 : 2;
  }
  const entry = find(name);
  if (!entry) {
    // loaded here only: `flowmark version` loads one module (test/cli/startup.test.ts)
    const { closestName } = await import('../template/suggest.js');
    const near = closestName(
      name,
      commands.map((c) => c.name),
    );
    const hint = near ? ` — did you mean '${near}'?` : '';
    io.stderr.write(`flowmark: unknown command '${name}'${hint}\n\n${usage()}`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`usage: ${command.usage}\n`);
    return 0;
  }
  // With cells, a store command's --account chooses the cell it runs in (cells.ts).
  if (process.env.FLOWMARK_CELLS?.trim() && entry.name !== 'serve' && entry.name !== 'accounts') {
    const { accountArgument, inCellOfAccount } = await import('./cells.js');
    const account = accountArgument(rest);
    if (account !== undefined) return inCellOfAccount(entry.name, account, io, () => command.run(rest, io));
  }
  return command.run(rest, io);
}

/**
 * `bin/flowmark.js`: runs a command, then, for a command that evaluates templates or scripts,
 * releases the script sandbox's workers, so the process ends by itself once the command is done.
 * The script module is imported only then, and only if a script ran (script/loaded.ts).
 */
export async function runCli(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } finally {
    if (argv[0] !== undefined && find(argv[0])?.scripts) {
      const { scriptsLoaded } = await import('../script/loaded.js');
      if (scriptsLoaded()) await (await import('../script/lifecycle.js')).closeScripts();
    }
  }
}
