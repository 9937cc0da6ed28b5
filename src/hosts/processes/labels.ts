import type { FlowNode } from '../../platform/processes/index.js';

/** `exclusiveGateway Gateway_1 (Approved?)`: how errors name a node. */
export function nodeLabel(node: FlowNode): string {
  const type = {
    start: 'startEvent',
    end: 'endEvent',
    task: 'task',
    exclusive: 'exclusiveGateway',
    parallel: 'parallelGateway',
    'boundary-error': 'boundaryEvent',
    timer: 'intermediateCatchEvent',
    'boundary-timer': 'boundaryEvent',
    inclusive: 'inclusiveGateway',
  }[node.kind];
  return `${type} ${node.id}${node.name ? ` (${node.name})` : ''}`;
}
