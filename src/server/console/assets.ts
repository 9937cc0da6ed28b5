/**
 * The browser code the server hands out: the client library (`/client/*.js`, with its `.d.ts`
 * types), the console (`/console/*.js`) and the leaves they import (`/atom/*.js`, `/safety/*.js`,
 * `/bpmn-extension/*.js`). Built, they are the ES modules `npm run build` (tsc) writes to dist/,
 * served as they are. Run from the sources (tsx, vitest)
 * there is no build: each `.ts` module is transpiled once with esbuild (a dev dependency), so
 * the same URLs serve the same modules either way.
 *
 * Files are read on the first request (servers that never serve the console never read them) and
 * kept in memory; only the files found then are served, so a path can never leave the folders.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface Asset {
  type: string;
  body: string;
}

/** The folders next to src/server (or dist/server) holding the browser code, each served at `/<folder>/`. */
export const BROWSER_FOLDERS = ['atom', 'bpmn-extension', 'client', 'console', 'safety'] as const;

let loading: Promise<Map<string, Asset>> | undefined;

/** `client/index.js` → its asset, for every browser module (loaded once per process). */
export function browserAssets(): Promise<Map<string, Asset>> {
  loading ??= loadAll().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

async function loadAll(): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const folder of BROWSER_FOLDERS) {
    const dir = fileURLToPath(new URL(`../../${folder}/`, import.meta.url));
    const names = (await readdir(dir)).sort();
    const built = names.some((n) => n.endsWith('.js'));
    for (const name of names) {
      const path = dir + name;
      if (built) {
        const type = builtType(name);
        if (type) assets.set(`${folder}/${name}`, { type, body: await readFile(path, 'utf8') });
      } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
        const source = await readFile(path, 'utf8');
        assets.set(`${folder}/${name.replace(/\.ts$/, '.js')}`, {
          type: 'text/javascript; charset=utf-8',
          body: await transpile(source, path),
        });
        assets.set(`${folder}/${name}`, { type: 'text/plain; charset=utf-8', body: source });
      }
    }
  }
  return assets;
}

function builtType(name: string): string | undefined {
  if (name.endsWith('.d.ts')) return 'text/plain; charset=utf-8';
  if (name.endsWith('.js')) return 'text/javascript; charset=utf-8';
  if (name.endsWith('.js.map')) return 'application/json; charset=utf-8';
  return undefined;
}

async function transpile(source: string, path: string): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.transform(source, {
    loader: 'ts',
    format: 'esm',
    target: 'es2022',
    sourcefile: path,
    sourcemap: 'inline',
  });
  return result.code;
}
