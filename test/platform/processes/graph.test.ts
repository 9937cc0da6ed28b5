/** The internal graph: a JSON list of steps as a linear graph, and a definition's own graph checked. */
import { describe, expect, it } from 'vitest';
import { graphOf, linearGraph, parseDefinition } from '../../../src/platform/processes/index.js';

const steps = [
  { id: 1, script: 'a' },
  { id: 7, script: 'b' },
];

describe('process graph', () => {
  it('makes a list of steps a linear graph from a start event to an end event', () => {
    expect(linearGraph([1, 7])).toEqual({
      nodes: [
        { id: 'StartEvent_1', kind: 'start' },
        { id: 'Step_1', kind: 'task', step: 1 },
        { id: 'Step_7', kind: 'task', step: 7 },
        { id: 'EndEvent_1', kind: 'end' },
      ],
      flows: [
        { id: 'Flow_1', source: 'StartEvent_1', target: 'Step_1' },
        { id: 'Flow_2', source: 'Step_1', target: 'Step_7' },
        { id: 'Flow_3', source: 'Step_7', target: 'EndEvent_1' },
      ],
    });
    const definition = parseDefinition({ name: 'p', steps });
    expect(definition.graph).toBeUndefined();
    expect(graphOf(definition)).toEqual(linearGraph([1, 7]));
  });

  it('keeps a definition given with its graph', () => {
    const graph = {
      nodes: [
        { id: 's', kind: 'start' },
        { id: 'g', kind: 'exclusive', default: 'f3' },
        { id: 't1', kind: 'task', step: 1 },
        { id: 't7', kind: 'task', step: 7, name: 'Seven' },
        { id: 'e', kind: 'end' },
      ],
      flows: [
        { id: 'f1', source: 's', target: 'g' },
        { id: 'f2', source: 'g', target: 't1', condition: '${(x > 1)?c}' },
        { id: 'f3', source: 'g', target: 't7' },
        { id: 'f4', source: 't1', target: 'e' },
        { id: 'f5', source: 't7', target: 'e' },
      ],
    };
    expect(parseDefinition({ name: 'p', steps, graph }).graph).toEqual(graph);
  });

  it('names what is wrong in a graph, with its path', () => {
    const refuse = (graph: unknown) => () => parseDefinition({ name: 'p', steps, graph });
    const nodes = [
      { id: 's', kind: 'start' },
      { id: 't1', kind: 'task', step: 1 },
      { id: 't7', kind: 'task', step: 7 },
    ];
    expect(refuse({ nodes: [...nodes, { id: 'x', kind: 'lasso' }], flows: [] })).toThrow(
      'process definition.graph.nodes[3].kind: must be one of start, end, task, exclusive, parallel, boundary-error, timer, boundary-timer, inclusive, not "lasso"',
    );
    expect(refuse({ nodes, flows: [{ id: 'f', source: 's', target: 'nowhere' }] })).toThrow(
      'process definition.graph.flows[0].target: "nowhere" is not a flow node of this graph',
    );
    expect(refuse({ nodes: nodes.slice(1), flows: [] })).toThrow(
      'process definition.graph.nodes: must have exactly one start event, not 0',
    );
    expect(refuse({ nodes: nodes.slice(0, 2), flows: [] })).toThrow(
      'process definition.graph.nodes: step 7 is on no task node',
    );
    expect(refuse({ nodes: [...nodes, { id: 't', kind: 'task', step: 9 }], flows: [] })).toThrow(
      'process definition.graph.nodes[3].step: step 9 is not a step of this process',
    );
    expect(refuse({ nodes: [...nodes, { id: 's', kind: 'end' }], flows: [] })).toThrow(
      'process definition.graph.nodes[3].id: id "s" is used twice',
    );
    expect(refuse({ nodes: [...nodes, { id: 'g', kind: 'exclusive', default: 'f9' }], flows: [] })).toThrow(
      'process definition.graph.nodes[3].default: "f9" is not a sequence flow leaving g',
    );
    expect(
      refuse({ nodes: [...nodes, { id: 'b', kind: 'boundary-error', attachedTo: 's' }], flows: [] }),
    ).toThrow('process definition.graph.nodes[3].attachedTo: "s" is not a task node of this graph');
    expect(refuse({ nodes: [...nodes, { id: 'g', kind: 'inclusive', default: 'f9' }], flows: [] })).toThrow(
      'process definition.graph.nodes[3].default: "f9" is not a sequence flow leaving g',
    );
    expect(
      refuse({
        nodes: [...nodes, { id: 'b', kind: 'boundary-timer', attachedTo: 's', wait: '1h' }],
        flows: [],
      }),
    ).toThrow('process definition.graph.nodes[3].attachedTo: "s" is not a task node of this graph');
    expect(
      refuse({
        nodes: [
          ...nodes,
          { id: 'b', kind: 'boundary-timer', attachedTo: 't7', wait: '1h', interrupting: 'no' },
        ],
        flows: [],
      }),
    ).toThrow('process definition.graph.nodes[3].interrupting: must be true or false');
    expect(() =>
      parseDefinition({ name: 'p', steps: [{ id: 1, retry: { attempts: 0, backoff: '1s' } }] }),
    ).toThrow('process definition.steps[0].retry.attempts: must be a whole number from 1 to 100, not 0');
    expect(() =>
      parseDefinition({ name: 'p', steps: [{ id: 1, retry: { attempts: 2, backoff: 'soon' } }] }),
    ).toThrow('process definition.steps[0].retry.backoff: must be a duration (90s, 15m, PT2S), not "soon"');
  });
});
