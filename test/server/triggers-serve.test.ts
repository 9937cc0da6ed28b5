/**
 * Triggers on real `flowmark serve` processes (the built dist/: `npm run build` first), where the
 * HTTP thread claims and the evaluation pool starts (docs/hosts.md, "Triggers"). PostgreSQL: two
 * servers on one database, both sweeping — 20 timer start events due at once each start exactly
 * one request; SQLite: one server (of two worker processes, both sweeping). A message sent over
 * HTTP to either starts its process. A collection trigger starts one request per matching
 * document inserted over REST (to either server), none for the others, each exactly once. Both
 * tests run on the same servers.
 */
import { describe, expect, it } from 'vitest';
import { sql, type Store } from '../../src/store/index.js';
import { until } from '../support/cli.js';
import { availableEngines } from '../support/engines.js';
import { signInFirstAdmin, urlOf, useServers } from '../support/serve.js';
import { call } from './support.js';

const TIMERS = 20;

const graph = (start: Record<string, unknown>) => ({
  nodes: [
    { id: 'Go', kind: 'start', ...start },
    { id: 't', kind: 'task', step: 1 },
    { id: 'e', kind: 'end' },
  ],
  flows: [
    { id: 'f1', source: 'Go', target: 't' },
    { id: 'f2', source: 't', target: 'e' },
  ],
});

