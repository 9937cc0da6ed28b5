/**
 * How the process, composite-API and web-interface hosts render a template: the eval host's scope
 * (internal parameters, then data, then the library bound to the context) under the host's own
 * parameters (P_result, P_task …; P_header …), whose names are reserved the same way — an own
 * property set to undefined hides a data variable of that name.
 */
import { startEvaluation, type ExecutionContext } from '../functions/context.js';
import { internalParameters } from '../functions/request/index.js';
import { compile, type Scope, type Template } from '../template/index.js';
import { evaluationScope, PLATFORM_SETTINGS } from './evaluate.js';

export interface RenderInput {
  /** Template name in errors (`step 2 input total`). */
  name: string;
  data: Record<string, unknown>;
  parameters: Record<string, unknown>;
}

/** A scope whose own `parameters` come first. */
export function withParameters(scope: Scope, parameters: Record<string, unknown>): Scope {
  const own = Object.prototype.hasOwnProperty;
  return { get: (name) => (own.call(parameters, name) ? parameters[name] : scope.get(name)) };
}

/** The template's output (its errors are TemplateErrors, with the cause a function threw). */
export async function renderIn(ctx: ExecutionContext, source: string, input: RenderInput): Promise<string> {
  return renderTemplate(ctx, compile(source, { name: input.name }), input.data, input.parameters);
}

/** Same, for a template compiled already. */
export async function renderTemplate(
  ctx: ExecutionContext,
  template: Template,
  data: Record<string, unknown>,
  parameters: Record<string, unknown>,
): Promise<string> {
  const budget = startEvaluation(ctx);
  const scope = withParameters(evaluationScope(ctx, data, await internalParameters(ctx)), parameters);
  return template.render(scope, {
    budget,
    locale: ctx.locale,
    timeZone: ctx.timeZone,
    now: ctx.clock,
    settings: PLATFORM_SETTINGS,
  });
}
