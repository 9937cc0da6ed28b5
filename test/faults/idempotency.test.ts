/**
 * `POST /api/v1/requests` with an `Idempotency-Key` (docs/server.md): a client that retries — after
 * a 503, a reset or a lost answer — gets the request its first call started, never a second one.
 */
import { request as httpRequest } from 'node:http';
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { sql } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';

const GATED = {
  name: 'gated',
  steps: [
    { id: 1, name: 'One', input: { gate: '${R_lock("gate", 20000)}${R_unlock("gate")}' }, script: '1' },
  ],
};

describeEachEngine('idempotent request starts', (engine) => {
  const server = useServer(engine, (platform) => ({ hosts: createHosts(platform, { routeCacheMs: 0 }) }));
  const admin = () => server.acme.admin.token;
  const start = (key: string | undefined, body: Record<string, unknown>, token = server.acme.user.token) =>
    call(server.url, 'POST', '/api/v1/requests', {
      token,
      body,
      ...(key !== undefined ? { headers: { 'idempotency-key': key } } : {}),
    });
  const stored = async (key: string) =>
    Number(
      (await engine.store.get<{ n: number }>(
        sql`SELECT COUNT(*) AS n FROM requests WHERE account_id = 'acme' AND idempotency_key = ${key}`,
      ))!.n,
    );

  it('a retry with the same key answers the same request; another key or caller starts another', async () => {
    const definition = { name: 'simple', steps: [{ id: 1, script: '1' }] };
    expect(
      (await call(server.url, 'POST', '/api/v1/processes', { token: admin(), body: definition })).status,
    ).toBe(201);
    const first = await start('order-42', { process: 'simple', data: { n: 1 } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await start('order-42', { process: 'simple', data: { n: 1 } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await stored('order-42')).toBe(1);

    const other = await start('order-43', { process: 'simple', data: { n: 1 } });
    expect(other.body.id).not.toBe(first.body.id);
    const byAdmin = await start('order-42', { process: 'simple', data: { n: 1 } }, admin());
    expect(byAdmin.body.id).not.toBe(first.body.id);
    expect(byAdmin.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses the key with another body, and a key that is not visible ASCII', async () => {
    const changed = await start('order-42', { process: 'simple', data: { n: 2 } });
    expect(changed.body).toEqual({
      status: 409,
      code: 'conflict',
      message: 'Idempotency-Key "order-42" was used for another request (another process, mode or data)',
    });
    const bad = await start('two words', { process: 'simple' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('headers/idempotency-key must match pattern "^[\\x21-\\x7E]+$"');
  });

  it('the same key sent many times at once starts one request', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => start('burst-1', { process: 'simple', data: { burst: true } })),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await stored('burst-1')).toBe(1);
  });

  it('a client that lost the answer and retries gets the request its first call started', async () => {
    expect(
      (await call(server.url, 'POST', '/api/v1/processes', { token: admin(), body: GATED })).status,
    ).toBe(201);
    const { locks } = server.platform;
    expect(await locks.tryAcquire('acme', 'gate', 'test', Date.now(), Date.now() + 60_000)).toBe(true);
    // The first call's connection is dropped while its request runs (waiting at the gate).
    const body = JSON.stringify({ process: 'gated' });
    const lost = httpRequest(`${server.url}/api/v1/requests`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.acme.user.token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'idempotency-key': 'lost-1',
      },
    });
    const dropped = new Promise<string>((resolve) => {
      lost.on('response', () => resolve('answered'));
      lost.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    });
    lost.end(body);
    for (let i = 0; (await stored('lost-1')) === 0; i++) {
      if (i > 200) throw new Error('the first call stored no request');
      await new Promise((r) => setTimeout(r, 20));
    }
    lost.destroy();
    expect(await dropped).toBe('ECONNRESET');
    await locks.release('acme', 'gate', 'test');
    const retried = await start('lost-1', { process: 'gated' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(await stored('lost-1')).toBe(1);
  });
});
