/**
 * The evaluation threads of `flowmark serve` keep what an account's process starts read of its
 * users for up to a second (ProcessRunner.startReads); a user changed through the REST API — on
 * the HTTP thread — is seen by the very next request, whichever thread runs it, because the
 * threads share the directory's change count with the HTTP thread. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableEngines } from '../support/engines.js';
import { signInFirstAdmin, urlOf, useServers, type Served } from '../support/serve.js';
import { call } from '../server/support.js';

for (const engine of availableEngines())
  describe(`a user renamed over REST, requests in the pool of flowmark serve [${engine}]`, () => {
    const servers = useServers('edited-user');
    let server: Served;
    let url = '';
    let admin = '';

    beforeAll(async () => {
      await servers.open(engine);
      server = servers.start({ FLOWMARK_WORKERS: '0', FLOWMARK_EVAL_WORKERS: '2' });
      url = await urlOf(server);
      admin = await signInFirstAdmin(server, url);
    }, 90_000);

    afterAll(async () => {
      if (server.child.exitCode !== null) return;
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    });

    it("the next request's step sees the new name", async () => {
      const stored = await call(url, 'POST', '/api/v1/processes', {
        cookie: admin,
        body: {
          name: 'Who',
          steps: [{ id: 1, name: 'Who', script: 'x', output: { who: '${P_user.name}' } }],
        },
      });
      expect(stored.status).toBe(201);
      const start = async () => {
        const started = await call(url, 'POST', '/api/v1/requests', {
          cookie: admin,
          body: { process: 'Who', mode: 'TEST', data: {} },
        });
        expect(started.status).toBe(201);
        return started.body.data.who as string;
      };
      const me = await call(url, 'GET', '/api/v1/auth/me', { cookie: admin });
      const { id, name } = me.body.user as { id: number; name: string };
      // several starts side by side: both threads keep the account's reads
      expect(new Set(await Promise.all(Array.from({ length: 6 }, start)))).toEqual(new Set([name]));
      const renamed = await call(url, 'PATCH', `/api/v1/users/${id}`, {
        cookie: admin,
        body: { name: 'Renamed' },
      });
      expect(renamed.status).toBe(200);
      expect(await Promise.all(Array.from({ length: 4 }, start))).toEqual(Array(4).fill('Renamed'));
    });
  });
