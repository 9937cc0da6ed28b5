/**
 * Issue 13: `flowmark collections import --drop` beside the server made it answer 500
 * (`SqliteError: database is locked`). A write another process holds past the store's lock wait
 * is answered 409 `contention` with Retry-After on every collection route, and the functions'
 * own message in a template; reads go on (a snapshot), /health answers throughout.
 */
import { beforeAll, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { CollectionService } from '../../src/platform/collections/index.js';
import type { Store } from '../../src/store/index.js';
import { describeEachEngine, type EngineUnderTest } from '../support/engines.js';
import { call, useServer } from '../server/support.js';

const CONTENTION = {
  status: 409,
  code: 'contention',
  message: 'the database is busy with a write of another connection or process: try again in a moment',
};

describeEachEngine('contention: a long import by another process', (engine) => {
  let serverStore: Store;
  let other: Store;
  beforeAll(async () => {
    // The server's store waits 300 ms for a lock (10 s by default on SQLite).
    serverStore = await engine.openStore({ lockWaitMs: 300 });
    other = await engine.openStore();
  });
  const shortWait: EngineUnderTest = {
    name: engine.name,
    get store() {
      return serverStore;
    },
    openStore: (options) => engine.openStore(options),
  };
  const server = useServer(shortWait);
  const c = '/api/v1/collections';
  const token = () => server.acme.user.token;

  /**
   * Runs `work` while another connection imports into `name` with drop: its transaction (the
   * collection's row lock; SQLite's write lock) stays open until `work` ends.
   */
  async function duringImport<T>(name: string, work: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    async function* rows() {
      yield { imported: 1 };
      started();
      await released;
    }
    const actor = {
      accountId: server.acme.accountId,
      user: { id: server.acme.user.id, login: 'ann', isAdmin: false },
    };
    const importing = new CollectionService(other).importDocuments(actor, name, rows(), { drop: true });
    await Promise.race([holding, importing]);
    try {
      return await work();
    } finally {
      release();
      await importing;
    }
  }

  it('writes get 409 contention with Retry-After; reads and /health answer; after it, all works', async () => {
    const saved = await call(server.url, 'POST', `${c}/orders/documents`, {
      token: token(),
      body: [
        { _id: 'o1', n: 1 },
        { _id: 'o2', n: 2 },
      ],
    });
    expect(saved.status).toBe(201);
    await duringImport('orders', async () => {
      const t0 = Date.now();
      const writes = [
        call(server.url, 'POST', `${c}/orders/documents`, { token: token(), body: { n: 3 } }),
        call(server.url, 'PUT', `${c}/orders/documents/o1`, { token: token(), body: { n: 10 } }),
        call(server.url, 'DELETE', `${c}/orders/documents/o2`, { token: token() }),
        call(server.url, 'POST', `${c}/orders/update`, {
          token: token(),
          body: { query: { n: 1 }, update: { $set: { m: 1 } } },
        }),
        call(server.url, 'POST', `${c}/orders/remove`, { token: token(), body: { query: { n: 2 } } }),
        call(server.url, 'DELETE', `${c}/orders/documents`, { token: token() }),
      ];
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      for (const reply of await Promise.all(writes)) {
        expect(reply.body).toEqual(CONTENTION);
        expect(reply.headers.get('retry-after')).toBe('1');
      }
      expect(Date.now() - t0).toBeLessThan(5000);
      // Reads see the last commit.
      const read = await call(server.url, 'GET', `${c}/orders/documents`, { token: token() });
      expect(read.status).toBe(200);
      expect(read.body.items.map((d: { _id: string }) => d._id)).toEqual(['o1', 'o2']);
      const counted = await call(server.url, 'POST', `${c}/orders/count`, {
        token: token(),
        body: { query: { n: { $gt: 0 } } },
      });
      expect(counted.body).toEqual({ count: 2 });
      // SQLite locks the whole database for a write; PostgreSQL only the collection's row.
      const elsewhere = await call(server.url, 'POST', `${c}/other/documents`, {
        token: token(),
        body: { n: 1 },
      });
      if (engine.name === 'sqlite') expect(elsewhere.body).toEqual(CONTENTION);
      else expect(elsewhere.status).toBe(201);
    });
    const after = await call(server.url, 'GET', `${c}/orders/documents`, { token: token() });
    expect(after.body.items.map((d: { imported: number }) => d.imported)).toEqual([1]);
    const write = await call(server.url, 'POST', `${c}/orders/documents`, { token: token(), body: { n: 3 } });
    expect(write.status).toBe(201);
  });

  it('the functions in a template: save_object, update_objects and remove_objects name the contention', async () => {
    const ctx = createExecutionContext({
      accountId: server.acme.accountId,
      user: { id: server.acme.user.id, login: 'ann', isAdmin: false },
      platform: server.platform,
    } as Parameters<typeof createExecutionContext>[0]);
    await evaluate('${save_object({"n": 1}, "fn")?size}', ctx);
    await duringImport('fn', async () => {
      for (const [source, fn] of [
        ['${save_object({"n": 2}, "fn")?size}', 'save_object'],
        ['<#assign ch = {"$set": {"m": 1}}>${update_objects({"n": 1}, "ch", "fn")}', 'update_objects'],
        ['${remove_objects({"n": 1}, "fn")}', 'remove_objects'],
      ] as const) {
        let message = '';
        try {
          await evaluate(source, ctx);
        } catch (e) {
          message = (e as Error).message.split('\n')[0]!;
        }
        expect(message).toBe(`${fn}: ${CONTENTION.message}`);
      }
      const { output } = await evaluate('${count_objects({"n": 1}, "fn")}', ctx);
      expect(output).toBe('1');
    });
  });
});
