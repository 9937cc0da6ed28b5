/**
 * `flowmark run` of a model whose start event starts requests by itself (docs/hosts.md,
 * "Triggers"), through the built CLI (bin/flowmark.js in a child process, SQLite under
 * FLOWMARK_DATA): it runs once, at once, as if the timer fired or the message (`--data`) came,
 * and says so on stderr; stdout is the usual report. A bad timer is refused (exit 1).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowmark } from '../support/cli.js';

const fixture = (name: string) => new URL(`../fixtures/bpmn/${name}`, import.meta.url).pathname;

describe('flowmark run of a timer or message start event', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-triggers-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = () => ({ ...process.env, FLOWMARK_DATA: join(dir, 'data'), DATABASE_URL: '' });
  const anonymous = (text: string) => {
    const id = /request (\S+): /.exec(text)?.[1];
    return id === undefined ? text : text.replaceAll(id, '<id>').replaceAll(id.slice(0, 8), '<short>');
  };

  it('a timer start event: the model runs once, now, and stderr says so', async () => {
    const run = await flowmark(['run', fixture('timer-start.bpmn'), '--mode', 'LIVE'], {
      env: env(),
      timeoutMs: 30_000,
    });
    expect(run.stderr).toBe(
      'flowmark run: start event "EveryNight" (timeCycle "0 2 * * *") fired once, now; stored with POST /api/v1/processes, its timer starts requests by itself\n',
    );
    expect(run.code).toBe(0);
    expect(anonymous(run.stdout)).toBe(
      '[<short>] started "Nightly report"\n' +
        '[<short>] step 1 (Report) done → "report of LIVE"\n' +
        '[<short>] ended 201 COMPLETED\n' +
        'request <id>: 201 COMPLETED\n' +
        '{}\n',
    );
  });

  it('a message start event: --data is the message, the model runs once and stderr says so', async () => {
    const run = await flowmark(
      ['run', fixture('message-start.bpmn'), '--data', '{"item": "pen", "qty": 3}', '--quiet'],
      { env: env(), timeoutMs: 30_000 },
    );
    expect(run.stderr).toBe(
      'flowmark run: start event "OrderIn" (message "order-received") received --data as the message, once; stored with POST /api/v1/processes, POST /api/v1/messages/order-received starts it\n',
    );
    expect(run.code).toBe(0);
    expect(anonymous(run.stdout)).toBe('request <id>: 201 COMPLETED\n{\n  "item": "pen",\n  "qty": 3\n}\n');
  });

  it('a timer start event whose cycle is faster than once a minute is refused, naming it (exit 1)', async () => {
    const file = join(dir, 'fast.bpmn');
    writeFileSync(file, readFileSync(fixture('timer-start.bpmn'), 'utf8').replace('0 2 * * *', 'R/PT10S'));
    const run = await flowmark(['run', file], { env: env(), timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'flowmark run: process definition.graph.nodes[0].timer.cycle: the timeCycle "R/PT10S" of start event "EveryNight" repeats every 10 s, more often than once a minute\n',
    );
  });
});
