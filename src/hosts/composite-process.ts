/**
 * A composite API's process (docs/hosts.md, "Composite APIs"): a stored process run to its end
 * inside the call's evaluation — in memory, with the call's context and budget, nothing stored —
 * whose final data document the route's response template reads as P_computed.
 *
 * The graph runs as a request's does (walk.ts: gateways, parallel and inclusive forks and joins,
 * end events), with its script tasks only: input variables, script, output variables (typing
 * rule), loops, retries and error boundary events as the process runner has them. A node that
 * would wait (user task, call activity, timer) fails the call, naming it.
 */
import type { ExecutionContext } from '../functions/context.js';
import { internalParameterScope, type EvaluationState } from '../functions/request/index.js';
import { BudgetExceededError, type Budget } from '../limits/index.js';
import {
  DEFINITION_LIMITS,
  GraphIndex,
  graphIndexOf,
  parseDuration,
  synchronousRefusal,
  type FlowNode,
  type ProcessDefinition,
  type RunCursor,
  type ScriptStep,
  type SequenceFlow,
  type StepDefinition,
  type JoinArrival,
  type Token,
  type TokenState,
  type VariableDefinition,
} from '../platform/processes/index.js';
import { toJsonValue } from '../platform/model.js';
import { compile, type PreparedRender, type Template } from '../template/index.js';
import { evaluationScope } from './evaluate.js';
import { StepFailure, stepError } from './processes/failure.js';
import { decideLoop } from './processes/loops.js';
import { stepLabel } from './processes/runner-api.js';
import { checkDataSize } from './processes/submission.js';
import { branchName, nodeLabel, walk, type Arrival } from './processes/walk.js';
import { joinComplete, joined } from './processes/joins.js';
import { withParameters } from './render.js';
import { typedValue } from './typing.js';

/** What one call's process runs with: the call's context, evaluation state, budget and render options. */
export interface ProcessCall {
  ctx: ExecutionContext;
  state: EvaluationState;
  budget: Budget;
  render: PreparedRender;
  /** The call's own parameters (P_method, P_path, P_params, P_header, P_query, P_body): every template sees them. */
  parameters: Record<string, unknown>;
  /** The data document's maximum size in bytes. */
  dataDocumentBytes: number;
  /** Compiled templates of the route's process, kept with the route (by name and text). */
  templates: Map<string, Template>;
}

type Parameters = Record<string, unknown>;

/** The call's wall time ran out between two templates: no error boundary event catches it. */
class OutOfTime extends StepFailure {}

/** Runs `definition` to its end; returns its final data document. Its failures are TemplateErrors or StepFailures. */
export async function runCallProcess(
  definition: ProcessDefinition,
  call: ProcessCall,
): Promise<Record<string, unknown>> {
  const refusal = synchronousRefusal(definition);
  if (refusal !== undefined) throw new StepFailure(refusal);
  return new CallRun(definition, call).run();
}

/** The state of a token after its task: its branch, the other tokens and the joins (not the join's parameters). */
function carried(state: TokenState): TokenState {
  const { params: _p, ...rest } = state;
  return rest;
}

/** A token a walk sent out, as the cursor of a token about to take its flow (for a join's reach). */
const waitingCursor = (token: Token): RunCursor => ({
  step: 0,
  iteration: 0,
  phase: 'ready',
  flow: token.flow,
});

class CallRun {
  private readonly index: GraphIndex;
  private data: Record<string, unknown> = {};
  /** The result of the last task done (P_result of the next one, what a token carries to a join). */
  private last: unknown = null;

  constructor(
    private readonly definition: ProcessDefinition,
    private readonly call: ProcessCall,
  ) {
    this.index = graphIndexOf(definition);
  }

