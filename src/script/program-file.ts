/**
 * The file a worker thread starts from: a module of this package, always its built JavaScript
 * (dist/…), also when flowmark runs from its TypeScript sources (vitest, tsx), where a worker
 * would otherwise need a TypeScript loader of its own.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `relative` (to src/script, without extension, e.g. `worker/quickjs-main`) as a built file's URL. */
export function builtScriptFile(relative: string, extension: 'js' | 'cjs' = 'js'): URL {
  if (import.meta.url.endsWith('.js')) return new URL(`./${relative}.${extension}`, import.meta.url);
  const built = new URL(`../../dist/script/${relative}.${extension}`, import.meta.url);
  if (!existsSync(built))
    throw new Error(`the script worker is not built (${fileURLToPath(built)}): run npm run build`);
  return built;
}
