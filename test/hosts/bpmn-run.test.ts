/**
 * `flowmark run FILE.bpmn` through the built CLI (bin/flowmark.js in a child process, SQLite under
 * FLOWMARK_DATA): the same output, --quiet and exit codes as the same process written as JSON.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonymousRun, flowmark } from '../support/cli.js';

const fixture = (name: string) => new URL(`../fixtures/bpmn/${name}`, import.meta.url).pathname;

describe('flowmark run FILE.bpmn', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-bpmn-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** Runs the built CLI with its data in the suite's folder (SQLite). */
  const run = (args: string[]) =>
    flowmark(args, {
      env: { ...process.env, FLOWMARK_DATA: join(dir, 'data'), DATABASE_URL: '' },
      timeoutMs: 30_000,
    });
  /** Writes `text` as the model file `name` of the suite's folder and returns its path. */
  const written = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const anonymous = anonymousRun;

  it('runs a parallel fork whose timed branch waits while the other fails, is caught and reaches the join', async () => {
    const out = await run(['run', fixture('parallel-timer-error.bpmn')]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    // The timer holds its own branch only: the risky branch ran meanwhile and waited at the join;
    // `run` fired the timer (PT1S) and the timed branch completed the join.
    expect(out.ms).toBeGreaterThanOrEqual(1000);
    expect(anonymous(out.stdout)).toBe(
      '[<short>] started "Timer and error"\n' +
        '[<short>] step 2 (Risky) failed: The following has evaluated to null or missing:\n' +
        '==> missing  [in template "step 2 (Risky) script" at line 1, column 3]\n' +
        '[<short>] step 3 (Recover) done → "recovered"\n' +
        '[<short>] step 1 (Slow) done → "slow"\n' +
        '[<short>] step 4 (Both) done → "slow + recovered"\n' +
        '[<short>] ended 201 COMPLETED\n' +
        'request <id>: 201 COMPLETED\n' +
        '{}\n',
    );
  });

  it('runs a BPMN model exactly as the same process in JSON', async () => {
    const args = ['--data', '{"amount": 21}', '--task', '{"ok": true}'];
    const bpmn = await run(['run', fixture('approval.bpmn'), ...args]);
    const json = await run(['run', fixture('approval.json'), ...args]);
    expect(bpmn.stderr).toBe('');
    expect(bpmn.code).toBe(0);
    expect(anonymous(bpmn.stdout)).toBe(
      '[<short>] started "Approval"\n' +
        '[<short>] step 1 (Prepare) done → {"total":42}\n' +
        '[<short>] waits: manual task of step 2 at http://localhost:8080/live/default/task/<id>/2/0\n' +
        '[<short>] step 2 (Approve) done → {"ok":true}\n' +
        '[<short>] step 3 (Shout) done → "JS 42"\n' +
        '[<short>] ended 201 COMPLETED\n' +
        'request <id>: 201 COMPLETED\n' +
        '{\n  "amount": 21,\n  "total": 42,\n  "ok": true,\n  "approved": true\n}\n',
    );
    expect(json.code).toBe(0);
    expect(anonymous(json.stdout)).toBe(anonymous(bpmn.stdout));

    const quiet = await run(['run', fixture('approval.bpmn'), '--quiet', '--data', '{"amount": 1}']);
    const quietJson = await run(['run', fixture('approval.json'), '--quiet', '--data', '{"amount": 1}']);
    expect(quiet.code).toBe(0);
    expect(anonymous(quiet.stdout)).toBe(
      'request <id>: 102 WAITING\nopen task: http://localhost:8080/live/default/task/<id>/2/0\n' +
        '  public URL (no login needed): http://localhost:8080/live/default/task/<id>/2/0?token=<token>\n' +
        '{\n  "amount": 1,\n  "total": 2\n}\n',
    );
    expect(anonymous(quietJson.stdout)).toBe(anonymous(quiet.stdout));
  });

  it('refuses a model with elements outside the executable subset, naming each with its line', async () => {
    const refused = await run(['run', fixture('unsupported.bpmn')]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'flowmark run: process "Odd" cannot run: outside the executable subset: bpmn:ScriptTask (scriptFormat "groovy") "Work" (line 6), ' +
        'bpmn:ComplexGateway "Tangle" (line 9), bpmn:MultiInstanceLoopCharacteristics (no loopCardinality nor flowmark:collection) "Plain" (line 10), bpmn:IntermediateCatchEvent (bpmn:TimerEventDefinition) "Wait" (line 13)\n',
    );
    const broken = written('broken.bpmn', '<definitions');
    const malformed = await run(['run', broken]);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(/^flowmark run: PROCESS\.bpmn: BPMN document: /);
  });

  it('runs an inclusive gateway: every branch whose condition holds, joined; the default flow when none does', async () => {
    const both = await run([
      'run',
      fixture('inclusive.bpmn'),
      '--data',
      '{"email": "a@b.c", "phone": "555"}',
    ]);
    expect(both.stderr).toBe('');
    expect(both.code).toBe(0);
    expect(anonymous(both.stdout)).toBe(
      '[<short>] started "Notify"\n' +
        '[<short>] step 1 (Mail) done → "mail to a@b.c"\n' +
        '[<short>] step 2 (Sms) done → "sms to 555"\n' +
        '[<short>] step 4 (Report) done → "mail to a@b.c / sms to 555 / -"\n' +
        '[<short>] ended 201 COMPLETED\n' +
        'request <id>: 201 COMPLETED\n' +
        '{\n  "email": "a@b.c",\n  "phone": "555",\n  "report": "mail to a@b.c / sms to 555 / -"\n}\n',
    );
    const none = await run(['run', fixture('inclusive.bpmn'), '--quiet']);
    expect(none.code).toBe(0);
    expect(anonymous(none.stdout)).toBe(
      'request <id>: 201 COMPLETED\n{\n  "report": "- / - / nobody to tell"\n}\n',
    );
    const noDefault = written(
      'no-default.bpmn',
      readFileSync(fixture('inclusive.bpmn'), 'utf8')
        .replace(' default="none"', '')
        .replace('<bpmn:sequenceFlow id="none" sourceRef="Channels" targetRef="Log" />', ''),
    );
    const failed = await run(['run', noDefault, '--quiet']);
    expect(failed.code).toBe(1);
    expect(anonymous(failed.stdout)).toBe(
      'request <id>: 301 ABORTED\nP_message: inclusiveGateway Channels (Channels?): no condition of its outgoing flows is true and it has no default flow\n{}\n',
    );
  });

  it('runs a sequential multi-instance task over a collection, its instances in turn with P_index and P_item', async () => {
    const looped = written(
      'looped.bpmn',
      readFileSync(fixture('inclusive.bpmn'), 'utf8').replace(
        '<bpmn:scriptTask id="Mail" name="Mail"><bpmn:script>mail to ${email}</bpmn:script>',
        '<bpmn:scriptTask id="Mail" name="Mail"><bpmn:multiInstanceLoopCharacteristics isSequential="true" flowmark:collection="${email}" /><bpmn:script>${P_index}: mail to ${P_item}</bpmn:script>',
      ),
    );
    const ran = await run(['run', looped, '--data', '{"email": ["a@b.c", "d@e.f"]}']);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(anonymous(ran.stdout)).toBe(
      '[<short>] started "Notify"\n' +
        '[<short>] step 1 (Mail) done → "0: mail to a@b.c"\n' +
        '[<short>] step 1 (Mail) #1 done → "1: mail to d@e.f"\n' +
        '[<short>] step 4 (Report) done → "1: mail to d@e.f / - / -"\n' +
        '[<short>] ended 201 COMPLETED\n' +
        'request <id>: 201 COMPLETED\n' +
        '{\n  "email": [\n    "a@b.c",\n    "d@e.f"\n  ],\n  "report": "1: mail to d@e.f / - / -"\n}\n',
    );
  });

  it('refuses a timer boundary event whose duration is not one, naming the event and its line', async () => {
    const bad = written(
      'bad-timer.bpmn',
      readFileSync(fixture('approval.bpmn'), 'utf8').replace(
        '</bpmn:process>',
        '<bpmn:boundaryEvent id="Late" attachedToRef="Approve"><bpmn:timerEventDefinition><bpmn:timeDuration>two days</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>\n</bpmn:process>',
      ),
    );
    const refused = await run(['run', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'flowmark run: PROCESS.bpmn: BPMN document: boundaryEvent "Late" (line 26): its timer "two days" is not a duration (90s, 15m, 2h, 1d, PT1H30M), an ISO-8601 date-time nor a template\n',
    );
  });

  it('runs the MIWG reference model A.1.0 and refuses A.3.0, naming what it cannot run', async () => {
    const miwg = (name: string) => fixture(`miwg/${name}.bpmn`);
    const a1 = await run(['run', miwg('A.1.0')]);
    expect(a1.code).toBe(0);
    expect(anonymous(a1.stdout)).toBe(
      '[<short>] started "A.1.0"\n' +
        '[<short>] step 1 (Task 1) done → {}\n' +
        '[<short>] step 2 (Task 2) done → {}\n' +
        '[<short>] step 3 (Task 3) done → {}\n' +
        '[<short>] ended 201 COMPLETED\n' +
        'request <id>: 201 COMPLETED\n{}\n',
    );
    const a3 = await run(['run', miwg('A.3.0')]);
    expect(a3.code).toBe(1);
    expect(a3.stderr).toBe(
      'flowmark run: process "A.3.0" cannot run: outside the executable subset: ' +
        'bpmn:SubProcess "_1ae31d1b-2559-4f78-a3ec-47986a49db48" (line 11), ' +
        'bpmn:BoundaryEvent (bpmn:MessageEventDefinition) "_428dcbf5-8e5e-48e0-9c0c-d93003fa8c82" (line 15), ' +
        'bpmn:BoundaryEvent (bpmn:EscalationEventDefinition) "_178e16eb-4c9e-4ea0-9644-7c5fb2b71825" (line 19)\n',
    );
  });
});
