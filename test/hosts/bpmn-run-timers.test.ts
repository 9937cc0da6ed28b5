/**
 * `flowmark run FILE.bpmn` fires the timer events its request waits for (docs/hosts.md, "The command
 * line"): the built CLI in a child process, SQLite under FLOWMARK_DATA,
 * on the real clock (PT1S timers).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { anonymousRun, finished, flowmark, spawnFlowmark } from '../support/cli.js';
import { withEnv } from '../support/env.js';

/** A process of `body` (its flow nodes and flows) in a BPMN document. */
const model = (name: string, body: string) =>
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowmark="urn:flowmark:bpmn" id="Defs" targetNamespace="urn:flowmark:test">\n' +
  `  <bpmn:process id="P" name="${name}" isExecutable="true">\n${body}\n  </bpmn:process>\n</bpmn:definitions>\n`;

const timer = (duration: string) =>
  `<bpmn:timerEventDefinition><bpmn:timeDuration>${duration}</bpmn:timeDuration></bpmn:timerEventDefinition>`;

const USER_TASK =
  '<bpmn:userTask id="Approve" name="Approve"><bpmn:extensionElements><flowmark:field name="ok" /></bpmn:extensionElements></bpmn:userTask>';

/** start → Pause (timer) → Approve (user task) → Done → end. */
const pauseThenTask = (duration: string) =>
  model(
    'Pause then approve',
    `<bpmn:startEvent id="Start" />
    <bpmn:intermediateCatchEvent id="Pause" name="Pause">${timer(duration)}</bpmn:intermediateCatchEvent>
    ${USER_TASK}
    <bpmn:scriptTask id="Done" name="Done"><bpmn:script>ok=\${ok?c}</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="End" />
    <bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Pause" />
    <bpmn:sequenceFlow id="f2" sourceRef="Pause" targetRef="Approve" />
    <bpmn:sequenceFlow id="f3" sourceRef="Approve" targetRef="Done" />
    <bpmn:sequenceFlow id="f4" sourceRef="Done" targetRef="End" />`,
  );

/** start → Approve (user task, a PT1S timer boundary event → Remind → end) → Done → end. */
const remindOnTask = (interrupting: boolean) =>
  model(
    'Remind',
    `<bpmn:startEvent id="Start" />
    ${USER_TASK}
    <bpmn:boundaryEvent id="Late" name="Late" attachedToRef="Approve"${interrupting ? '' : ' cancelActivity="false"'}>${timer('PT1S')}</bpmn:boundaryEvent>
    <bpmn:scriptTask id="Remind" name="Remind"><bpmn:script>reminded</bpmn:script></bpmn:scriptTask>
    <bpmn:scriptTask id="Done" name="Done"><bpmn:script>approved</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="End" />
    <bpmn:endEvent id="Reminded" />
    <bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Approve" />
    <bpmn:sequenceFlow id="f2" sourceRef="Approve" targetRef="Done" />
    <bpmn:sequenceFlow id="f3" sourceRef="Done" targetRef="End" />
    <bpmn:sequenceFlow id="f4" sourceRef="Late" targetRef="Remind" />
    <bpmn:sequenceFlow id="f5" sourceRef="Remind" targetRef="Reminded" />`,
  );

