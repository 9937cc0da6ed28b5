/**
 * What keeps a definition from running to its end within one call (a composite API's process,
 * docs/hosts.md "Composite APIs"): elements outside the executable subset, and every node that
 * would wait — a user task, a call activity, an intermediate timer, a timer boundary event.
 */
import type { ProcessDefinition } from './definition.js';
import { graphOf, type FlowNode } from './graph.js';

/** `process "Odd" cannot run: outside the executable subset: bpmn:ComplexGateway "Tangle" (line 9), …`, or undefined. */
export function outsideSubset(definition: ProcessDefinition): string | undefined {
  const list = unsupportedList(definition);
  if (list === undefined) return undefined;
  return `process ${JSON.stringify(definition.name)} cannot run: outside the executable subset: ${list}`;
}

/** `bpmn:ComplexGateway "Tangle" (line 9), …` (at most 20), or undefined when none. */
function unsupportedList(definition: ProcessDefinition): string | undefined {
  const list = definition.unsupported ?? [];
  if (list.length === 0) return undefined;
  const named = list
    .slice(0, 20)
    .map((e) => `${e.type} ${JSON.stringify(e.id)}${e.line === null ? '' : ` (line ${e.line})`}`);
  if (list.length > 20) named.push(`… and ${list.length - 20} more`);
  return named.join(', ');
}

/** The BPMN name of the first node of the definition that would wait (`userTask Step_2 (Approve)`), or undefined. */
export function waitingNode(definition: ProcessDefinition): string | undefined {
  for (const node of graphOf(definition).nodes) {
    const label = waitLabel(definition, node);
    if (label !== undefined) return label;
  }
  return undefined;
}

function waitLabel(definition: ProcessDefinition, node: FlowNode): string | undefined {
  const named = (type: string, name: string | undefined) => `${type} ${node.id}${name ? ` (${name})` : ''}`;
  switch (node.kind) {
    case 'task': {
      const step = definition.steps.find((s) => s.id === node.step);
      if (step?.type === 'manual') return named('userTask', node.name ?? step.name);
      if (step?.type === 'subprocess') return named('callActivity', node.name ?? step.name);
      return undefined;
    }
    case 'timer':
      return named('intermediateCatchEvent', node.name);
    case 'boundary-timer':
      return named('boundaryEvent', node.name);
    default:
      return undefined;
  }
}

/**
 * Why a definition cannot answer a composite API (its process runs to its end within the call),
 * without the process's name; undefined when it can.
 */
export function synchronousRefusal(definition: ProcessDefinition): string | undefined {
  const outside = unsupportedList(definition);
  if (outside !== undefined) return `outside the executable subset: ${outside}`;
  const waits = waitingNode(definition);
  if (waits === undefined) return undefined;
  return `${waits} waits, and a composite API's process runs to its end within the call (no user tasks, call activities or timers)`;
}
