/**
 * Time zones of cron timer start events through the store, on both engines (docs/hosts.md, "Time
 * zones of cron cycles"): a cron cycle reads in its `timezone` (BPMN `flowmark:timezone`), else the
 * account's time zone, else UTC; the saved trigger's next tick and the tick after a claim follow
 * the zone's clock across a daylight-saving change. A zone that is none is refused when saved.
 */
import { beforeAll, expect, it } from 'vitest';
import { createPlatform, type Platform } from '../../../src/platform/index.js';
import { readBpmn } from '../../../src/platform/processes/bpmn/index.js';
import { describeEachEngine } from '../../support/engines.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? ms : new Date(ms).toISOString();

function nightly(name: string, timer: Record<string, string>) {
  return {
    name,
    steps: [{ id: 1, script: 'tick' }],
    graph: {
      nodes: [
        { id: 'Daily', kind: 'start', timer },
        { id: 't', kind: 'task', step: 1 },
        { id: 'e', kind: 'end' },
      ],
      flows: [
        { id: 'f1', source: 'Daily', target: 't' },
        { id: 'f2', source: 't', target: 'e' },
      ],
    },
  };
}

const bpmn = (zone: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowmark="urn:flowmark:bpmn" id="d" targetNamespace="urn:x">
  <bpmn:process id="P" name="New York morning" isExecutable="true">
    <bpmn:startEvent id="Daily">
      <bpmn:timerEventDefinition flowmark:timezone="${zone}"><bpmn:timeCycle>0 9 * * *</bpmn:timeCycle></bpmn:timerEventDefinition>
    </bpmn:startEvent>
    <bpmn:scriptTask id="T"><bpmn:script>tick</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="E" />
    <bpmn:sequenceFlow id="f1" sourceRef="Daily" targetRef="T" />
    <bpmn:sequenceFlow id="f2" sourceRef="T" targetRef="E" />
  </bpmn:process>
</bpmn:definitions>
`;

describeEachEngine('cron timer start events in a time zone', (engine) => {
  let now = at('2026-03-28T10:00:00Z');
  let platform: Platform;
  beforeAll(async () => {
    platform = createPlatform(engine.store, { clock: () => now });
    await platform.accounts.create({ id: 'paris', name: 'Paris', timeZone: 'Europe/Paris' });
    await platform.accounts.create({ id: 'plain', name: 'Plain' });
  });

  it("reads a cron cycle without a zone in the account's time zone, across its DST change", async () => {
    now = at('2026-03-28T10:00:00Z');
    const { definitions, triggers } = platform.processes;
    const saved = await definitions.create('paris', nightly('Morning', { cycle: '0 9 * * *' }));
    expect(saved.definition.graph!.nodes[0]).toEqual({
      id: 'Daily',
      kind: 'start',
      timer: { cycle: '0 9 * * *' },
    });
    let trigger = (await triggers.find(saved.id))!;
    expect(trigger.timer).toEqual({ cycle: '0 9 * * *', timezone: 'Europe/Paris' });
    // Europe/Paris goes from +01:00 to +02:00 at 2026-03-29T01:00Z: 09:00 is 07:00Z from then on.
    expect(iso(trigger.nextAt)).toBe('2026-03-29T07:00:00.000Z');
    now = trigger.nextAt!;
    expect(await triggers.claim(trigger, 'server-a', now)).toBe(true);
    trigger = (await triggers.find(saved.id))!;
    expect(iso(trigger.nextAt)).toBe('2026-03-30T07:00:00.000Z');
    // Autumn: back to +01:00 on 2026-10-25 at 01:00Z.
    now = at('2026-10-24T12:00:00Z');
    const autumn = await definitions.create('paris', nightly('Autumn', { cycle: '0 9 * * *' }));
    trigger = (await triggers.find(autumn.id))!;
    expect(iso(trigger.nextAt)).toBe('2026-10-25T08:00:00.000Z');
    now = trigger.nextAt!;
    expect(await triggers.claim(trigger, 'server-a', now)).toBe(true);
    expect(iso((await triggers.find(autumn.id))!.nextAt)).toBe('2026-10-26T08:00:00.000Z');
  });

  it('an account in UTC (the default) reads it in UTC; a timezone of its own wins over the account', async () => {
    now = at('2026-03-28T10:00:00Z');
    const { definitions, triggers } = platform.processes;
    const utc = await definitions.create('plain', nightly('Morning', { cycle: '0 9 * * *' }));
    expect((await triggers.find(utc.id))!.timer).toEqual({ cycle: '0 9 * * *', timezone: 'UTC' });
    expect(iso((await triggers.find(utc.id))!.nextAt)).toBe('2026-03-29T09:00:00.000Z');
    // BPMN flowmark:timezone: America/New_York is at -04:00 since 2026-03-08.
    const ny = await definitions.create('paris', await readBpmn(bpmn('America/New_York')));
    expect(ny.definition.graph!.nodes[0]).toMatchObject({
      timer: { cycle: '0 9 * * *', timezone: 'America/New_York' },
    });
    const trigger = (await triggers.find(ny.id))!;
    expect(trigger.timer).toEqual({ cycle: '0 9 * * *', timezone: 'America/New_York' });
    expect(iso(trigger.nextAt)).toBe('2026-03-28T13:00:00.000Z');
    // A repetition keeps no zone (it carries its offsets).
    const hourly = await definitions.create('paris', nightly('Hourly', { cycle: 'R/PT1H' }));
    expect((await triggers.find(hourly.id))!.timer).toEqual({ cycle: 'R/PT1H' });
  });

  it('refuses a zone that is none, or on a timer that is not a cron cycle, naming the start event', async () => {
    const { definitions } = platform.processes;
    await expect(definitions.create('paris', await readBpmn(bpmn('Mars/Olympus')))).rejects.toThrow(
      'process definition.graph.nodes[0].timer.timezone: the time zone "Mars/Olympus" of start event "Daily" is not an IANA time zone (Europe/Paris, America/New_York, UTC)',
    );
    await expect(
      definitions.create('paris', nightly('Hourly in Paris', { cycle: 'R/PT1H', timezone: 'Europe/Paris' })),
    ).rejects.toThrow(
      'process definition.graph.nodes[0].timer.timezone: start event "Daily": a time zone applies to a cron timeCycle only (a date, a duration and a repetition carry their offsets)',
    );
    expect(await definitions.find('paris', 'Hourly in Paris')).toBeUndefined();
  });
});
