/**
 * `<@script env="js"> … </@script>`: runs the body (its raw text, not rendered by the template)
 * as JavaScript in the sandbox (`env="python"`: as Python, python/run.ts); the directive's output is what RMPData.setOutput received.
 * `env="javascript"` is the platform's legacy engine: the same sandbox without the RMP* objects,
 * `print` writing the output and `setVariable` setting template variables.
 * A body wrapped in `<#noparse>…</#noparse>` is taken without those tags (for scripts whose
 * `${…}` template literals are not valid template syntax). Errors end the render as a
 * TemplateError (cause: ScriptError) that `<#attempt>` can recover.
 */
import type { ExecutionContext } from '../functions/context.js';
import type { FunctionRegistry } from '../functions/registry.js';
import { DIRECTIVE, type TemplateDirective } from '../template/index.js';
import { ScriptError } from './errors.js';
import type { ScriptLimits } from './limits.js';

export interface ScriptDirectiveOptions {
  registry?: FunctionRegistry;
  limits?: Partial<ScriptLimits>;
  /** Names of the evaluation's data variables (RMPData.getAllVariables). */
  variableNames?: () => Iterable<string>;
}

/** The `script` directive of an evaluation in `ctx`. */
export function scriptDirective(
  ctx: ExecutionContext,
  options: ScriptDirectiveOptions = {},
): TemplateDirective {
  return {
    [DIRECTIVE]: true,
    async invoke(params, body, env) {
      const engine = checkParameters(params);
      if (body === null) return '';
      const source = scriptSource(body.source);
      // The sandboxes (and the function library's bridge to them) load with the first script.
      const run = async () =>
        engine === 'python'
          ? await (await import('./python/run.js')).runPythonScript(source, { ctx, env, ...options })
          : await (
              await import('./run.js')
            ).runScript(source, {
              ctx,
              env,
              ...options,
              legacy: engine === 'legacy',
            });
      // loaded with the first script, as the sandboxes are (a render without one never loads it)
      const { metricSinks } = await import('../metrics/hooks.js');
      const metric = ENGINE_LABELS[engine];
      let result;
      try {
        result = await run();
      } catch (e) {
        metricSinks.scriptRun(metric, e instanceof ScriptError ? e.kind : 'error');
        throw e;
      }
      metricSinks.scriptRun(metric, 'ok');
      return result.output;
    },
  };
}

/** The engine label of `flowmark_script_runs_total`. */
const ENGINE_LABELS = { js: 'javascript', legacy: 'javascript-legacy', python: 'python' } as const;

/** The engine `env` names: `js` (the default) ES2023, `javascript` the legacy engine, `python`. */
function checkParameters(params: Record<string, unknown>): 'js' | 'legacy' | 'python' {
  for (const name of Object.keys(params)) {
    if (name !== 'env')
      throw new ScriptError(`<@script>: unknown parameter ${name} (the only parameter is env)`, 'usage');
  }
  const env = params.env ?? 'js';
  if (typeof env !== 'string') throw new ScriptError('<@script>: env must be a string such as "js"', 'usage');
  const name = env.toLowerCase();
  if (name === 'python') return 'python';
  if (name === 'javascript') return 'legacy';
  if (name !== 'js')
    throw new ScriptError(`<@script>: unknown env "${env}" (supported: js, javascript, python)`, 'usage');
  return 'js';
}

/** The body without a wrapping <#noparse> (or [#noparse]); lines keep their numbers. */
export function scriptSource(body: string): string {
  const open = /^(\s*)(?:<#noparse\s*>|\[#noparse\s*\])/.exec(body);
  if (!open) return body;
  const close = /(?:<\/#noparse\s*>|\[\/#noparse\s*\])(\s*)$/.exec(body);
  if (!close) return body;
  return open[1] + body.slice(open[0].length, close.index) + close[1];
}
