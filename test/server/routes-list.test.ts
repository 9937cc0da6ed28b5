/**
 * The server's routes and their OpenAPI description do not change when route modules are
 * reorganised (plugins, prefixes, files split by family): every method and path, and every
 * operation's schemas, equal the fixture taken before the reorganisation.
 *
 * Regenerate (only for an intended change of the API): FLOWMARK_UPDATE_ROUTES=1 npx vitest run test/server/routes-list.test.ts
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Api } from '../../src/server/index.js';
import { openStore, type Store } from '../../src/store/index.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'routes.json');

describe('route list', () => {
  let dir: string;
  let store: Store;
  let app: Api;
  const routes: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-routes-'));
    store = await openStore({ sqliteFile: join(dir, 'routes.db'), databaseUrl: undefined });
    app = await createServer({ store });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers the same methods and paths, with the same OpenAPI operations, as before', async () => {
    const r = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(r.statusCode).toBe(200);
    const doc = r.json() as { paths: Record<string, Record<string, unknown>> };
    for (const [path, operations] of Object.entries(doc.paths))
      for (const method of Object.keys(operations)) routes.push(`${method.toUpperCase()} ${path}`);
    routes.sort();
    const actual = {
      routes,
      printed: app.printRoutes({ commonPrefix: false }).split('\n').sort(),
      paths: Object.fromEntries(
        Object.keys(doc.paths)
          .sort()
          .map((p) => [p, doc.paths[p]]),
      ),
    };
    if (process.env.FLOWMARK_UPDATE_ROUTES) writeFileSync(FIXTURE, JSON.stringify(actual, null, 1) + '\n');
    const expected = JSON.parse(readFileSync(FIXTURE, 'utf8')) as typeof actual;
    expect(actual.routes).toEqual(expected.routes);
    expect(actual.printed).toEqual(expected.printed);
    expect(actual.paths).toEqual(expected.paths);
    expect(routes).toContain('GET /api/v1/users');
    expect(routes).toContain('DELETE /api/v1/lanes/{id}/users/{userId}');
    expect(routes).toContain('POST /api/v1/files/{id}/rights');
  });
});
