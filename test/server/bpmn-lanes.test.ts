/**
 * BPMN lanes as flowmark lanes over the REST API, on both engines (docs/hosts.md, "Lanes"): a task
 * in a `bpmn:lane` runs in the account's lane of that name (else id), resolved when the model is
 * saved; a lane no flowmark lane matches is listed when saved and refused when run, naming the
 * lane, the task and their lines; a JSON definition's lanes export as a lane set and save back.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { createHosts } from '../../src/hosts/index.js';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/bpmn/${name}`, import.meta.url), 'utf8');

describeEachEngine('server: BPMN lanes', (engine) => {
  const server = useServer(engine, (platform) => ({
    hosts: { ...evalHost(platform), ...createHosts(platform, { routeCacheMs: 0 }) },
  }));
  const admin = () => server.acme.admin.token;
  const xml = (body: string) => ({ token: admin(), body, headers: { 'content-type': 'application/xml' } });
  let staff = 0;
  let approvers = 0;

  beforeAll(async () => {
    const { lanes } = server.platform.directory;
    const pool = await lanes.createPool('acme', { name: 'Company' });
    staff = (await lanes.createLane('acme', pool.id, { name: 'Staff' })).id;
    approvers = (await lanes.createLane('acme', pool.id, { name: 'Approvers' })).id;
    await lanes.addMember('acme', approvers, 'LIVE', server.acme.admin.id);
    // Another account's lane of the same name is never matched.
    const other = await lanes.createPool('globex', { name: 'Company' });
    await lanes.createLane('globex', other.id, { name: 'Staff' });
  });

  it('puts each task in the lane its bpmn:lane names (by name, else id); only its users submit it', async () => {
    const created = await call(server.url, 'POST', '/api/v1/processes', xml(fixture('lanes.bpmn')));
    expect(created.status).toBe(201);
    expect(created.body.unsupported).toEqual([]);
    expect(created.body.definition.steps.map((s: { id: number; lane: number }) => [s.id, s.lane])).toEqual([
      [1, staff],
      [2, approvers],
    ]);
    const started = await call(server.url, 'POST', '/api/v1/requests', {
      token: admin(),
      body: { process: 'Expense', mode: 'LIVE' },
    });
    expect(started.body.status).toBe(102);
    const path = `/live/acme/task/${started.body.id}/2/0`;
    const outside = await call(server.url, 'GET', path, { token: server.acme.user.token });
    expect(outside.body).toEqual({
      status: 403,
      code: 'not-allowed',
      message: `Only a user of lane ${approvers} may open this task.`,
    });
    const inside = await call(server.url, 'GET', path, { token: admin() });
    expect(inside.body).toMatchObject({ stepId: 2, status: 'OPEN' });
  });

  it('lists a lane that names no lane of the account when saved, and refuses to run it', async () => {
    const model = fixture('lanes.bpmn')
      .replace('name="Expense"', 'name="Unknown lane"')
      .replace('name="Staff"', 'name="Clerks"');
    const created = await call(server.url, 'POST', '/api/v1/processes', xml(model));
    expect(created.status).toBe(201);
    const why = 'in bpmn:Lane "Lane_staff", line 7: no lane of the account is named "Clerks"';
    expect(created.body.unsupported).toEqual([{ type: `bpmn:ScriptTask (${why})`, id: 'Claim', line: 17 }]);
    expect(created.body.findings).toContainEqual(
      expect.objectContaining({ id: 'Claim', message: expect.stringContaining(why) }),
    );
    expect(created.body.trigger).toBeNull();
    const refused = await call(server.url, 'POST', '/api/v1/requests', {
      token: admin(),
      body: { process: 'Unknown lane', mode: 'LIVE' },
    });
    expect(refused.body).toEqual({
      status: 400,
      code: 'invalid',
      message: `process "Unknown lane" cannot run: outside the executable subset: bpmn:ScriptTask (${why}) "Claim" (line 17)`,
    });
    // Two lanes of that name: the bpmn:lane must say which (flowmark:lane), and then runs.
    const pool = await server.platform.directory.lanes.createPool('acme', { name: 'Second' });
    const twin = await server.platform.directory.lanes.createLane('acme', pool.id, { name: 'Staff' });
    const twice = await call(
      server.url,
      'PUT',
      `/api/v1/processes/${created.body.id}`,
      xml(model.replace('name="Clerks"', 'name="Staff"')),
    );
    expect(twice.body.unsupported).toEqual([
      {
        type: `bpmn:ScriptTask (in bpmn:Lane "Lane_staff", line 7: 2 lanes of the account are named "Staff" (${staff}, ${twin.id}): give the one with flowmark:lane="<id>" on the bpmn:lane)`,
        id: 'Claim',
        line: 17,
      },
    ]);
    const chosen = await call(
      server.url,
      'PUT',
      `/api/v1/processes/${created.body.id}`,
      xml(model.replace('name="Clerks"', `name="Staff" flowmark:lane="${twin.id}"`)),
    );
    expect(chosen.body.unsupported).toEqual([]);
    expect(chosen.body.definition.steps[0].lane).toBe(twin.id);
  });

  it('exports the lanes of a JSON definition as a lane set in a pool, which saves back as the same steps', async () => {
    const definition = {
      name: 'Laned',
      steps: [
        { id: 1, name: 'Fill', script: '${1}', lane: staff },
        { id: 2, type: 'manual', name: 'Check', lane: approvers, fields: ['ok'] },
        { id: 3, name: 'Archive', script: '${3}' },
      ],
    };
    const created = await call(server.url, 'POST', '/api/v1/processes', { token: admin(), body: definition });
    expect(created.status).toBe(201);
    const exported = await call(server.url, 'GET', `/api/v1/processes/${created.body.id}?format=bpmn`, {
      token: admin(),
    });
    const text = exported.body as string;
    expect(text).toContain('<bpmn:participant id="Participant_1" name="Laned" processRef="Process_1" />');
    expect(text).toContain(`<bpmn:lane id="Lane_${staff}" name="Staff" flowmark:lane="${staff}">`);
    expect(text).toContain(
      `<bpmn:lane id="Lane_${approvers}" name="Approvers" flowmark:lane="${approvers}">`,
    );
    expect(text).toContain(
      `<bpmn:flowNodeRef>StartEvent_1</bpmn:flowNodeRef>\n        <bpmn:flowNodeRef>Step_1</bpmn:flowNodeRef>`,
    );
    expect(text).toContain('<bpmndi:BPMNPlane id="BPMNPlane_1" bpmnElement="Collaboration_1">');
    expect(text).toContain(
      `<bpmndi:BPMNShape id="Lane_${approvers}_di" bpmnElement="Lane_${approvers}" isHorizontal="true">`,
    );
    // Archive has no lane: in the pool, outside both lanes.
    expect(text).not.toMatch(/<bpmn:flowNodeRef>Step_3</);
    const again = await call(
      server.url,
      'PUT',
      `/api/v1/processes/${created.body.id}`,
      xml(text.replace('name="Laned"', 'name="Laned again"')),
    );
    expect(again.status).toBe(200);
    expect(again.body.unsupported).toEqual([]);
    expect(again.body.definition.steps).toEqual(created.body.definition.steps);
  });
});
