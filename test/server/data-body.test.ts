/**
 * The routes that take a data document admit a body of the data document's maximum (5 MiB by
 * default) plus the 1 MiB of every other route: a request with a 3 MiB data document starts over
 * REST; a document over its maximum is refused with its own error; a body past both, and a body
 * over 1 MiB on another route, answer 413.
 */
import { expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

const MiB = 1024 * 1024;
const TOO_LARGE = { status: 413, code: 'too-large', message: 'Request body is too large' };

describeEachEngine('server: the bodies that carry a data document', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;

  it('starts a request with a 3 MiB data document, and refuses one over 5 MiB with its size', async () => {
    const made = await call(server.url, 'POST', '/api/v1/processes', {
      token: admin(),
      body: { name: 'big', steps: [{ id: 1, type: 'manual' }] },
    });
    expect(made.status).toBe(201);
    const blob = 'x'.repeat(3 * MiB);
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: admin(),
      body: { process: 'big', data: { blob } },
    });
    expect(started.status).toBe(201);
    const read = await call(server.url, 'GET', `/api/v1/requests/${started.body.id}`, { token: admin() });
    expect((read.body.data as { blob: string }).blob).toBe(blob);

    const over = { blob: 'x'.repeat(5 * MiB) };
    const refused = await call(server.url, 'POST', '/api/v1/requests', {
      token: admin(),
      body: { process: 'big', data: over },
    });
    expect(refused.body).toEqual({
      status: 400,
      code: 'invalid',
      message: `the data document has ${5 * MiB + 11} bytes, over its maximum of ${5 * MiB} bytes`,
    });

    const past = await call(server.url, 'POST', '/api/v1/requests', {
      token: admin(),
      body: { process: 'big', data: { blob: 'x'.repeat(6 * MiB) } },
    });
    expect(past.body).toEqual(TOO_LARGE);
  });

  it('keeps 1 MiB for a route without a data document', async () => {
    const r = await call(server.url, 'POST', '/api/v1/processes', {
      token: admin(),
      body: { name: 'large', steps: [{ id: 1, name: 'One', script: 'x'.repeat(MiB) }] },
    });
    expect(r.body).toEqual(TOO_LARGE);
  });

  it('evaluates a template over a 3 MiB data document (POST /eval)', async () => {
    const r = await call(server.url, 'POST', '/api/v1/eval', {
      token: admin(),
      body: { template: '${blob?length?c}', data: { blob: 'y'.repeat(3 * MiB) } },
    });
    expect(r.status).toBe(200);
    expect(r.body.output).toBe(String(3 * MiB));
  });
});
