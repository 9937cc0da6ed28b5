/**
 * The eval host: renders a template in an execution context, with the function library bound to
 * that context. Data variables come first, then the library's functions (as in FreeMarker, the
 * data model shadows shared variables).
 */
import type { ExecutionContext } from '../functions/context.js';
import { bind } from '../functions/registry.js';
import { compile, type RenderOptions, type Scope } from '../template/index.js';

export interface EvalOptions {
  /** Template name used in errors (default "template"). */
  name?: string;
  loader?: RenderOptions['loader'];
  limits?: RenderOptions['limits'];
  settings?: RenderOptions['settings'];
}

export interface EvalResult {
  output: string;
  /** The final global namespace: variables created or changed by assign/global. */
  globals: Record<string, unknown>;
}

/** A scope of data variables over the library bound to `ctx`. */
export function evaluationScope(ctx: ExecutionContext, data: Record<string, unknown> = {}): Scope {
  const functions = bind(ctx);
  const own = Object.prototype.hasOwnProperty;
  return { get: (name) => (own.call(data, name) ? data[name] : functions.get(name)) };
}

export async function evaluate(
  source: string,
  ctx: ExecutionContext,
  data: Record<string, unknown> = {},
  options: EvalOptions = {},
): Promise<EvalResult> {
  const template = compile(source, options.name === undefined ? {} : { name: options.name });
  return template.renderDetailed(evaluationScope(ctx, data), {
    locale: ctx.locale,
    timeZone: ctx.timeZone,
    now: ctx.clock,
    ...(options.loader ? { loader: options.loader } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
  });
}
