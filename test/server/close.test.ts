/**
 * Closing the server while a client keeps its connection open (a browser's keep-alive): the
 * request in flight is answered, then the connection is closed and the close completes, instead
 * of waiting for the client to let go (a minute and more: the console's phone test once hung
 * there).
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/index.js';
import { createServer } from '../../src/server/index.js';
import { describeEachEngine } from '../support/engines.js';

/** GET over `agent`: the status, once the body is read. */
function get(agent: http.Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describeEachEngine('server: close', (engine) => {
  it('answers the request in flight, then closes the connection its client keeps alive', async () => {
    const app = await createServer({ store: engine.store, platform: createPlatform(engine.store) });
    let arrived!: () => void;
    const inFlight = new Promise<void>((r) => (arrived = r));
    app.get('/test/slow', { config: { access: 'public' } }, async () => {
      arrived();
      await sleep(300);
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const agent = new http.Agent({ keepAlive: true });
    try {
      const answered = get(agent, `http://127.0.0.1:${address.port}/test/slow`);
      await inFlight;
      const closed = app.close().then(() => 'closed');
      expect(await answered).toBe(200);
      expect(await Promise.race([closed, sleep(10_000).then(() => 'still open')])).toBe('closed');
    } finally {
      agent.destroy();
      await app.close();
    }
  });
});
