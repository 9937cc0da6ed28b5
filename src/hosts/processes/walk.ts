/**
 * Moves a request's tokens through the nodes of its graph that are not tasks (docs/hosts.md,
 * "The process graph"): gateways, end events, the forks and joins of parallel branches, until a
 * token stands before a task or a timer, ends, or arrives at a join. The tokens forks send out are
 * rows of their own (tokens.ts); joins are decided by the runner (joins.ts).
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
import { chooseFlows } from './inclusive.js';

export { nodeLabel } from './labels.js';

/**
 * Where the walk of one token stopped: before a task (its step id) or a timer, at an end event,
 * an error end event, or a join it arrives at. `state.tokens`: the tokens forks sent out on the
 * way, beside this one (they become rows and walk on their own).
 */
export type Arrival =
  | { kind: 'task'; step: number; state: TokenState }
  | { kind: 'end'; terminate?: true; state: TokenState }
  | { kind: 'error'; node: FlowNode; code: string }
  | { kind: 'timer'; node: FlowNode & { kind: 'timer' }; state: TokenState }
  | {
      kind: 'join';
      node: FlowNode & { kind: 'parallel' | 'inclusive' };
      flow: SequenceFlow;
      token: Token;
      state: TokenState;
    };

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
  return state;
}

/**
 * Moves one token: it leaves `from` (a start event, a task that ended, a boundary event that
 * caught, a join that went on) on `state.branch` — or, `from` being a token a fork sent out, takes
 * that token's flow — carrying `result` (its last task's result) to a join. At a fork the first
 * flow's token goes on and the others are sent out; the walk stops where the token does.
 * `holds` decides a gateway's conditional flow.
 */
export async function walk(
  index: GraphIndex,
  from: FlowNode | Token,
  state: TokenState,
  result: unknown,
  holds: (flow: SequenceFlow, gateway: FlowNode) => Promise<boolean>,
): Promise<Arrival> {
  const pending: Token[] = [...(state.tokens ?? [])];
  const params = state.params;
  let moving: Token[] = 'kind' in from ? await leaveFrom(index, from, state.branch, result, holds) : [from];
  let hops = 0;
  const rest = (branch: string | undefined): TokenState => {
    const next: TokenState = {};
    if (branch !== undefined) next.branch = branch;
    if (pending.length > 0) next.tokens = pending;
    if (params) next.params = params;
    return next;
  };
  for (;;) {
    const token = moving.shift();
    pending.unshift(...moving);
    moving = [];
    if (!token) return { kind: 'end', state: rest(undefined) };
    if (++hops > MAX_HOPS)
      throw new StepFailure(`the request passed ${MAX_HOPS} gateways and events without reaching a task`);
    const flow = index.flows.get(token.flow)!;
    const node = index.nodes.get(flow.target)!;
    if ((node.kind === 'parallel' || node.kind === 'inclusive') && index.incoming.get(node.id)!.length > 1)
      return { kind: 'join', node, flow, token, state: rest(token.branch) };
    switch (node.kind) {
      case 'timer':
        return { kind: 'timer', node, state: rest(token.branch) };
      case 'task':
        return { kind: 'task', step: node.step, state: rest(token.branch) };
      case 'end':
        if (node.error !== undefined) return { kind: 'error', node, code: node.error };
        if (node.terminate) return { kind: 'end', terminate: true, state: rest(token.branch) };
        return { kind: 'end', state: rest(token.branch) };
      case 'exclusive':
      case 'inclusive':
        moving = await leaveFrom(index, node, token.branch, token.result, holds);
        continue;
      case 'parallel':
      case 'start':
      case 'boundary-error':
      case 'boundary-timer':
        moving = leave(index, node, token.branch, token.result);
        continue;
    }
  }
}

/** The tokens leaving a node; a gateway with conditions takes the flows they choose. */
async function leaveFrom(
  index: GraphIndex,
  node: FlowNode,
  branch: string | undefined,
  result: unknown,
  holds: (flow: SequenceFlow, gateway: FlowNode) => Promise<boolean>,
): Promise<Token[]> {
  if (node.kind !== 'exclusive' && node.kind !== 'inclusive') return leave(index, node, branch, result);
  const outs = await chooseFlows(index, node, holds, node.kind === 'exclusive');
  return forks(outs, branch, result, node.kind === 'inclusive' && index.outgoing.get(node.id)!.length > 1);
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

/** The branch a join's token goes on on: the one its fork was on. */
export function parentBranch(branch: string | undefined): string | undefined {
  if (branch === undefined) return undefined;
  const cut = branch.lastIndexOf('/');
  return cut < 0 ? undefined : branch.slice(0, cut);
}
