/**
 * Evaluation, which every host and `flowmark render` share: renders a template in an execution
 * context, with the function library bound to that context. The platform's internal parameters (P_customer, P_mode, P_user …, see
 * docs/platform.md) come first — their names are reserved — then data variables, then the
 * library's functions and the `<@script env="js">` directive of src/script (as in FreeMarker,
 * the data model shadows shared variables).
 */
import { startEvaluation, type ExecutionContext } from '../functions/context.js';
import { boundedSize } from '../limits/index.js';
import {
  INTERNAL_PARAMETERS,
  internalParameter,
  internalParameters,
  type EvaluationState,
} from '../functions/request/evaluation.js';
import { bind } from '../functions/registry.js';
import { scriptDirective } from '../script/directive.js';
import {
  compile,
  TemplateError,
  type RenderOptions,
  type Scope,
  type TemplateDirective,
} from '../template/index.js';
import { dataVariables } from './variables.js';

const RESERVED: ReadonlySet<string> = new Set(INTERNAL_PARAMETERS);

/**
 * FreeMarker settings every platform host renders with (a script may still change them with
 * <#setting>). boolean_format "c": `${create_collection(…)}`, `${has_right(3)}` print true/false,
 * as the library's boolean results are printed by the scripts that call them (docs/hosts.md).
 */
export const PLATFORM_SETTINGS: Readonly<Record<string, string>> = Object.freeze({ boolean_format: 'c' });

export interface EvalOptions {
  /** Template name used in errors (default "template"). */
  name?: string;
  loader?: RenderOptions['loader'];
  limits?: RenderOptions['limits'];
  settings?: RenderOptions['settings'];
}

export interface EvalResult {
  output: string;
  /** The final global namespace: variables created or changed by assign/global (data only, see variables.ts). */
  globals: Record<string, unknown>;
}

/**
 * A scope of data variables (an object or a Map) over the library bound to `ctx`, under the
 * internal parameters when given.
 */
export function evaluationScope(
  ctx: ExecutionContext,
  data: Record<string, unknown> | Map<string, unknown> = {},
  internal?: Scope,
): Scope {
  // Bound on first use: a template that calls no function (or no <@script>) never pays for them.
  let library: Scope | undefined;
  let script: TemplateDirective | undefined;
  const functions: Scope = {
    get: (name) =>
      name === 'script'
        ? (script ??= scriptDirective(ctx, {
            variableNames: () => (data instanceof Map ? data.keys() : Object.keys(data)),
          }))
        : (library ??= bind(ctx)).get(name),
  };
  const own = Object.prototype.hasOwnProperty;
  const fromData =
    data instanceof Map
      ? (name: string) => (data.has(name) ? data.get(name) : functions.get(name))
      : (name: string) => (own.call(data, name) ? data[name] : functions.get(name));
  if (!internal) return { get: fromData };
  // An internal parameter is never taken from data, even when missing (P_user with nobody connected).
  return { get: (name) => (RESERVED.has(name) ? internal.get(name) : fromData(name)) };
}

/**
 * The scope of one call of a host that gives no data variables (composite APIs): the host's own
 * parameters (P_header …), then the internal parameters from the call's evaluation state, then
 * the library — what `withParameters(evaluationScope(ctx, {}, internal), parameters)` reads, in
 * one object per call.
 */
export class CallScope implements Scope {
  private library: Scope | undefined;
  private script: TemplateDirective | undefined;

  constructor(
    private readonly ctx: ExecutionContext,
    private readonly state: EvaluationState,
    private readonly parameters: Record<string, unknown>,
  ) {}

  get(name: string): unknown {
    if (Object.prototype.hasOwnProperty.call(this.parameters, name)) return this.parameters[name];
    if (RESERVED.has(name)) return internalParameter(this.ctx, this.state, name);
    if (name === 'script') return (this.script ??= scriptDirective(this.ctx, { variableNames: noNames }));
    return (this.library ??= bind(this.ctx)).get(name);
  }
}

const noNames = (): string[] => [];

export async function evaluate(
  source: string,
  ctx: ExecutionContext,
  data: Record<string, unknown> | Map<string, unknown> = {},
  options: EvalOptions = {},
): Promise<EvalResult> {
  const name = options.name ?? 'template';
  const template = compile(source, { name });
  const budget = startEvaluation(ctx);
  const result = await template.renderDetailed(evaluationScope(ctx, data, await internalParameters(ctx)), {
    budget,
    locale: ctx.locale,
    timeZone: ctx.timeZone,
    now: ctx.clock,
    ...(options.loader ? { loader: options.loader } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    settings: options.settings ? { ...PLATFORM_SETTINGS, ...options.settings } : PLATFORM_SETTINGS,
  });
  const globals = dataVariables(result.globals);
  // the variables are returned beside the output (as JSON, by the eval route): the same limit,
  // measured before anything writes them (shared structure would print exponentially large)
  const room = budget.limits.maxOutputChars - result.output.length;
  boundedSize(globals, room, () => {
    const e = budget.outputError('the variables the template set');
    return new TemplateError(`Template execution stopped: ${e.message}.`, {
      templateName: name,
      line: 0,
      column: 0,
      kind: 'LimitExceeded',
      cause: e,
    });
  });
  return { output: result.output, globals };
}
