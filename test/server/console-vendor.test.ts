/**
 * The diagram library the console loads (docs/console.md, "The diagram"): bpmn-js's bundles,
 * stylesheets and icon font served under /console/vendor/ exactly as npm installed them, with the
 * console's security headers; any other name — another file of the package, a path leaving it —
 * is 404.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { useServer } from './support.js';

const dist = join(dirname(createRequire(import.meta.url).resolve('bpmn-js/package.json')), 'dist');

describeEachEngine('server: the console vendor files', (engine) => {
  const server = useServer(engine);
  const get = (path: string) => fetch(`${server.url}${path}`);

  it('serves the named bpmn-js files as npm installed them', async () => {
    for (const [path, file, type] of [
      ['bpmn-modeler.js', 'bpmn-modeler.production.min.js', 'text/javascript; charset=utf-8'],
      ['bpmn-viewer.js', 'bpmn-navigated-viewer.production.min.js', 'text/javascript; charset=utf-8'],
      ['bpmn-js.css', 'assets/bpmn-js.css', 'text/css; charset=utf-8'],
      ['diagram-js.css', 'assets/diagram-js.css', 'text/css; charset=utf-8'],
      ['bpmn-font/css/bpmn.css', 'assets/bpmn-font/css/bpmn.css', 'text/css; charset=utf-8'],
      ['bpmn-font/font/bpmn.woff2', 'assets/bpmn-font/font/bpmn.woff2', 'font/woff2'],
    ] as const) {
      const response = await get(`/console/vendor/${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe(type);
      expect(response.headers.get('content-security-policy'), path).toContain("script-src 'self'");
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(join(dist, file))), path).toBe(
        true,
      );
    }
  });

  it('answers 404 for any other name', async () => {
    for (const path of [
      'bpmn-modeler.production.min.js',
      'package.json',
      '../package.json',
      '..%2F..%2Fpackage.json',
      'assets/bpmn-js.css',
      'constructor',
    ]) {
      const response = await get(`/console/vendor/${path}`);
      expect(response.status, path).toBe(404);
    }
  });
});
