/**
 * Moves a request's tokens through the nodes of its graph that are not tasks (docs/hosts.md,
 * "The process graph"): gateways, end events, the forks and joins of parallel branches, until a
 * token stands before a task or the last token ends. The tokens not moving wait in the run's
 * cursor (`tokens`, `joins`): they are durable with it.
 */
import type {
  FlowNode,
  GraphIndex,
  RunCursor,
  SequenceFlow,
  TokenState,
  Token,
} from '../../platform/processes/index.js';
import { StepFailure } from './failure.js';
import { chooseFlows, joinReady } from './inclusive.js';
import { nodeLabel } from './labels.js';

export { nodeLabel } from './labels.js';

/** Where the walk stopped: before a task (its step id), at the end, or at an error end event. */
export type Arrival =
  | { kind: 'task'; step: number; state: TokenState }
  | { kind: 'end' }
  | { kind: 'error'; node: FlowNode; code: string }
  | { kind: 'timer'; node: FlowNode & { kind: 'timer' }; state: TokenState };

/** The most nodes one walk passes (a loop of gateways without a task would never stop). */
const MAX_HOPS = 10_000;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A branch's name: its flow's name when that is an identifier, else its id with other characters as `_`. */
export function branchName(flow: SequenceFlow): string {
  if (flow.name !== undefined && IDENTIFIER.test(flow.name)) return flow.name;
  return flow.id.replace(/[^A-Za-z0-9_]/g, '_');
}

/** The token state a cursor carries (what a walk starts from). */
export function tokenState(cursor: RunCursor): TokenState {
  const state: TokenState = {};
  if (cursor.branch !== undefined) state.branch = cursor.branch;
  if (cursor.tokens && cursor.tokens.length > 0) state.tokens = cursor.tokens;
  if (cursor.joins && Object.keys(cursor.joins).length > 0) state.joins = cursor.joins;
  return state;
}

/**
 * Leaves `from` (a start event, a task that ended, a boundary event that caught) with the token
 * of `state.branch`; `result` is what that token carries to a join (its last task's result).
 * `holds` decides an exclusive gateway's conditional flow.
 */
