/**
 * Joins of parallel branches whose tokens are rows (docs/hosts.md, "Tokens, joins and recovery"):
 * when a join goes on, what its token carries (P_branch_<name>, its branch); whether a token may
 * still reach a join (an inclusive join waits for such tokens only).
 */
import type { FlowNode, GraphIndex, JoinArrival, RunCursor } from '../../platform/processes/index.js';
import { parentBranch } from './walk.js';

/** Whether a parallel join has a token from every incoming flow; an inclusive join: whether none of `others` can still come. */
export function joinComplete(
  index: GraphIndex,
  steps: readonly { id: number }[],
  node: FlowNode & { kind: 'parallel' | 'inclusive' },
  arrivals: readonly JoinArrival[],
  others: readonly RunCursor[],
): boolean {
  if (node.kind === 'parallel') {
    const arrived = new Set(arrivals.filter((a) => a.node === node.id).map((a) => a.arrival));
    return index.incoming.get(node.id)!.every((f) => arrived.has(f.id));
  }
  return !others.some((cursor) => mayReach(index, steps, cursor, node.id));
}

/** The parameters and branch of the token a join sends on: P_branch_<name> per arrival. */
export function joined(
  arrivals: readonly JoinArrival[],
  node: string,
): { params: Record<string, unknown>; branch: string | undefined } {
  const here = arrivals.filter((a) => a.node === node);
  const params: Record<string, unknown> = {};
  for (const arrival of here)
    params[`P_branch_${arrival.branch?.split('/').pop() ?? arrival.arrival}`] = arrival.result;
  return { params, branch: parentBranch(here[here.length - 1]?.branch) };
}

/** Whether a token (its cursor) may still arrive at `target`, through tasks, boundary events and gateways. */
export function mayReach(
  index: GraphIndex,
  steps: readonly { id: number }[],
  cursor: RunCursor,
  target: string,
): boolean {
  const step = steps[cursor.step];
  const at =
    cursor.flow !== undefined
      ? index.flows.get(cursor.flow)?.target
      : cursor.at !== undefined
        ? cursor.at
        : step && index.taskOfStep.get(step.id)?.id;
  if (at === undefined) return false;
  const seen = new Set<string>();
  const queue = [at];
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    if (id === target && !(cursor.at === target && id === at)) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const out of index.outgoing.get(id) ?? []) queue.push(out.target);
    for (const boundary of [...(index.boundaries.get(id) ?? []), ...(index.timers.get(id) ?? [])])
      queue.push(boundary.id);
  }
  return false;
}
