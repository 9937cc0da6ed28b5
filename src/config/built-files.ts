/**
 * The file a worker thread starts from: a module of this package, always its built JavaScript
 * (dist/…), also when flowmark runs from its TypeScript sources (vitest, tsx), where a worker
 * would otherwise need a TypeScript loader of its own.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The built file `name` (relative, with its extension) beside the module at `callerUrl`
 * (its `import.meta.url`): there when the caller is built, else in the same place under dist/.
 * `what` names the program in the error when it is not built.
 */
export function builtSibling(callerUrl: string, name: string, what: string): string {
  if (callerUrl.endsWith('.js')) return fileURLToPath(new URL(`./${name}`, callerUrl));
  const source = fileURLToPath(callerUrl);
  const at = source.lastIndexOf('/src/');
  const built = `${source.slice(0, at)}/dist/${source.slice(at + '/src/'.length, source.lastIndexOf('/') + 1)}${name}`;
  if (!existsSync(built)) throw new Error(`${what} is not built (${built}): run npm run build`);
  return built;
}