export async function walk(
  index: GraphIndex,
  from: FlowNode,
  state: TokenState,
  result: unknown,
  holds: (flow: SequenceFlow, gateway: FlowNode) => Promise<boolean>,
): Promise<Arrival> {
  const pending: Token[] = [...(state.tokens ?? [])];
  const joins = structuredClone(state.joins ?? {});
  let params = state.params;
  let moving: Token[] = leave(index, from, state.branch, result);
  let hops = 0;
  for (;;) {
    if (moving.length === 0) {
      // An inclusive join that waits goes on once no live token can reach it any more.
      const ready = Object.keys(joins).find(
        (id) => index.nodes.get(id)?.kind === 'inclusive' && joinReady(index, id, pending),
      );
      if (ready !== undefined) {
        const released = join(ready, joins);
        params = released.params;
        moving = leave(index, index.nodes.get(ready)!, released.branch, released.result);
        continue;
      }
    }
    const token = moving.shift() ?? pending.shift();
    pending.unshift(...moving);
    moving = [];
    if (!token) {
      const waiting = Object.keys(joins)[0];
      if (waiting !== undefined)
        throw new StepFailure(
          `${nodeLabel(index.nodes.get(waiting)!)}: the request's other branches ended without reaching it`,
        );
      return { kind: 'end' };
    }
    if (++hops > MAX_HOPS)
      throw new StepFailure(`the request passed ${MAX_HOPS} gateways and events without reaching a task`);
    const flow = index.flows.get(token.flow)!;
    const node = index.nodes.get(flow.target)!;
    switch (node.kind) {
      case 'timer':
      case 'task': {
        const next: TokenState = {};
        if (token.branch !== undefined) next.branch = token.branch;
        if (pending.length > 0) next.tokens = pending;
        if (Object.keys(joins).length > 0) next.joins = joins;
        if (params) next.params = params;
        if (node.kind === 'timer') return { kind: 'timer', node, state: next };
        return { kind: 'task', step: node.step, state: next };
      }
      case 'end':
        if (node.error !== undefined) return { kind: 'error', node, code: node.error };
        if (node.terminate) return { kind: 'end' };
        continue;
      case 'exclusive': {
        const [chosen] = await chooseFlows(index, node, holds, true);
        moving = [{ ...token, flow: chosen!.id }];
        continue;
      }
      case 'inclusive': {
        let branch = token.branch;
        let result = token.result;
        if (index.incoming.get(node.id)!.length > 1) {
          const arrived = (joins[node.id] ??= {});
          arrived[token.branch ?? branchName(flow)] = {
            ...(token.branch !== undefined ? { branch: token.branch } : {}),
            result: token.result ?? null,
          };
          if (!joinReady(index, node.id, pending)) continue;
          const released = join(node.id, joins);
          ({ params, branch, result } = released);
        }
        const outs = await chooseFlows(index, node, holds, false);
        moving = forks(outs, branch, result, index.outgoing.get(node.id)!.length > 1);
        continue;
      }
      case 'parallel': {
        const ins = index.incoming.get(node.id)!;
        let branch = token.branch;
        if (ins.length > 1) {
          const arrived = (joins[node.id] ??= {});
          arrived[flow.id] = {
            ...(token.branch !== undefined ? { branch: token.branch } : {}),
            result: token.result ?? null,
          };
          if (ins.some((f) => !(f.id in arrived))) continue;
          delete joins[node.id];
          params = {};
          for (const f of ins) {
            const arrival = arrived[f.id]!;
            const name = arrival.branch?.split('/').pop() ?? branchName(f);
            params[`P_branch_${name}`] = arrival.result;
          }
          branch = parentBranch(token.branch);
        }
        moving = leave(index, node, branch, token.result);
        continue;
      }
      case 'start':
      case 'boundary-error':
      case 'boundary-timer':
        moving = leave(index, node, token.branch, token.result);
        continue;
    }
  }
}

/** The tokens leaving a node: one per outgoing flow; several fork into named branches. */
function leave(index: GraphIndex, node: FlowNode, branch: string | undefined, result: unknown): Token[] {
  const outs = index.outgoing.get(node.id)!;
  return forks(outs, branch, result, outs.length > 1);
}

/** One token per flow taken; `fork`: each on a branch of its own, named by its flow. */
function forks(
  outs: readonly SequenceFlow[],
  branch: string | undefined,
  result: unknown,
  fork: boolean,
): Token[] {
  const carried = result === undefined ? {} : { result };
  if (!fork)
    return outs.map((f) => ({ flow: f.id, ...(branch !== undefined ? { branch } : {}), ...carried }));
  return outs.map((f) => ({
    flow: f.id,
    branch: branch === undefined ? branchName(f) : `${branch}/${branchName(f)}`,
    ...carried,
  }));
}

/** An inclusive join goes on: its arrivals become P_branch_<name>, the token leaves on the forking branch. */
function join(
  id: string,
  joins: NonNullable<TokenState['joins']>,
): { params: Record<string, unknown>; branch: string | undefined; result: unknown } {
  const arrivals = Object.entries(joins[id]!);
  delete joins[id];
  const params: Record<string, unknown> = {};
  for (const [key, arrival] of arrivals)
    params[`P_branch_${arrival.branch?.split('/').pop() ?? key}`] = arrival.result;
  const last = arrivals[arrivals.length - 1]![1];
  return { params, branch: parentBranch(last.branch), result: last.result };
}

function parentBranch(branch: string | undefined): string | undefined {
  if (branch === undefined) return undefined;
  const cut = branch.lastIndexOf('/');
  return cut < 0 ? undefined : branch.slice(0, cut);
}
