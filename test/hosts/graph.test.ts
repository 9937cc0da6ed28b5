/**
 * Requests of definitions given with their graph (docs/hosts.md, "The process graph"), through
 * the host API on every engine: the runner follows the sequence flows, not the order of the steps.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { hostWorld, stepsOf, type HostWorld } from './support.js';

describeEachEngine('process graph', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });

  it('runs the steps in the order of the sequence flows', async () => {
    const view = await w.host.start(w.account, {
      definition: {
        name: 'Backwards',
        steps: [
          { id: 1, input: { trace: '${trace}1' } },
          { id: 2, input: { trace: '${trace}2' } },
        ],
        graph: {
          nodes: [
            { id: 'start', kind: 'start' },
            { id: 'one', kind: 'task', step: 1 },
            { id: 'two', kind: 'task', step: 2 },
            { id: 'end', kind: 'end' },
          ],
          flows: [
            { id: 'a', source: 'start', target: 'two' },
            { id: 'b', source: 'two', target: 'one' },
            { id: 'c', source: 'one', target: 'end' },
          ],
        },
      },
      data: { trace: 'x' },
      user: null,
      mode: 'TEST',
    });
    expect(view.request.status).toBe(201);
    expect(view.request.data).toEqual({ trace: 'x21' });
    expect(stepsOf(view)).toEqual([
      [2, 0, 'done'],
      [1, 0, 'done'],
    ]);
  });
});
