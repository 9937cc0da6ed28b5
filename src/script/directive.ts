/**
 * `<@script env="js"> … </@script>`: runs the body (its raw text, not rendered by the template)
 * as JavaScript in the sandbox (`env="python"`: as Python, python/run.ts); the directive's output is what RMPData.setOutput received.
 * A body wrapped in `<#noparse>…</#noparse>` is taken without those tags (for scripts whose
 * `${…}` template literals are not valid template syntax). Errors end the render as a
 * TemplateError (cause: ScriptError) that `<#attempt>` can recover.
 */
import type { ExecutionContext } from '../functions/context.js';
import type { FunctionRegistry } from '../functions/registry.js';
import { DIRECTIVE, type TemplateDirective } from '../template/index.js';
import { ScriptError } from './errors.js';
import type { ScriptLimits } from './limits.js';
import { runPythonScript } from './python/run.js';
import { runScript } from './run.js';

export interface ScriptDirectiveOptions {
  registry?: FunctionRegistry;
  limits?: Partial<ScriptLimits>;
  /** Names of the evaluation's data variables (RMPData.getAllVariables). */
  variableNames?: () => Iterable<string>;
}

const LANGUAGES = ['js', 'javascript'];

/** The `script` directive of an evaluation in `ctx`. */
export function scriptDirective(
  ctx: ExecutionContext,
  options: ScriptDirectiveOptions = {},
): TemplateDirective {
  return {
    [DIRECTIVE]: true,
    async invoke(params, body, env) {
      const python = checkParameters(params);
      if (body === null) return '';
      const run = python ? runPythonScript : runScript;
      const result = await run(scriptSource(body.source), { ctx, env, ...options });
      return result.output;
    },
  };
}

/** True for Python, false for JavaScript. */
function checkParameters(params: Record<string, unknown>): boolean {
  for (const name of Object.keys(params)) {
    if (name !== 'env')
      throw new ScriptError(`<@script>: unknown parameter ${name} (the only parameter is env)`, 'usage');
  }
  const env = params.env ?? 'js';
  if (typeof env !== 'string') throw new ScriptError('<@script>: env must be a string such as "js"', 'usage');
  if (env.toLowerCase() === 'python') return true;
  if (!LANGUAGES.includes(env.toLowerCase()))
    throw new ScriptError(`<@script>: unknown env "${env}" (supported: js, python)`, 'usage');
  return false;
}

/** The body without a wrapping <#noparse> (or [#noparse]); lines keep their numbers. */
export function scriptSource(body: string): string {
  const open = /^(\s*)(?:<#noparse\s*>|\[#noparse\s*\])/.exec(body);
  if (!open) return body;
  const close = /(?:<\/#noparse\s*>|\[\/#noparse\s*\])(\s*)$/.exec(body);
  if (!close) return body;
  return open[1] + body.slice(open[0].length, close.index) + close[1];
}