  /**
   * Runs every token to its end, one at a time (nothing waits in a composite API): a fork's other
   * tokens queue behind the one walking, a token at a join waits there until the join is complete
   * (joins.ts, as a request's), and the call ends when no token is left or one terminates.
   */
  async run(): Promise<Record<string, unknown>> {
    const start = this.index.graph.nodes.find((n) => n.kind === 'start')!;
    const queued: Token[] = [];
    const arrivals: JoinArrival[] = [];
    const steps = this.definition.steps;
    let arrival: Arrival | undefined = await this.walk(start, {}, null);
    for (;;) {
      if (!arrival) {
        // a token ended: an inclusive join no queued token can reach goes on, else the next token
        const others = queued.map(waitingCursor);
        const ready = [...new Set(arrivals.map((a) => a.node))]
          .map((id) => this.index.nodes.get(id)!)
          .find(
            (n): n is FlowNode & { kind: 'inclusive' } =>
              n.kind === 'inclusive' && joinComplete(this.index, steps, n, arrivals, others),
          );
        if (ready) arrival = await this.goOn(ready, arrivals);
        else {
          const token = queued.shift();
          if (!token) {
            if (arrivals.length > 0)
              throw new StepFailure(
                `${nodeLabel(this.index.nodes.get(arrivals[0]!.node)!)}: the other branches ended without reaching it`,
              );
            return this.data;
          }
          arrival = await this.walk(
            token,
            token.branch !== undefined ? { branch: token.branch } : {},
            token.result,
          );
        }
        continue;
      }
      if (arrival.kind !== 'error' && arrival.state.tokens) {
        queued.push(...arrival.state.tokens);
        const { tokens: _sent, ...state } = arrival.state;
        arrival = { ...arrival, state } as Arrival;
      }
      switch (arrival.kind) {
        case 'end':
          if (arrival.terminate) return this.data;
          arrival = undefined;
          break;
        case 'error':
          throw new StepFailure(
            `${nodeLabel(arrival.node)}: error ${JSON.stringify(arrival.code)}`,
            arrival.code,
          );
        case 'timer': // refused before the run: a definition changed under it cannot get here either
          throw new StepFailure(`${nodeLabel(arrival.node)}: a timer waits, which a composite API cannot`);
        case 'task':
          arrival = await this.task(arrival.step, arrival.state);
          break;
        case 'join': {
          const { node, flow, token }: Arrival & { kind: 'join' } = arrival;
          arrivals.push({
            node: node.id,
            arrival: node.kind === 'parallel' ? flow.id : (token.branch ?? branchName(flow)),
            ...(token.branch !== undefined ? { branch: token.branch } : {}),
            result: token.result ?? null,
          });
          const complete = joinComplete(this.index, steps, node, arrivals, queued.map(waitingCursor));
          arrival = complete ? await this.goOn(node, arrivals) : undefined;
        }
      }
    }
  }

  /** A complete join sends one token on, carrying P_branch_<name> of each arrival (joins.ts). */
  private goOn(node: FlowNode, arrivals: JoinArrival[]): Promise<Arrival> {
    const { params, branch } = joined(arrivals, node.id);
    for (let i = arrivals.length - 1; i >= 0; i--) if (arrivals[i]!.node === node.id) arrivals.splice(i, 1);
    return this.walk(node, { ...(branch !== undefined ? { branch } : {}), params }, null);
  }

  /** Runs a task's step (its iterations, with retries) and walks on from it, or from its error boundary event. */
  private async task(stepId: number, state: TokenState): Promise<Arrival> {
    const step = this.definition.steps.find((s) => s.id === stepId)!;
    const node = this.index.taskOfStep.get(stepId)!;
    if (step.type !== 'script')
      throw new StepFailure(`${stepLabel(step)}: a ${step.type} step waits, which a composite API cannot`);
    try {
      await this.iterations(step, state);
    } catch (e) {
      if (e instanceof OutOfTime) throw e;
      const code = e instanceof StepFailure ? e.code : undefined;
      const boundary = this.index.boundaries
        .get(node.id)
        ?.find((b) => b.error === undefined || b.error === code);
      if (!boundary) throw e;
      const error = { ...stepError(e), ...(code !== undefined ? { code } : {}) };
      return this.walk(boundary, { ...carried(state), params: { P_error: error } }, null);
    }
    return this.walk(node, carried(state), this.last);
  }

  private async iterations(step: ScriptStep, state: TokenState): Promise<void> {
    const max = DEFINITION_LIMITS.iterations;
    let loop: RunCursor['loop'];
    for (let iteration = 0; ; iteration++) {
      this.checkTime(step);
      const params = this.parameters(step, state, iteration, loop);
      if (step.loop) {
        const cursor: RunCursor = { step: 0, iteration, phase: 'ready', ...(loop ? { loop } : {}) };
        const evaluate = async (source: string) =>
          typedValue(await this.render(source, `${stepLabel(step)} loop`, params));
        const decision = await decideLoop(
          step.loop,
          cursor,
          stepLabel(step),
          max,
          this.call.dataDocumentBytes,
          evaluate,
        );
        if (!decision.go) return;
        loop = decision.loop;
        params.P_item = loop?.items?.[iteration];
      }
      await this.attempts(step, params);
      if (!step.loop) return;
    }
  }

