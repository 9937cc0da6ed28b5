/**
 * The account log (`GET /api/v1/logs`) filtered by minimum level, time (epoch milliseconds, since
 * inclusive, until exclusive) and message text (case-insensitive, `%`, `_` and `!` literal), and
 * paged by keyset (`before=` and `next`).
 */
import { expect, it } from 'vitest';
import { LOG_LEVELS, type LogLevel } from '../../src/platform/logs.js';
import { sql } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer, type Reply } from './support.js';

interface Written {
  id: number;
  level: LogLevel;
  message: string;
  createdAt: number;
}

const MESSAGES = [
  'Disk 100% full',
  'disk1000 full',
  'user_name missing',
  'username missing',
  'Hello!x',
  'plain',
];

describeEachEngine('server: the account log filters and pages', (engine) => {
  const server = useServer(engine);
  const admin = () => server.acme.admin.token;
  const written: Written[] = [];

  /** 14 entries: every level twice, messages cycling through MESSAGES, created_at 1000, 1010, … */
  async function seed(): Promise<void> {
    if (written.length) return;
    for (let i = 0; i < 14; i++) {
      const level = LOG_LEVELS[i % LOG_LEVELS.length]!;
      const message = MESSAGES[i % MESSAGES.length]!;
      const entry = await server.platform.logs.write('acme', {
        requestId: null,
        projectId: null,
        userId: null,
        mode: 'TEST',
        level,
        message,
      });
      const createdAt = 1000 + 10 * i;
      await engine.store.run(sql`UPDATE logs SET created_at = ${createdAt} WHERE id = ${entry.id}`);
      written.push({ id: entry.id, level, message, createdAt });
    }
    written.reverse(); // latest first, as the list answers
  }

  async function ids(query: string): Promise<number[]> {
    const r = await call(server.url, 'GET', `/api/v1/logs?${query}`, { token: admin() });
    expect(r.status).toBe(200);
    return r.body.items.map((x: { id: number }) => x.id);
  }
  const expected = (keep: (w: Written) => boolean) => written.filter(keep).map((w) => w.id);

  it('filters by minimum level', async () => {
    await seed();
    expect(await ids('level=WARNING')).toEqual(
      expected((w) => w.level === 'SEVERE' || w.level === 'WARNING'),
    );
    expect(await ids('level=SEVERE')).toEqual(expected((w) => w.level === 'SEVERE'));
    expect((await ids('level=FINEST')).length).toBe(14);
  });

  it('filters by time, since inclusive and until exclusive', async () => {
    await seed();
    expect(await ids('since=1030&until=1070')).toEqual(
      expected((w) => w.createdAt >= 1030 && w.createdAt < 1070),
    );
    expect((await ids('since=1030&until=1070')).length).toBe(4);
    expect(await ids('until=1000')).toEqual([]);
    expect(await ids('since=1130')).toEqual(expected((w) => w.createdAt === 1130));
  });

  it('filters by text, case-insensitive, with % _ and ! taken literally', async () => {
    await seed();
    expect(await ids('text=DISK')).toEqual(expected((w) => w.message.toLowerCase().includes('disk')));
    expect(await ids(`text=${encodeURIComponent('100%')}`)).toEqual(
      expected((w) => w.message === 'Disk 100% full'),
    );
    expect(await ids('text=user_name')).toEqual(expected((w) => w.message === 'user_name missing'));
    expect(await ids(`text=${encodeURIComponent('o!x')}`)).toEqual(expected((w) => w.message === 'Hello!x'));
    expect(await ids('text=nothing-like-this')).toEqual([]);
  });

  it('combines the filters', async () => {
    await seed();
    const keep = (w: Written) =>
      ['SEVERE', 'WARNING', 'INFO'].includes(w.level) &&
      w.createdAt >= 1000 &&
      w.createdAt < 1130 &&
      w.message.toLowerCase().includes('missing');
    const want = expected(keep);
    expect(want.length).toBeGreaterThan(0);
    expect(await ids('level=INFO&since=1000&until=1130&text=MISSING')).toEqual(want);
  });

  it('pages with before= and next across 3 pages', async () => {
    await seed();
    const pages: number[][] = [];
    let before: number | null = null;
    for (;;) {
      const r: Reply = await call(
        server.url,
        'GET',
        `/api/v1/logs?limit=5${before ? `&before=${before}` : ''}`,
        {
          token: admin(),
        },
      );
      expect(r.status).toBe(200);
      const page = r.body.items.map((x: { id: number }) => x.id);
      pages.push(page);
      expect(r.body.next).toBe(pages.length < 3 ? page[page.length - 1] : null);
      if (r.body.next === null) break;
      before = r.body.next;
    }
    expect(pages.map((p) => p.length)).toEqual([5, 5, 4]);
    expect(pages.flat()).toEqual(written.map((w) => w.id));
    // A filter pages too; a page that ends exactly at the last entry says null.
    const r = await call(server.url, 'GET', '/api/v1/logs?level=WARNING&limit=4', { token: admin() });
    expect(r.body.items.map((x: { id: number }) => x.id)).toEqual(
      expected((w) => w.level === 'SEVERE' || w.level === 'WARNING'),
    );
    expect(r.body.next).toBe(null);
  });

  it('refuses a bad level or time with 400', async () => {
    await seed();
    const bad = async (query: string) => {
      const r = await call(server.url, 'GET', `/api/v1/logs?${query}`, { token: admin() });
      return [r.status, r.body];
    };
    expect(await bad('level=LOUD')).toEqual([
      400,
      {
        status: 400,
        code: 'invalid',
        message: 'querystring/level must match pattern "^(SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST)$"',
      },
    ]);
    expect(await bad('since=yesterday')).toEqual([
      400,
      { status: 400, code: 'invalid', message: 'querystring/since must be integer' },
    ]);
    expect((await bad('before=0'))[0]).toBe(400);
  });
});
