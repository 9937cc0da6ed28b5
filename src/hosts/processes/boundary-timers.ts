/**
 * Timer boundary events on tasks that wait (docs/hosts.md, "The process graph"): armed when a
 * user task or a call activity starts waiting, as rows of the process timers (kind `boundary`,
 * `<step record>:<node id>` in `message`), fired once by the sweeper. A timer whose task no longer
 * waits (submitted, its child ended, interrupted, re-run) fires as nothing. Interrupting: the
 * task is abandoned (its record `failed`, its task cancelled, its child request cancelled) and
 * the token leaves by the event; non-interrupting: a token leaves by the event and waits in the
 * cursor with the other branches' tokens while the task goes on.
 */
import type { ExecutionContext } from '../../functions/context.js';
import {
  PlatformError,
  STATUS_CANCELLED,
  STATUS_RUNNING,
  STATUS_WAITING,
  type Platform,
} from '../../platform/index.js';
import {
  graphIndexOf,
  isTemplateText,
  type FlowNode,
  type Lease,
  type ProcessRun,
  type ProcessTimer,
  type RunCursor,
  type StepDefinition,
  type StepRecord,
  type Token,
} from '../../platform/processes/index.js';
import { renderIn } from '../render.js';
import { typedValue } from '../typing.js';
import { nodeLabel } from './labels.js';
import { dueTime } from './loops.js';
import { branchName, tokenState } from './walk.js';

/** What of the runner firing a timer needs. */
export interface BoundaryRunner {
  readonly platform: Platform;
  readonly lease: { owner: string };
  now(): number;
  leaseUntil(): Lease;
  drive(accountId: string, requestId: string, token?: string): Promise<void>;
  /** Drives tokens a move sent out (rows written), once it committed. */
  sendOut(tokens: readonly ProcessRun[]): void;
  settle(requestId: string): Promise<void>;
  stop(accountId: string, requestId: string, status: number): Promise<void>;
}

type TimerNode = FlowNode & { kind: 'boundary-timer' };

/** Arms the timer boundary events of a step's task that starts waiting (its record `record`). */
export async function armBoundaryTimers(
  runner: BoundaryRunner,
  ctx: ExecutionContext,
  run: ProcessRun,
  step: StepDefinition,
  record: StepRecord,
  params: Record<string, unknown>,
): Promise<void> {
  const index = graphIndexOf(run.definition);
  const task = index.taskOfStep.get(step.id);
  const nodes = (task && index.timers.get(task.id)) ?? [];
  for (const node of nodes) {
    let value: unknown = node.wait;
    if (isTemplateText(node.wait)) {
      const { data } = await runner.platform.requests.require(run.accountId, run.requestId);
      value = typedValue(
        await renderIn(ctx, node.wait, { name: `${nodeLabel(node)} timer`, data, parameters: params }),
      );
    }
    const dueAt = dueTime(value, runner.now(), nodeLabel(node), 'timer');
    await runner.platform.processes.timers.create(
      run.accountId,
      { requestId: run.requestId, stepId: step.id, iteration: record.iteration },
      { kind: 'boundary', dueAt, message: `${record.id}:${node.id}` },
    );
  }
}

/** Fires a timer boundary event once (false: it had fired already). */
export async function fireBoundary(runner: BoundaryRunner, timer: ProcessTimer): Promise<boolean> {
  const { accountId, requestId } = timer;
  const { platform } = runner;
  const cut = (timer.message ?? '').indexOf(':');
  const recordId = Number((timer.message ?? '').slice(0, cut));
  const nodeId = (timer.message ?? '').slice(cut + 1);
  let go = false;
  let child: string | undefined;
  let run: ProcessRun | undefined;
  let spawned: ProcessRun[] = [];
  const fired = await platform.processes.transaction(async () => {
    if (!(await platform.processes.timers.markFired(timer.id, runner.lease.owner, runner.now())))
      return false;
    // the token waiting on the task: the run's own or, in a forked request, a token row
    run = (await platform.processes.runs.allTokens(accountId, requestId)).find(
      (t) => (t.cursor.phase === 'task' || t.cursor.phase === 'child') && t.cursor.record === recordId,
    );
    if (!run) return true;
    const node = graphIndexOf(run.definition).nodes.get(nodeId);
    if (node?.kind !== 'boundary-timer') return true;
    if (node.interrupting === false) {
      // its tokens run at once, beside the task that goes on waiting: the request runs (101)
      const tokens = [...(run.cursor.tokens ?? []), ...leaving(run, node)];
      const moved = await platform.processes.runs.move(run, { ...run.cursor, tokens });
      if (!moved) throw conflict('The request moved while its timer boundary event fired.');
      await platform.requests.transition(accountId, requestId, [STATUS_WAITING], STATUS_RUNNING);
      spawned = moved.spawned ?? [];
      return true;
    }
    const ref = { requestId, stepId: timer.stepId, iteration: timer.iteration };
    if (run.cursor.phase === 'task') await platform.processes.tasks.cancelIfOpen(accountId, ref);
    else child = run.cursor.child;
    await platform.processes.steps.update(accountId, recordId, {
      status: 'failed',
      error: { message: `${nodeLabel(node)}: its timer fired; the task was interrupted` },
    });
    const cursor: RunCursor = {
      ...tokenState(run.cursor),
      ...(run.cursor.params ? { params: run.cursor.params } : {}),
      step: run.cursor.step,
      iteration: 0,
      phase: 'ready',
      at: node.id,
    };
    if (!(await platform.processes.runs.move(run, cursor, run.userId, runner.leaseUntil())))
      throw conflict('The request moved while its timer boundary event fired.');
    await platform.requests.transition(accountId, requestId, [STATUS_WAITING], STATUS_RUNNING);
    go = true;
    return true;
  });
  if (child !== undefined)
    await runner.stop(accountId, child, STATUS_CANCELLED).catch((e: unknown) => {
      // It had ended meanwhile: nothing to cancel.
      if (!(e instanceof PlatformError && e.code === 'conflict')) throw e;
    });
  if (go) await runner.drive(accountId, requestId, run?.token);
  if (spawned.length > 0) {
    runner.sendOut(spawned);
    await runner.drive(accountId, requestId, run?.token);
    await runner.settle(requestId);
  }
  return fired;
}

/** The tokens a non-interrupting event sends out: on the task's branch, or forked by its flows. */
function leaving(run: ProcessRun, node: TimerNode): Token[] {
  const outs = graphIndexOf(run.definition).outgoing.get(node.id)!;
  const branch = run.cursor.branch;
  if (outs.length === 1) return [{ flow: outs[0]!.id, ...(branch !== undefined ? { branch } : {}) }];
  return outs.map((f) => ({
    flow: f.id,
    branch: branch === undefined ? branchName(f) : `${branch}/${branchName(f)}`,
  }));
}

function conflict(message: string): PlatformError {
  return new PlatformError('conflict', message);
}
