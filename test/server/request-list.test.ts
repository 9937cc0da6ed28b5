/**
 * The request list (`GET /api/v1/requests`): summaries without the data document, newest first
 * (ties by id), `first=` and keyset `before=` paging, and a plan that reads an index in the list's
 * order instead of sorting the account's requests.
 */
import { expect, it } from 'vitest';
import { requestPageQuery } from '../../src/platform/requests.js';
import { sql } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

interface Item {
  id: string;
  createdAt: number;
  status: number;
  initiatorId: number | null;
  projectId: number | null;
}

describeEachEngine('server: the request list', (engine) => {
  const server = useServer(engine);
  const as = (who: 'admin' | 'user') => server.acme[who].token;
  const created: Item[] = [];

  /** 40 requests: created_at in threes (ties), ids not in creation order, two initiators, two statuses. */
  async function seed(): Promise<void> {
    if (created.length) return;
    const project = await server.platform.projects.create('acme', { title: 'Listed' });
    for (let i = 0; i < 40; i++) {
      const id = `r${String((i * 17) % 40).padStart(2, '0')}`;
      const initiatorId = i % 4 === 0 ? server.acme.admin.id : server.acme.user.id;
      const projectId = i % 5 === 0 ? project.id : null;
      await server.platform.requests.create('acme', {
        id,
        mode: 'TEST',
        initiatorId,
        projectId,
        status: i % 2 ? 201 : 101,
        data: { i, big: 'x'.repeat(1000) },
      });
      const createdAt = 1_000_000 + Math.floor(i / 3);
      await engine.store.run(sql`UPDATE requests SET created_at = ${createdAt} WHERE id = ${id}`);
      created.push({ id, createdAt, status: i % 2 ? 201 : 101, initiatorId, projectId });
    }
    created.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
  }

  /** Every page of a list followed by its `next`, with the total each page gave. */
  async function walk(path: string, token: string, nb: number): Promise<{ ids: string[]; totals: number[] }> {
    const ids: string[] = [];
    const totals: number[] = [];
    let before: string | undefined;
    for (;;) {
      const sep = path.includes('?') ? '&' : '?';
      const r = await call(server.url, 'GET', `${path}${sep}nb=${nb}${before ? `&before=${before}` : ''}`, {
        token,
      });
      expect(r.status).toBe(200);
      ids.push(...r.body.items.map((x: Item) => x.id));
      totals.push(r.body.total);
      expect(r.body.next).toBe(r.body.items.length === nb ? r.body.items[nb - 1].id : undefined);
      if (r.body.next === undefined) return { ids, totals };
      before = r.body.next;
    }
  }

  it('pages with before= through the same order as first=, summaries only', async () => {
    await seed();
    const all = await call(server.url, 'GET', '/api/v1/requests?nb=1000', { token: as('admin') });
    expect(all.body.items.map((x: Item) => x.id)).toEqual(created.map((c) => c.id));
    expect(all.body).toMatchObject({ total: 40, first: 0, nb: 1000 });
    expect(all.body.items[0]).toEqual({
      id: created[0]!.id,
      projectId: created[0]!.projectId,
      versionId: null,
      mode: 'TEST',
      status: created[0]!.status,
      message: '',
      initiatorId: created[0]!.initiatorId,
      parentId: null,
      createdAt: created[0]!.createdAt,
      updatedAt: expect.any(Number),
      process: null,
      processId: null,
    });

    const walked = await walk('/api/v1/requests', as('admin'), 7);
    expect(walked.ids).toEqual(created.map((c) => c.id));
    expect(walked.totals).toEqual([40, 40, 40, 40, 40, 40]);

    const page = await call(server.url, 'GET', `/api/v1/requests?before=${created[9]!.id}&first=2&nb=3`, {
      token: as('admin'),
    });
    expect(page.body.items.map((x: Item) => x.id)).toEqual(created.slice(12, 15).map((c) => c.id));
    expect(page.body).toMatchObject({ total: 40, first: 2, nb: 3, next: created[14]!.id });
  });

  it('keeps each filter, and a member to their own requests', async () => {
    await seed();
    const done = await walk('/api/v1/requests?status=201', as('admin'), 4);
    expect(done.ids).toEqual(created.filter((c) => c.status === 201).map((c) => c.id));
    expect(done.totals.every((t) => t === 20)).toBe(true);
    const projectId = created.find((c) => c.projectId !== null)!.projectId;
    const ofProject = await walk(`/api/v1/requests?projectId=${projectId}`, as('admin'), 3);
    expect(ofProject.ids).toEqual(created.filter((c) => c.projectId === projectId).map((c) => c.id));
    const mine = await walk('/api/v1/requests?status=101', as('user'), 5);
    expect(mine.ids).toEqual(
      created.filter((c) => c.status === 101 && c.initiatorId === server.acme.user.id).map((c) => c.id),
    );
  });

  it('refuses a cursor outside the list, without telling whether it exists', async () => {
    await seed();
    const adminsOwn = created.find((c) => c.initiatorId === server.acme.admin.id)!.id;
    for (const before of ['nope', adminsOwn]) {
      const r = await call(server.url, 'GET', `/api/v1/requests?before=${before}`, { token: as('user') });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        status: 400,
        code: 'invalid',
        message: `before: no request '${before}' in this list`,
      });
    }
  });

  it('reads a page from an index in the list order, for each filter', async () => {
    await seed();
    // Enough requests that a plan sorting them all would be chosen only for want of an index.
    const rows = Array.from({ length: 3000 }, (_, i) => i);
    for (let i = 0; i < rows.length; i += 500)
      await engine.store.run(
        sql`INSERT INTO requests (account_id, id, mode, status, data, p_locks, p_message, initiator_id, created_at, updated_at)
            VALUES ${sql.join(
              rows
                .slice(i, i + 500)
                .map(
                  (n) =>
                    sql`('acme', ${`bulk${n}`}, 'TEST', ${n % 3 ? 201 : 101}, '{}', '[]', '', ${server.acme.user.id}, ${2_000_000 + n}, 0)`,
                ),
            )}`,
      );
    await engine.store.exec('ANALYZE');
    const documents = engine.store.dialect.documents;
    const cases = [
      {},
      { status: 101 },
      { initiatorId: server.acme.user.id },
      { projectId: created.find((c) => c.projectId !== null)!.projectId! },
      { before: 'bulk100' },
      { status: 201, before: 'bulk100' },
    ];
    for (const filters of cases) {
      const plan = documents.planLines(
        await engine.store.all(documents.explain(requestPageQuery('acme', { ...filters, limit: 100 }))),
      );
      expect({ filters, plan, sorted: documents.sortsByIndex(plan) }).toMatchObject({ sorted: true });
      // requests_list* (or, for status 101 on PostgreSQL, the sweeper's requests_running), read in order.
      expect(plan.join('\n')).toMatch(/requests_(list|running)/);
    }
    const r = await call(server.url, 'GET', '/api/v1/requests?before=bulk100&nb=2', { token: as('user') });
    expect(r.body.items.map((x: Item) => x.id)).toEqual(['bulk99', 'bulk98']);
  });
});
