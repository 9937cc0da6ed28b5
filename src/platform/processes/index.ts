/**
 * What the process host keeps (docs/hosts.md): stored definitions, the run of each request, each
 * step's record, manual tasks. The host (src/hosts/processes) moves requests through them.
 */
import type { Store } from '../../store/index.js';
import { ProcessDefinitions } from './definitions.js';
import { ProcessRuns } from './runs.js';
import { StepRecords } from './steps.js';
import { ManualTasks } from './tasks.js';

export class Processes {
  readonly definitions: ProcessDefinitions;
  readonly runs: ProcessRuns;
  readonly steps: StepRecords;
  readonly tasks: ManualTasks;

  constructor(store: Store, clock: () => number) {
    this.definitions = new ProcessDefinitions(store, clock);
    this.runs = new ProcessRuns(store);
    this.steps = new StepRecords(store, clock);
    this.tasks = new ManualTasks(store, clock);
  }
}

export {
  DEFINITION_LIMITS,
  isVariableName,
  parseDefinition,
  stepById,
  type LoopDefinition,
  type ManualStep,
  type ProcessDefinition,
  type ScriptStep,
  type StepDefinition,
  type StepType,
  type SubprocessStep,
  type VariableDefinition,
} from './definition.js';
export { definitionMissing, type StoredDefinition } from './definitions.js';
export type { ProcessRun, RunCursor } from './runs.js';
export type { StepError, StepRecord, StepStatus } from './steps.js';
export { taskId, taskMissing, type ManualTask, type TaskRef, type TaskStatus } from './tasks.js';
export { isTaskToken, TASK_CONTEXTS, taskPath, taskToken, taskUrl, type TaskContext } from './urls.js';