  /** One iteration, run again after its backoff while its retry policy has attempts left. */
  private async attempts(step: ScriptStep, params: Parameters): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        this.last = await this.iteration(step, { ...params });
        return;
      } catch (e) {
        if (!step.retry || attempt + 1 >= step.retry.attempts) throw e;
        // the wait counts in the call's wall time
        const backoff = Math.min(parseDuration(step.retry.backoff) ?? 0, this.call.budget.remainingMs());
        if (backoff > 0) await new Promise((resolve) => setTimeout(resolve, backoff));
        this.checkTime(step);
      }
    }
  }

  /** The call's wall time, looked at before each iteration: a process of many small templates is bounded too. */
  private checkTime(step: StepDefinition): void {
    try {
      this.call.budget.checkTime(stepLabel(step));
    } catch (e) {
      throw e instanceof BudgetExceededError ? new OutOfTime(e.message) : e;
    }
  }

  private async iteration(step: ScriptStep, params: Parameters): Promise<unknown> {
    const lane = this.call.ctx.laneId;
    if (step.lane !== null) this.call.ctx.laneId = step.lane;
    try {
      const inputs = await this.variables(step, step.input, params, 'input');
      const result =
        step.script === null
          ? inputs
          : typedValue(await this.render(step.script, `${stepLabel(step)} script`, params));
      const bytes = Buffer.byteLength(JSON.stringify(toJsonValue(result, 'the step result')));
      if (bytes > this.call.dataDocumentBytes)
        throw new StepFailure(
          `${stepLabel(step)}: its result has ${bytes} bytes, over the data document's maximum of ${this.call.dataDocumentBytes}`,
        );
      params.P_result = result;
      await this.variables(step, step.output, params, 'output');
      return result;
    } finally {
      this.call.ctx.laneId = lane;
    }
  }

  /** Computes variables in order, each in the data document (typed) before the next. */
  private async variables(
    step: StepDefinition,
    list: readonly VariableDefinition[],
    params: Parameters,
    phase: 'input' | 'output',
  ): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    for (const variable of list) {
      const value = typedValue(
        await this.render(variable.template, `${stepLabel(step)} ${phase} ${variable.name}`, params),
      );
      const data = { ...this.data, [variable.name]: value };
      checkDataSize(stepLabel(step), `${phase} variable ${variable.name}`, data, this.call.dataDocumentBytes);
      this.data = data;
      values[variable.name] = value;
    }
    return values;
  }

  /** The host's parameters of a step's templates, over the call's own. */
  private parameters(
    step: StepDefinition,
    state: TokenState,
    iteration: number,
    loop: RunCursor['loop'],
  ): Parameters {
    return {
      ...this.call.parameters,
      P_result: this.last,
      P_task: { step: step.id, name: step.name, type: step.type, iteration },
      P_index: step.loop ? iteration : undefined,
      P_item: loop?.items?.[iteration],
      P_branch: state.branch?.split('/').pop(),
      ...state.params,
    };
  }

  private walk(from: FlowNode | Token, state: TokenState, result: unknown): Promise<Arrival> {
    const holds = (flow: SequenceFlow, gateway: FlowNode) => this.condition(state, flow, gateway, result);
    return walk(this.index, from, state, result, holds);
  }

  /** Whether a sequence flow's condition holds: a template printing `true` or `false`. */
  private async condition(
    state: TokenState,
    flow: SequenceFlow,
    gateway: FlowNode,
    result: unknown,
  ): Promise<boolean> {
    const output = await this.render(flow.condition!, `${nodeLabel(gateway)} condition of ${flow.id}`, {
      ...this.call.parameters,
      P_result: result,
      P_branch: state.branch?.split('/').pop(),
      ...state.params,
    });
    const value = output.trim();
    if (value !== 'true' && value !== 'false')
      throw new StepFailure(
        `${nodeLabel(gateway)}: the condition of sequence flow ${flow.id} printed ${JSON.stringify(value.slice(0, 100))}, not true or false`,
      );
    return value === 'true';
  }

  /** A template of the process, in the call's context and budget, over the data document. */
  private async render(source: string, name: string, params: Parameters): Promise<string> {
    const { ctx, state, budget, render, templates } = this.call;
    // keyed by name too: a template's name is in its errors
    const key = `${name}\n${source}`;
    let template = templates.get(key);
    if (!template) {
      if (templates.size > 1000) templates.clear();
      templates.set(key, (template = compile(source, { name })));
    }
    const scope = withParameters(evaluationScope(ctx, this.data, internalParameterScope(ctx, state)), params);
    return template.renderPrepared(scope, render, budget);
  }
}
