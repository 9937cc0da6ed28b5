/**
 * The process-flow functions of spec 4.5: get_next_url, get_task_url, inject_params,
 * get_parent_params, P_set_request_status. They act on the current request (ctx.requestId) and
 * its run (src/platform/processes); the process host tells them which step is running through a
 * flow frame (`setFlowFrame`). docs/hosts.md describes the flow they belong to.
 */
import type { Platform } from '../../platform/index.js';
import { MESSAGES } from '../../platform/errors.js';
import { REQUEST_STATUSES } from '../../platform/requests.js';
import type { TaskContext, TaskRef } from '../../platform/processes/index.js';
import { isVariableName, stepById } from '../../platform/processes/definition.js';
import { TASK_CONTEXTS, taskToken, taskUrl } from '../../platform/processes/urls.js';
import type { ExecutionContext } from '../context.js';
import { argumentError, FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { isHash } from '../coercion.js';
import { platformCall, platformOf } from './calls.js';
import { injectVariables } from './data-document.js';
import { evaluationState } from './evaluation.js';

/** What the process host tells the flow functions about the step being run. */
export interface FlowFrame {
  stepId: number;
  iteration: number;
  /** The manual task whose input variables are being computed (get_task_url). */
  task?: TaskRef;
  /** The result inject_params injects: the last executed step's (the current one's, once it has one). */
  lastResult(): unknown;
}

const frames = new WeakMap<ExecutionContext, FlowFrame>();

/** Tells the flow functions which step a context evaluates (the process host calls it). */
export function setFlowFrame(ctx: ExecutionContext, frame: FlowFrame): void {
  frames.set(ctx, frame);
}

/** The statuses a script may set, and what each does (docs/hosts.md). */
export const SETTABLE_STATUSES = [102, 201, 301, 302, 400, 401] as const;

function currentRequest(fn: string, ctx: ExecutionContext): string {
  if (ctx.requestId === undefined) throw new FunctionError(fn, 'there is no current request');
  return ctx.requestId;
}

async function runOf(fn: string, platform: Platform, ctx: ExecutionContext) {
  const requestId = currentRequest(fn, ctx);
  const run = await platform.processes.runs.find(ctx.accountId, requestId);
  if (!run) throw new FunctionError(fn, 'the current request does not run a process');
  return run;
}

function contextArgument(fn: string, index: number, value: string): TaskContext {
  const context = value.trim().toLowerCase();
  if (!(TASK_CONTEXTS as readonly string[]).includes(context))
    throw argumentError(fn, index, 'context', `must be web, mobile or tablet, not ${JSON.stringify(value)}`);
  return context as TaskContext;
}

export const flowFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'get_next_url',
    group: 'Request',
    rights: 'none',
    doc:
      'The URL of the next manual task step `stepId` of the current process will generate: the task of iteration ' +
      'k, where k is the number of tasks that step has generated in this request — so outside a loop it is the ' +
      "step's task, and in a loop, once iteration k's task exists, the URL is iteration k+1's. `is_public` true " +
      'gives the public URL (it carries a token and needs no login); `context` mobile (or tablet) adapts it to the ' +
      'mobile application. Callable anywhere in the request, not only in manual-task input variables.',
    returns: 'string',
    forms: [
      {
        params: [
          { name: 'stepId', type: 'integer' },
          { name: 'is_public', type: 'boolean' },
          { name: 'context', type: 'string', optional: true, default: 'web' },
        ],
        async impl(ctx, [stepId, isPublic, context], _call, fn) {
          const platform = platformOf(fn, ctx);
          const target = contextArgument(fn, 3, context);
          const run = await runOf(fn, platform, ctx);
          const step = stepById(run.definition, stepId);
          if (step?.type !== 'manual')
            throw argumentError(fn, 1, 'stepId', `step ${stepId} is not a manual task of this process`);
          const ref = {
            requestId: run.requestId,
            stepId: step.id,
            iteration: await platform.processes.tasks.countForStep(ctx.accountId, run.requestId, step.id),
          };
          const { urls } = await evaluationState(ctx);
          return taskUrl(urls.live, ref, {
            context: target,
            ...(isPublic ? { token: taskToken(run.secret, ref) } : {}),
          });
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_task_url',
    group: 'Request',
    rights: 'none',
    doc:
      'The URL of the manual task whose input variables are being computed (P_task_url is the same, private). ' +
      '`is_public` true gives the public URL, which carries a token and needs no login.',
    returns: 'string',
    flags: { manualTaskInputOnly: true },
    forms: [
      {
        params: [{ name: 'is_public', type: 'boolean' }],
        async impl(ctx, [isPublic], _call, fn) {
          const platform = platformOf(fn, ctx);
          const task = frames.get(ctx)?.task;
          if (!task) throw new FunctionError(fn, 'there is no manual task being prepared');
          const { urls } = await evaluationState(ctx);
          if (!isPublic) return taskUrl(urls.live, task);
          const run = await runOf(fn, platform, ctx);
          return taskUrl(urls.live, task, { token: taskToken(run.secret, task) });
        },
      },
    ],
  }),
  defineFunction({
    name: 'inject_params',
    group: 'Request',
    rights: 'none',
    doc:
      "Adds the last executed step's result to the request: each field of the result (an object) becomes a " +
      "variable of the data document and of the running script. From a step's output variables the last executed " +
      'step is that step; from its input variables, the step before. Returns the injected object ({} when the ' +
      'result is not an object, or no step has run). The data document has a maximum size: exceeding it stops ' +
      'the process.',
    returns: 'object',
    forms: [
      {
        params: [],
        async impl(ctx, _args, call, fn) {
          const platform = platformOf(fn, ctx);
          const requestId = currentRequest(fn, ctx);
          const frame = frames.get(ctx);
          const result = frame
            ? frame.lastResult()
            : (await platform.processes.steps.lastDone(ctx.accountId, requestId))?.result;
          if (!isHash(result)) return {};
          const values = { ...result };
          await injectVariables(fn, ctx, call, values);
          return values;
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_parent_params',
    group: 'Request',
    rights: 'none',
    doc:
      'The parameters (data document) of the parent request of a sub-process. Without `name`, every parameter is ' +
      'also injected into the current request and script (the platform\'s "inject all parameters into the current ' +
      'context"); with `name`, the object is stored under that variable instead. Error when the current request ' +
      'has no parent.',
    returns: 'object',
    forms: [
      {
        params: [
          { name: 'name', type: 'string', optional: true, doc: 'variable to store the parameters under' },
        ],
        async impl(ctx, [name], call, fn) {
          const platform = platformOf(fn, ctx);
          const requestId = currentRequest(fn, ctx);
          if (name !== undefined && !isVariableName(name))
            throw argumentError(fn, 1, 'name', `${JSON.stringify(name)} is not a variable name`);
          const params = await platformCall(fn, async () => {
            const request = await platform.requests.require(ctx.accountId, requestId);
            if (request.parentId === null)
              throw new FunctionError(fn, 'the current request has no parent request');
            return (await platform.requests.require(ctx.accountId, request.parentId)).data;
          });
          await injectVariables(fn, ctx, call, name === undefined ? params : { [name]: params });
          return params;
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_set_request_status',
    group: 'Request',
    rights: 'none',
    doc:
      'Sets the status of the current request; the process host applies it when the current step ends. ' +
      '102 WAITING: the request waits after this step until it is resumed (POST /api/v1/requests/{id}/resume). ' +
      '201 COMPLETED: it ends after this step as completed, skipping the remaining steps. 301 ABORTED, ' +
      '302 KILLED, 400 CANCELLED, 401 OUTDATED: it ends after this step with that status (open tasks cancelled, ' +
      'locks released). A step that fails afterwards still ends the request with 301. ' +
      'Error when the request has already ended.',
    returns: 'none',
    forms: [
      {
        params: [{ name: 'statusCode', type: 'integer' }],
        async impl(ctx, [statusCode], _call, fn) {
          const platform = platformOf(fn, ctx);
          const code = statusCode;
          if (!(SETTABLE_STATUSES as readonly number[]).includes(code))
            throw argumentError(fn, 1, 'statusCode', `must be 102, 201, 301, 302, 400 or 401, not ${code}`);
          const requestId = currentRequest(fn, ctx);
          const changed = await platform.requests.transition(ctx.accountId, requestId, [101, 102], code);
          if (!changed) {
            const request = await platform.requests.find(ctx.accountId, requestId);
            if (!request) throw new FunctionError(fn, MESSAGES.requestNotFound);
            const name = REQUEST_STATUSES[request.status as keyof typeof REQUEST_STATUSES]?.name;
            throw new FunctionError(
              fn,
              `the request has ended (status ${request.status}${name ? ` ${name}` : ''})`,
            );
          }
          return '';
        },
      },
    ],
  }),
];
