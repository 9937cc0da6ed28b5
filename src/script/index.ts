/**
 * The script backends: `<@script env="js">` scripts in a QuickJS sandbox (`env="python"`: Pyodide), with the function
 * library as the RMP* objects (see docs/script.md).
 *
 *   const scope = { get: (n) => (n === 'script' ? scriptDirective(ctx) : functions.get(n)) };
 *   await runScript('RMPData.setOutput(RMPUtilities.uuid())', { ctx });
 */
export {
  describeScriptApi,
  jsMethodName,
  methodSignatures,
  scriptApi,
  SCRIPT_OBJECTS,
  type ScriptApi,
  type ScriptMethod,
  type ScriptMethodDescription,
  type ScriptObjectName,
} from './api.js';
export { scriptDirective, scriptSource, type ScriptDirectiveOptions } from './directive.js';
export { ScriptBusyError, ScriptError, type ScriptErrorKind } from './errors.js';
export { DEFAULT_SCRIPT_LIMITS, type ScriptLimits } from './limits.js';
export {
  configureScripts,
  runScript,
  scriptWorkers,
  warmScripts,
  type ScriptChanges,
  type ScriptResult,
  type ScriptRunOptions,
  type ScriptSettings,
} from './run.js';
export { closeScripts } from './lifecycle.js';
export { scriptSettingsFromEnv } from './settings.js';
export {
  closePythonScripts,
  configurePythonScripts,
  pythonScriptWorkers,
  runPythonScript,
  warmPythonScripts,
} from './python/run.js';
