/**
 * Scripts through the real HTTP server (POST /api/v1/eval), on both engines: a script's runaway
 * loop or memory growth ends with its error while the server keeps answering other requests, and
 * a script sees only its own account.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeScripts, configureScripts, type ScriptSettings } from '../../src/script/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';
import { scriptTag } from './support.js';

let before: ScriptSettings;
beforeAll(() => {
  before = configureScripts();
  configureScripts({ limits: { cpuTimeMs: 400, memoryBytes: 8 * 1024 * 1024 } });
});
afterAll(async () => {
  configureScripts({ limits: before.limits });
  await closeScripts();
});

describeEachEngine('scripts over HTTP', (engine) => {
  const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));
  const evaluate = (template: string, who: 'acme' | 'globex' = 'acme') =>
    call(server.url, 'POST', '/api/v1/eval', { token: server[who].admin.token, body: { template } });

  it('runs a script with the caller’s account, user and mode', async () => {
    const r = await evaluate(
      scriptTag(
        'RMPCollection.save({item: "pen"}, "shared"); RMPData.setOutput([RMPData.getCurrentUser().login, RMPData.getInternalParameter("P_customer"), RMPCollection.count({item: "pen"}, "shared")])',
      ),
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.output)).toEqual(['admin', 'acme', 1]);
    const other = await evaluate(
      scriptTag('RMPData.setOutput(RMPCollection.find({item: "pen"}, "shared"))'),
      'globex',
    );
    expect(other.body.output).toBe('[]');
  });

  it('keeps serving while a script loops, and reports the limit that stopped it', async () => {
    let loopEnded = Infinity;
    const looping = evaluate('before\n' + scriptTag('while (true) {}')).then((r) => {
      loopEnded = performance.now();
      return r;
    });
    await new Promise((r) => setTimeout(r, 50)); // the loop is running
    for (let i = 0; i < 5; i++) {
      const r = await evaluate('${1 + 1}');
      expect(r.body.output).toBe('2');
    }
    // Five requests answered while the script was still looping.
    const quickEnded = performance.now();
    const r = await looping;
    expect(quickEnded).toBeLessThan(loopEnded);
    expect(r.status).toBe(200);
    expect(r.body.error).toMatchObject({ line: 2, column: 1 });
    expect(r.body.error.message).toMatch(
      /^script stopped: it ran for more than 400 ms of computing \(cpuTimeMs\)/,
    );
    const health = await call(server.url, 'GET', '/health');
    expect(health.status).toBe(200);
  });

  it('ends memory growth at the memory limit, then serves the next script', async () => {
    // 100,000 numbers a push: the limit comes after a few pushes, long before the CPU time limit on a busy machine
    const r = await evaluate(scriptTag('const a = [];\nfor (;;) a.push(new Array(100000).fill(a.length));'));
    expect(r.body.error.message).toMatch(
      /^script stopped: it needed more than 8 MiB of memory \(memoryBytes\)/,
    );
    const next = await evaluate(scriptTag('RMPData.setOutput("fine")'));
    expect(next.body.output).toBe('fine');
  });
});