for (const engine of availableEngines()) {
  describe(`triggers on flowmark serve [${engine}]`, () => {
    const servers = useServers('triggers');
    const serve = (workers: string) => servers.start({ FLOWMARK_SWEEP_MS: '100', FLOWMARK_WORKERS: workers });
    // The servers (and their store) are shared by both tests: started by the first to need them.
    let shared: Promise<{ db: Store; urlA: string; urlB: string; cookie: string }> | undefined;
    const started = () =>
      (shared ??= (async () => {
        const db = await servers.open(engine);
        // A: two worker processes, two sweepers (on SQLite too); B: one more, started in less time
        // (B of two workers did not listen within 60 s on a machine at load 18).
        const a = serve('2');
        const urlA = await urlOf(a);
        // B starts once A has made the first account and printed its login: started as soon as A
        // listened, B did not come up within 30 s in 2 runs of 3 on PostgreSQL (issue 31's session).
        const cookie = await signInFirstAdmin(a, urlA);
        const b = engine === 'postgres' ? serve('1') : undefined;
        const urlB = b ? await urlOf(b) : urlA;
        return { db, urlA, urlB, cookie };
      })());

    it(`${TIMERS} timer start events due at once start one request each; a message starts its process`, async () => {
      const { db, urlA, urlB, cookie } = await started();

      const saved: number[] = [];
      for (let i = 0; i < TIMERS; i++) {
        const r = await call(i % 2 ? urlB : urlA, 'POST', '/api/v1/processes', {
          cookie,
          body: {
            name: `Timed ${i}`,
            steps: [{ id: 1, script: `tick ${i}` }],
            graph: graph({ timer: { duration: 'PT3S' } }),
          },
        });
        expect(r.status).toBe(201);
        saved.push(r.body.id as number);
      }
      const message = await call(urlA, 'POST', '/api/v1/processes', {
        cookie,
        body: {
          name: 'Greeter',
          steps: [{ id: 1, script: 'hello ${who}' }],
          graph: graph({ message: 'greet' }),
        },
      });
      expect(message.status).toBe(201);
      const sent = await call(urlB, 'POST', '/api/v1/messages/greet', { cookie, body: { who: 'Ada' } });
      expect(sent.status).toBe(201);
      expect(sent.body).toMatchObject({ status: 201, mode: 'LIVE', data: { who: 'Ada' } });
      expect((await call(urlA, 'POST', '/api/v1/messages/nobody', { cookie, body: {} })).body.message).toBe(
        'No process starts on message "nobody": no stored process of the account has an enabled message start event of that name.',
      );

      const completed = () =>
        db.get<{ n: number }>(sql`
          SELECT COUNT(*) AS n FROM process_runs r JOIN requests q ON q.account_id = r.account_id AND q.id = r.request_id
          WHERE r.definition_id IN (SELECT id FROM process_definitions WHERE name LIKE 'Timed %') AND q.status = 201`);
      await until(
        async () => (Number((await completed())?.n) === TIMERS ? true : undefined),
        `${TIMERS} timer-started requests to complete`,
        60_000,
      );
      // Two sweeps more: nothing fires twice.
      await new Promise((r) => setTimeout(r, 500));
      const perDefinition = await db.all<{ definition_id: number; n: number }>(sql`
        SELECT definition_id, COUNT(*) AS n FROM process_runs
        WHERE definition_id IN (SELECT id FROM process_definitions WHERE name LIKE 'Timed %')
        GROUP BY definition_id ORDER BY definition_id`);
      expect(perDefinition.map((r) => [Number(r.definition_id), Number(r.n)])).toEqual(
        saved.map((id) => [id, 1]),
      );
      const fired = await db.all<{ fired_count: number; next_at: number | null }>(
        sql`SELECT fired_count, next_at FROM process_triggers WHERE kind = 'timer'`,
      );
      expect(fired.map((r) => [Number(r.fired_count), r.next_at])).toEqual(saved.map(() => [1, null]));
    }, 120_000);

    it('a collection trigger starts one request per matching document inserted over REST', async () => {
      const { db, urlA, urlB, cookie } = await started();

      expect(
        (await call(urlA, 'POST', '/api/v1/collections', { cookie, body: { name: 'orders' } })).status,
      ).toBe(201);
      const saved = await call(urlB, 'POST', '/api/v1/processes', {
        cookie,
        body: {
          name: 'Order intake',
          steps: [{ id: 1, script: 'order of ${document.item}', output: { seen: '${document._id}' } }],
          graph: graph({ collection: { name: 'orders', filter: { status: 'new' } } }),
        },
      });
      expect(saved.status).toBe(201);
      expect(saved.body.trigger).toMatchObject({ kind: 'collection', collection: 'orders', firedCount: 0 });
      // Four matching documents, written to either server, and two that do not match.
      const written: string[] = [];
      for (const [i, doc] of [
        { item: 'pen', status: 'new' },
        { item: 'ink', status: 'old' },
        { item: 'pad', status: 'new' },
        { item: 'cap', status: 'new' },
        { item: 'nib', status: 'draft' },
        { item: 'box', status: 'new' },
      ].entries()) {
        const r = await call(i % 2 ? urlB : urlA, 'POST', '/api/v1/collections/orders/documents', {
          cookie,
          body: doc,
        });
        expect(r.status).toBe(201);
        if (doc.status === 'new') written.push(r.body.items[0]._id as string);
      }
      const requests = () =>
        db.all<{ status: number; data: unknown }>(sql`
          SELECT q.status, q.data FROM process_runs r JOIN requests q ON q.account_id = r.account_id AND q.id = r.request_id
          WHERE r.definition_id = ${saved.body.id as number}`);
      await until(
        async () => {
          const found = await requests();
          return found.length === written.length && found.every((r) => Number(r.status) === 201)
            ? true
            : undefined;
        },
        `${written.length} collection-started requests to complete`,
        60_000,
      );
      // Sweeps more: no event fires twice, none is left.
      await new Promise((r) => setTimeout(r, 500));
      // The data document: a JSON text (SQLite) or already read (PostgreSQL).
      const data = (await requests()).map(
        (r) =>
          (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as {
            seen: string;
            document: { item: string };
          },
      );
      expect(data.map((d) => d.seen).sort()).toEqual([...written].sort());
      expect(data.map((d) => d.document.item).sort()).toEqual(['box', 'cap', 'pad', 'pen']);
      expect(
        Number((await db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM process_trigger_events`))!.n),
      ).toBe(0);
      const trigger = await call(urlA, 'GET', `/api/v1/processes/${saved.body.id}`, { cookie });
      expect(trigger.body.trigger).toMatchObject({ kind: 'collection', firedCount: written.length });
    }, 120_000);
  });
}
