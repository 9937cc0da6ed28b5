/**
 * Which build of flowmark a benchmark loads: dist/ (tsc's output, what `flowmark serve` runs) when
 * it is at least as new as every file of src/, else src/ through tsx, which is slower (esbuild's
 * keepNames wraps every closure). `npm run bench` builds first, so it measures dist/.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newest(dir: string): number {
  let max = 0;
  for (const d of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (d.isFile()) max = Math.max(max, statSync(join(d.parentPath, d.name)).mtimeMs);
  }
  return max;
}

export interface Code {
  /** Imports a module by its path under src/ without extension (`server/index`). */
  load<T>(module: string): Promise<T>;
  /** What was loaded, for the report. */
  from: string;
}

/** Another build's compiled code: `dist` is its dist/ (or a copy of it). */
export function builtCode(dist: string): Code {
  return {
    load: <T>(module: string) =>
      import(pathToFileURL(join(resolve(dist), `${module}.js`)).href) as Promise<T>,
    from: resolve(dist),
  };
}

/** The composite API the server benches call: `GET /live/bench/composite/hello?name=…`, public. */
export const HELLO_API = {
  method: 'GET',
  path: 'hello',
  template: 'Hello ${P_query.name}',
  isPublic: true,
} as const;

export function flowmarkCode(): Code {
  const marker = join(root, 'dist', 'cli', 'main.js');
  const useDist = existsSync(marker) && statSync(marker).mtimeMs >= newest(join(root, 'src'));
  const base = join(root, useDist ? 'dist' : 'src');
  const ext = useDist ? 'js' : 'ts';
  return {
    load: <T>(module: string) => import(pathToFileURL(join(base, `${module}.${ext}`)).href) as Promise<T>,
    from: useDist ? 'dist/ (build)' : 'src/ via tsx (run `npm run build` for dist/ numbers)',
  };
}
