/**
 * What the BPMN suites share: the pieces of a model written as XML (one process, its script tasks,
 * sequence flows and timer boundary events) and starting a model through a process host.
 */
import type { ProcessHost } from '../../src/hosts/index.js';
import { readBpmn } from '../../src/platform/processes/bpmn/index.js';

export const BPMN_NS =
  'xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowmark="urn:flowmark:bpmn" targetNamespace="urn:test"';

/** A BPMN document of one process `name` with the elements `body`; `declarations` (errors …) go before it. */
export const bpmnModel = (name: string, body: string, declarations = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions ${BPMN_NS} id="D_${name}">
${declarations}  <bpmn:process id="${name}" name="${name}" isExecutable="true">
${body}
  </bpmn:process>
</bpmn:definitions>`;

/** A script task; `format` becomes its scriptFormat, `extra` goes before its script (a loop marker …). */
export const scriptTask = (id: string, template: string, options: { format?: string; extra?: string } = {}) =>
  `<bpmn:scriptTask id="${id}" name="${id}"${options.format ? ` scriptFormat="${options.format}"` : ''}>${
    options.extra ?? ''
  }<bpmn:script>${template}</bpmn:script></bpmn:scriptTask>`;

/** A sequence flow, with a condition expression and a name when given. */
export const sequenceFlow = (id: string, from: string, to: string, condition?: string, name?: string) =>
  `<bpmn:sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}"${name ? ` name="${name}"` : ''}>${
    condition === undefined ? '' : `<bpmn:conditionExpression>${condition}</bpmn:conditionExpression>`
  }</bpmn:sequenceFlow>`;

/** A timer boundary event on `on` waiting `wait` (a duration or template), interrupting unless told. */
export const timerBoundary = (id: string, on: string, wait: string, interrupting = true) =>
  `<bpmn:boundaryEvent id="${id}" name="${id}" attachedToRef="${on}"${interrupting ? '' : ' cancelActivity="false"'}>` +
  `<bpmn:timerEventDefinition><bpmn:timeDuration>${wait}</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>`;

/** Starts the model `xml` in TEST mode, anonymously, with `data`, and returns the request's view. */
export async function startModel(
  w: { host: ProcessHost; account: string },
  xml: string,
  data: Record<string, unknown> = {},
) {
  return w.host.start(w.account, { definition: await readBpmn(xml), data, user: null, mode: 'TEST' });
}

/** [stepId, status, result] of each step record, in order. */
export const stepResults = (view: { steps: { stepId: number; status: string; result: unknown }[] }) =>
  view.steps.map((s) => [s.stepId, s.status, s.result]);
