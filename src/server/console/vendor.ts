/**
 * The third-party browser files the console loads (docs/console.md, "The diagram"): bpmn-js's
 * prebuilt bundles, its stylesheets and its icon font, read from node_modules (where npm put
 * bpmn-js, found by module resolution) and served under /console/vendor/<name>. Only the files
 * named here are served; each is read on its first request and kept in memory.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface VendorAsset {
  type: string;
  body: Buffer;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** Served name → [content type, path inside bpmn-js/dist]. */
const FILES: Record<string, [string, string]> = {
  'bpmn-modeler.js': [JS, 'bpmn-modeler.production.min.js'],
  'bpmn-viewer.js': [JS, 'bpmn-navigated-viewer.production.min.js'],
  'diagram-js.css': [CSS, 'assets/diagram-js.css'],
  'bpmn-js.css': [CSS, 'assets/bpmn-js.css'],
  'bpmn-font/css/bpmn.css': [CSS, 'assets/bpmn-font/css/bpmn.css'],
  'bpmn-font/font/bpmn.woff2': ['font/woff2', 'assets/bpmn-font/font/bpmn.woff2'],
  'bpmn-font/font/bpmn.woff': ['font/woff', 'assets/bpmn-font/font/bpmn.woff'],
  'bpmn-font/font/bpmn.ttf': ['font/ttf', 'assets/bpmn-font/font/bpmn.ttf'],
  'bpmn-font/font/bpmn.eot': ['application/vnd.ms-fontobject', 'assets/bpmn-font/font/bpmn.eot'],
  'bpmn-font/font/bpmn.svg': ['image/svg+xml', 'assets/bpmn-font/font/bpmn.svg'],
};

const loaded = new Map<string, Promise<VendorAsset>>();

/** The file served as `name`, or undefined when it is not one of the named files. */
export function vendorAsset(name: string): Promise<VendorAsset> | undefined {
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!file) return undefined;
  let asset = loaded.get(name);
  if (!asset) {
    const [type, path] = file;
    asset = readFile(join(distFolder(), path)).then((body) => ({ type, body }));
    asset.catch(() => loaded.delete(name)); // a later request may try again
    loaded.set(name, asset);
  }
  return asset;
}

/** node_modules/bpmn-js/dist, wherever module resolution finds the package. */
function distFolder(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('bpmn-js/package.json')), 'dist');
}
