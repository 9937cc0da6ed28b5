/**
 * The Request group of spec 4.5 (without the process-flow functions — get_next_url, get_task_url,
 * inject_params, get_parent_params, P_set_request_status — which come with the hosts, and the
 * R_read_file_* / R_update_file_* rights, which come with the files), plus i18n of the
 * Application group.
 */
import type { FunctionSpec } from '../spec.js';
import { contextInfoFunctions } from './context-info.js';
import { flowFunctions } from './process-flow.js';
import { listFunctions } from './lists.js';
import { lockFunctions } from './locks.js';
import { logFunctions } from './log.js';
import { messageFunctions } from './messages.js';
import { stateFunctions } from './state-functions.js';
import { throwFunctions } from './throw.js';

export const request: FunctionSpec[] = [
  ...contextInfoFunctions,
  ...listFunctions,
  ...stateFunctions,
  ...logFunctions,
  ...lockFunctions,
  ...throwFunctions,
  ...flowFunctions,
  ...messageFunctions,
];

export {
  builtEvaluationState,
  contextFor,
  evaluationState,
  internalParameter,
  internalParameters,
  internalParameterScope,
  internalParameterValues,
  INTERNAL_PARAMETERS,
  shareBuiltState,
  shareEvaluationState,
  type ContextOptions,
  type EvaluationState,
} from './evaluation.js';
export { ScriptThrownError } from './throw.js';
export { setMessageSender, type MessageSender, type MessageStarted } from './messages.js';
export { setFlowFrame, SETTABLE_STATUSES, type FlowFrame } from './process-flow.js';
export { checkDataDocument, dataDocumentBytes } from './data-document.js';
