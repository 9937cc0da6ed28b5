/**
 * The inclusive gateway (docs/hosts.md, "The process graph"). As a fork it takes every outgoing
 * flow whose condition holds (a flow without a condition holds), else its default flow. As a join
 * it goes on once no other token of the request can still reach it (joins.ts): the branches its
 * fork did not start never come, and a branch that left for an end event elsewhere is not waited for.
 */
import type { FlowNode, GraphIndex, SequenceFlow } from '../../platform/processes/index.js';
import { StepFailure } from './failure.js';
import { nodeLabel } from './labels.js';

/** The flows an inclusive (or exclusive: `first`) gateway takes, in document order. */
export async function chooseFlows(
  index: GraphIndex,
  gateway: FlowNode & { kind: 'exclusive' | 'inclusive' },
  holds: (flow: SequenceFlow, gateway: FlowNode) => Promise<boolean>,
  first: boolean,
): Promise<SequenceFlow[]> {
  const outs = index.outgoing.get(gateway.id)!;
  if (outs.length === 1) return outs;
  const chosen: SequenceFlow[] = [];
  for (const out of outs)
    if (out.id !== gateway.default && (out.condition === undefined || (await holds(out, gateway)))) {
      chosen.push(out);
      if (first) break;
    }
  if (chosen.length === 0) {
    const fallback = outs.find((o) => o.id === gateway.default);
    if (!fallback)
      throw new StepFailure(
        `${nodeLabel(gateway)}: no condition of its outgoing flows is true and it has no default flow`,
      );
    chosen.push(fallback);
  }
  return chosen;
}
