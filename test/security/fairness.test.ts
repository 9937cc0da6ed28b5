/**
 * One account flooding the script sandbox with endless scripts does not starve another account:
 * an account runs at most its share of the workers, queues at most `accountQueue` more (beyond it a
 * script fails at once with a clear error, 429 + Retry-After on a composite API), and a freed worker
 * goes to the next account in turn. A low CPU-time limit keeps the endless scripts short.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { createHosts } from '../../src/hosts/index.js';
import { replaceText } from '../../src/platform/files/index.js';
import {
  closeScripts,
  configureScripts,
  runScript,
  ScriptBusyError,
  type ScriptSettings,
} from '../../src/script/index.js';
import { TemplateError } from '../../src/template/index.js';
import { call, useServer } from '../server/support.js';
import { describeEachEngine } from '../support/engines.js';

const ENDLESS = 'while (true) {}';
const TRIVIAL = 'RMPData.setOutput("done")';

let before: ScriptSettings;
beforeAll(() => {
  before = configureScripts();
});
afterEach(async () => {
  await closeScripts();
});
afterAll(() => {
  configureScripts({
    limits: before.limits,
    workers: before.workers,
    accountWorkers: null,
    accountQueue: before.accountQueue,
  });
});

const ctxOf = (accountId: string) => createExecutionContext({ accountId });

/** Runs a script of `account`, recording when it settles. */
function submit(account: string, source: string, order: string[]) {
  return runScript(source, { ctx: ctxOf(account) }).then(
    (r) => {
      order.push(`${account}:ok`);
      return r;
    },
    (e: unknown) => {
      order.push(`${account}:${e instanceof ScriptBusyError ? 'refused' : 'stopped'}`);
      return e;
    },
  );
}

describe('script workers shared between accounts', () => {
  it("caps an account's share and queue: its overflow is refused at once, another account runs now", async () => {
    configureScripts({ workers: 4, accountQueue: 6, limits: { cpuTimeMs: 400, wallTimeMs: 30_000 } });
    const order: string[] = [];
    // 2 run (half of 4 workers), 6 wait, 4 are refused.
    const flood = Array.from({ length: 12 }, () => submit('acme', ENDLESS, order));
    const refused = (await Promise.all(flood.slice(8))) as ScriptBusyError[];
    for (const e of refused) {
      expect(e).toBeInstanceOf(ScriptBusyError);
      expect(e.message).toBe(
        '<@script>: account "acme" already has 6 scripts waiting (the limit per account); try again later',
      );
      expect(e.kind).toBe('busy');
      expect(e.retryAfterSeconds).toBe(1);
    }
    expect(order).toEqual(['acme:refused', 'acme:refused', 'acme:refused', 'acme:refused']);

    const started = performance.now();
    const other = await submit('globex', TRIVIAL, order);
    expect(other).toMatchObject({ output: 'done' });
    expect(performance.now() - started).toBeLessThan(5_000);
    // globex did not wait for any of acme's endless scripts.
    expect(order.slice(4)).toEqual(['globex:ok']);

    await Promise.all(flood);
    expect(order.filter((o) => o === 'acme:stopped')).toHaveLength(8);
  }, 30_000);

  it('gives a freed worker to the next account in turn, not to the longest queue', async () => {
    // acme may take every worker; globex's script then waits for one turn only.
    configureScripts({
      workers: 2,
      accountWorkers: 2,
      accountQueue: 32,
      limits: { cpuTimeMs: 300, wallTimeMs: 30_000 },
    });
    const order: string[] = [];
    const flood = Array.from({ length: 8 }, () => submit('acme', ENDLESS, order));
    await new Promise((r) => setTimeout(r, 50));
    const other = submit('globex', TRIVIAL, order);
    expect(await other).toMatchObject({ output: 'done' });
    // Behind the two scripts running when it came, at most: first in line after them.
    expect(order.indexOf('globex:ok')).toBeLessThanOrEqual(2);
    await Promise.all(flood);
    expect(order).toHaveLength(9);
  }, 30_000);

  it('is a script error the template sees, which <#attempt> can recover', async () => {
    configureScripts({ workers: 2, accountQueue: 0, limits: { cpuTimeMs: 300 } });
    const flood = Array.from({ length: 2 }, () => submit('acme', ENDLESS, []));
    await new Promise((r) => setTimeout(r, 50));
    const template = '<@script env="js">RMPData.setOutput(1)</@script>';
    const failed = await evaluate(template, ctxOf('acme')).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(TemplateError);
    expect((failed as TemplateError).cause).toBeInstanceOf(ScriptBusyError);
    expect((failed as TemplateError).message.split('\n')[0]).toBe(
      '<@script>: account "acme" already has 0 scripts waiting (the limit per account); try again later',
    );
    const recovered = await evaluate(
      `<#attempt>${template}<#recover>later: \${.error?keep_before("(")}</#attempt>`,
      ctxOf('acme'),
    );
    expect(recovered.output).toBe('later: <@script>: account "acme" already has 0 scripts waiting ');
    await Promise.all(flood);
  }, 30_000);
});

