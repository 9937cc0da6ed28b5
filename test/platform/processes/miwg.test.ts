/**
 * The BPMN MIWG reference models (test/fixtures/bpmn/miwg, CC BY 3.0, see ATTRIBUTION): each one
 * imports, exports and imports again with the same elements — as flowmark stores and exports it
 * (the document as it came) and as bpmn-moddle writes it back — and lists the same elements
 * outside the executable subset.
 */
import { readFileSync } from 'node:fs';
import { BpmnModdle, type ModdleElement } from 'bpmn-moddle';
import { describe, expect, it } from 'vitest';
import { readBpmn, writeBpmn } from '../../../src/platform/processes/bpmn/index.js';
import { parseDefinition } from '../../../src/platform/processes/index.js';

const MODELS = ['A.1.0', 'A.2.0', 'A.3.0', 'A.4.0', 'B.1.0', 'C.1.0'];
const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/bpmn/miwg/${name}.bpmn`, import.meta.url), 'utf8');

/** `type id` of every element of a model (by containment, references not followed), sorted. */
async function elements(xml: string): Promise<string[]> {
  const { rootElement } = await new BpmnModdle().fromXML(xml);
  const found: string[] = [];
  const seen = new Set<unknown>();
  const visit = (element: ModdleElement) => {
    if (seen.has(element)) return;
    seen.add(element);
    found.push(`${element.$type} ${element.id ?? ''}`);
    for (const [key, value] of Object.entries(element)) {
      if (key.startsWith('$')) continue;
      const list = Array.isArray(value) ? value : [value];
      for (const child of list)
        if (
          typeof child === 'object' &&
          child !== null &&
          '$type' in child &&
          (child as ModdleElement).$parent === element
        )
          visit(child as ModdleElement);
    }
  };
  visit(rootElement);
  return found.sort();
}

describe('BPMN MIWG reference models', () => {
  it.each(MODELS)('%s imports, exports and imports again with the same elements', async (name) => {
    const xml = fixture(name);
    const imported = parseDefinition(await readBpmn(xml));
    const exported = await writeBpmn(imported);
    expect(exported).toBe(xml);
    expect(parseDefinition(await readBpmn(exported))).toEqual(imported);
    // Written back by bpmn-moddle rather than kept as text: the same elements still.
    const before = await elements(xml);
    expect(before.length).toBeGreaterThan(10);
    const moddle = new BpmnModdle();
    const { xml: rewritten } = await moddle.toXML((await moddle.fromXML(xml)).rootElement, { format: true });
    expect(await elements(rewritten)).toEqual(before);
    expect((await readBpmn(rewritten)).unsupported).toEqual(
      imported.unsupported?.map((u) => ({ ...u, line: expect.any(Number) })),
    );
  });

  it('runs A.1.0 and A.2.0 (tasks, exclusive gateways) and lists what the others need', async () => {
    const read = async (name: string) => parseDefinition(await readBpmn(fixture(name)));
    expect((await read('A.1.0')).unsupported).toBeUndefined();
    expect((await read('A.2.0')).unsupported).toBeUndefined();
    expect((await read('A.2.0')).graph!.nodes.map((n) => n.kind)).toEqual([
      'start',
      'task',
      'end',
      'task',
      'task',
      'exclusive',
      'task',
      'exclusive',
    ]);
    expect((await read('A.3.0')).unsupported).toEqual([
      { type: 'bpmn:SubProcess', id: '_1ae31d1b-2559-4f78-a3ec-47986a49db48', line: 11 },
      {
        type: 'bpmn:BoundaryEvent (bpmn:MessageEventDefinition)',
        id: '_428dcbf5-8e5e-48e0-9c0c-d93003fa8c82',
        line: 15,
      },
      {
        type: 'bpmn:BoundaryEvent (bpmn:EscalationEventDefinition)',
        id: '_178e16eb-4c9e-4ea0-9644-7c5fb2b71825',
        line: 19,
      },
    ]);
    // Its tasks are in a lane without name, which no lane of an account (none given) matches by id.
    const lane = 'sid-744AEFB3-C93D-46A3-8976-EFA91784A51F';
    const inLane = `bpmn:Task (in bpmn:Lane "${lane}", line 88: no lane of the account is named "${lane}")`;
    expect((await read('C.1.0')).unsupported!.map((u) => u.type)).toEqual([
      'bpmn:Process',
      'bpmn:MessageFlow',
      'bpmn:MessageFlow',
      'bpmn:MessageFlow',
      'bpmn:MessageFlow',
      'bpmn:MessageFlow',
      'bpmn:StartEvent (bpmn:MessageEventDefinition)',
      inLane,
      inLane,
      'bpmn:IntermediateCatchEvent (bpmn:MessageEventDefinition)',
      inLane,
      'bpmn:EventBasedGateway',
      'bpmn:IntermediateCatchEvent (bpmn:MessageEventDefinition)',
      inLane,
      'bpmn:IntermediateCatchEvent (bpmn:TimerEventDefinition)',
    ]);
  });
});
