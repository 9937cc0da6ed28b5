/** What a command says of a file it cannot read (a module of its own: `flowmark render` loads it without the option parser). */
export function cannotRead(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a directory'
          : error instanceof Error
            ? error.message
            : String(error);
  return `cannot read ${path}: ${why}`;
}