describe("file_replace's regex worker shared between accounts", () => {
  const swap = {
    search: '(\\w)(\\w)',
    replacement: '$2$1',
    regex: true,
    first: false,
    ignoreCase: false,
    multiline: false,
    dotAll: false,
  };
  const slow = 'ab'.repeat(1_000_000); // well over the 300 ms bound below: each is stopped

  it("takes the accounts in turn and caps one account's queue", async () => {
    const limits = { maxPatternLength: 100, regexTimeoutMs: 300, accountQueue: 4 };
    const order: string[] = [];
    const settle = (account: string, p: Promise<string>) =>
      p.then(
        (text) => {
          order.push(`${account}:ok`);
          return text;
        },
        (e: Error) => {
          order.push(`${account}:${/waiting/.test(e.message) ? 'refused' : 'stopped'}`);
          return e;
        },
      );
    // One runs, four wait, one is refused.
    const flood = Array.from({ length: 6 }, () => settle('acme', replaceText(slow, swap, limits, 'acme')));
    const refused = (await flood[5]) as Error;
    expect(refused.message).toBe(
      'account "acme" already has 4 replacements waiting (the limit per account); try again later',
    );
    const other = await settle('globex', replaceText('abcd', swap, limits, 'globex'));
    expect(other).toBe('badc');
    // After acme's running replacement only, not after its four waiting ones.
    expect(order).toEqual(['acme:refused', 'acme:stopped', 'globex:ok']);
    await Promise.all(flood);
    expect(order.filter((o) => o === 'acme:stopped')).toHaveLength(5);
  }, 30_000);
});

describeEachEngine('a full queue over HTTP', (engine) => {
  const server = useServer(engine, (platform) => ({ hosts: createHosts(platform) }));

  it('answers 429 with Retry-After on a composite API', async () => {
    configureScripts({ workers: 2, accountQueue: 0, limits: { cpuTimeMs: 300 } });
    const token = server.acme.admin.token;
    const created = await call(server.url, 'POST', '/api/v1/composite-apis', {
      token,
      body: { method: 'GET', path: 'one', template: '<@script env="js">RMPData.setOutput(1)</@script>' },
    });
    expect(created.status).toBe(201);
    const flood = Array.from({ length: 2 }, () => submit('acme', ENDLESS, []));
    await new Promise((r) => setTimeout(r, 50));
    const r = await call(server.url, 'GET', '/live/acme/composite/one', { token });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body).toEqual({
      status: 429,
      code: 'too-many-scripts',
      message:
        '<@script>: account "acme" already has 0 scripts waiting (the limit per account); try again later',
    });
    await Promise.all(flood);
    const after = await call(server.url, 'GET', '/live/acme/composite/one', { token });
    expect(after).toMatchObject({ status: 200, body: '1' });
  }, 30_000);
});