describe('flowmark run FILE.bpmn fires its timer events', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowmark-bpmn-timers-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = () => ({ ...process.env, FLOWMARK_DATA: join(dir, 'data'), DATABASE_URL: '' });
  const run = (args: string[]) => flowmark(args, { env: env(), timeoutMs: 30_000 });
  const written = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const anonymous = anonymousRun;

  it('waits for an intermediate timer (PT1S), fires it, then answers the task it leads to', async () => {
    const file = written('pause.bpmn', pauseThenTask('PT1S'));
    const out = await run(['run', file, '--task', '{"ok": true}']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.ms).toBeGreaterThanOrEqual(1000);
    expect(anonymous(out.stdout)).toBe(
      '[<short>] started "Pause then approve"\n' +
        '[<short>] waits: manual task of step 1 at http://localhost:8080/live/default/task/<id>/1/0\n' +
        '[<short>] step 1 (Approve) done → {"ok":true}\n' +
        '[<short>] step 2 (Done) done → "ok=true"\n' +
        '[<short>] ended 201 COMPLETED\n' +
        'request <id>: 201 COMPLETED\n' +
        '{\n  "ok": true\n}\n',
    );
    // --quiet: the report only; without --task the run ends waiting for the task, after the timer
    const quiet = await run(['run', file, '--quiet']);
    expect(quiet.stderr).toBe('');
    expect(quiet.code).toBe(0);
    expect(anonymous(quiet.stdout)).toBe(
      'request <id>: 102 WAITING\nopen task: http://localhost:8080/live/default/task/<id>/1/0\n' +
        '  public URL (no login needed): http://localhost:8080/live/default/task/<id>/1/0?token=<token>\n' +
        '{}\n',
    );
  });

  it('fires a non-interrupting timer boundary event on a user task: its branch runs, the task stays open', async () => {
    const out = await run(['run', written('remind.bpmn', remindOnTask(false))]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.ms).toBeGreaterThanOrEqual(1000);
    expect(anonymous(out.stdout)).toBe(
      '[<short>] started "Remind"\n' +
        '[<short>] waits: manual task of step 1 at http://localhost:8080/live/default/task/<id>/1/0\n' +
        '[<short>] step 2 (Remind) done → "reminded"\n' +
        'request <id>: 102 WAITING\n' +
        'open task: http://localhost:8080/live/default/task/<id>/1/0\n' +
        '  public URL (no login needed): http://localhost:8080/live/default/task/<id>/1/0?token=<token>\n' +
        '{}\n',
    );
    // a task answered at once leaves the timer nothing to fire: no wait
    const answered = await run(['run', written('remind.bpmn', remindOnTask(false)), '--task', '{"ok": 1}']);
    expect(answered.code).toBe(0);
    expect(answered.ms).toBeLessThan(30_000);
    expect(anonymous(answered.stdout)).toBe(
      '[<short>] started "Remind"\n' +
        '[<short>] waits: manual task of step 1 at http://localhost:8080/live/default/task/<id>/1/0\n' +
        '[<short>] step 1 (Approve) done → {"ok":1}\n' +
        '[<short>] step 3 (Done) done → "approved"\n' +
        '[<short>] ended 201 COMPLETED\n' +
        'request <id>: 201 COMPLETED\n' +
        '{\n  "ok": 1\n}\n',
    );
  });

  it('fires an interrupting timer boundary event: the task is abandoned and the request goes on by the event', async () => {
    const out = await run(['run', written('late.bpmn', remindOnTask(true))]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(anonymous(out.stdout)).toBe(
      '[<short>] started "Remind"\n' +
        '[<short>] waits: manual task of step 1 at http://localhost:8080/live/default/task/<id>/1/0\n' +
        '[<short>] step 2 (Remind) done → "reminded"\n' +
        '[<short>] ended 201 COMPLETED\n' +
        'request <id>: 201 COMPLETED\n' +
        '{}\n',
    );
  });

  it('tells a long wait on stderr; Ctrl-C stops it, prints the request waiting and exits 130', async () => {
    const file = written('long.bpmn', pauseThenTask('PT1H'));
    const child = spawnFlowmark(['run', file, '--quiet'], { env: env(), detached: true });
    child.stdin.end();
    const done = finished(child, 30_000);
    let err = '';
    await new Promise<void>((resolve) =>
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
        if (err.includes('\n')) resolve();
      }),
    );
    process.kill(-child.pid!, 'SIGINT');
    const out = await done;
    expect(out.code).toBe(130);
    expect(
      anonymous(out.stdout + out.stderr).replace(/due at \d{4}-\d\d-\d\dT[\d:.]+Z/, 'due at <time>'),
    ).toBe(
      'request <id>: 102 WAITING\n{}\n' +
        'flowmark run: waiting 1h 0m 0s for intermediateCatchEvent Pause (Pause) (due at <time>); ' +
        'Ctrl-C stops waiting and leaves the request waiting in the store, where `flowmark serve` fires the timer\n' +
        'flowmark run: interrupted while waiting for intermediateCatchEvent Pause (Pause): request <id> stays waiting in the store\n',
    );
  });
  it('listens for Ctrl-C before it tells the wait: a Ctrl-C the moment the line is read leaves the request waiting', async () => {
    const file = written('told.bpmn', pauseThenTask('PT1H'));
    const before = process.listenerCount('SIGINT');
    let listening = -1;
    let stderr = '';
    let stdout = '';
    const stdoutStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        stdout += chunk.toString();
        done();
      },
    });
    const stderrStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        const line = chunk.toString();
        stderr += line;
        if (line.startsWith('flowmark run: waiting')) {
          listening = process.listenerCount('SIGINT') - before;
          // the reader's Ctrl-C, delivered as soon as the line is out
          process.emit('SIGINT', 'SIGINT');
          // a build that listens only later would wait an hour: interrupt it then, so the test reports why
          if (listening === 0) setImmediate(() => process.emit('SIGINT', 'SIGINT'));
        }
        done();
      },
    });
    const code = await withEnv({ FLOWMARK_DATA: join(dir, 'in-process'), DATABASE_URL: '' }, () =>
      main(['run', file, '--quiet'], {
        stdin: new PassThrough(),
        stdout: stdoutStream,
        stderr: stderrStream,
      }),
    );
    expect(listening).toBe(1);
    expect(code).toBe(130);
    expect(anonymous(stdout)).toBe('request <id>: 102 WAITING\n{}\n');
    expect(stderr).toContain(
      'flowmark run: interrupted while waiting for intermediateCatchEvent Pause (Pause)',
    );
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
