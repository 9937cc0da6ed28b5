/**
 * The evaluation threads of `flowmark serve` keep what an account's process starts read of its
 * users for up to a second (ProcessRunner.startReads); a user changed through the REST API — on
 * the HTTP thread — is seen by the very next request, whichever thread runs it, because the
 * threads share the directory's change count with the HTTP thread. On SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { availableEngines } from '../support/engines.js';
import { usePoolServer } from '../support/serve.js';
import { call } from '../server/support.js';

for (const engine of availableEngines())
  describe(`a user renamed over REST, requests in the pool of flowmark serve [${engine}]`, () => {
    const served = usePoolServer('edited-user', engine);

    it("the next request's step sees the new name", async () => {
      const { url, admin } = served;
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
