/** What the process runner (runner.ts) takes and what it tells: its options, its events, a new run. */
import type { ExecutionLimits } from '../../functions/context.js';
import type { ProcessRequest } from '../../platform/index.js';
import type {
  StepDefinition,
  LeaseKeeper,
  LeaseSettings,
  ProcessDefinition,
  StepError,
  StepStatus,
  StepType,
} from '../../platform/processes/index.js';

export interface RunnerOptions {
  clock?: () => number;
  random?: () => number;
  randomBytes?: (size: number) => Uint8Array;
  /** The limits of every evaluation (dataDocumentBytes: the data document's maximum size). */
  limits?: Partial<ExecutionLimits>;
  /** Told as requests move (the CLI prints it). */
  observer?: (event: ProcessEvent) => void;
  /** The most iterations of one loop (default and maximum DEFINITION_LIMITS.iterations, 1000). */
  maxIterations?: number;
  /** The leases this runner takes on the runs it drives (default: this process, FLOWMARK_LEASE_MS or 30 s). */
  lease?: Partial<LeaseSettings>;
  /**
   * Who renews those leases while a run is driven (default: a heartbeat of this runner's own).
   * In an evaluation thread, the HTTP thread renews them: a step that keeps the thread busy
   * does not let its lease lapse, and a thread that is stopped stops renewing.
   */
  leases?: LeaseKeeper;
  /**
   * Fault injection for tests (test/faults/): called at each point of a creation where a crash
   * once left an orphan — `request-stored` (the request row written, not yet its run) and
   * `child-created` (a sub-process request created, not yet its parent's step record). What it
   * throws fails the creation there, as a crash would.
   */
  inject?: (point: CreationPoint) => void | Promise<void>;
}

export type CreationPoint = 'request-stored' | 'child-created';

export type ProcessEvent =
  | { type: 'started'; requestId: string; parentId: string | null; name: string }
  | {
      type: 'step';
      requestId: string;
      stepId: number;
      name: string;
      stepType: StepType;
      iteration: number;
      status: StepStatus;
      result?: unknown;
      error?: StepError;
    }
  | {
      type: 'waiting';
      requestId: string;
      stepId: number;
      iteration: number;
      reason: 'task' | 'child' | 'paused';
      url?: string;
      child?: string;
    }
  | { type: 'ended'; requestId: string; status: number; message: string };

/** What starting a request needs once its definition is known. */
export interface NewRun {
  definition: ProcessDefinition;
  definitionId: number | null;
  /** The version of the stored definition it runs (StoredDefinition.versionId); without one, the definition is kept by content. */
  definitionVersionId?: number | null;
  data: Record<string, unknown>;
  mode: ProcessRequest['mode'];
  projectId: number | null;
  initiatorId: number | null;
  /** Who the steps run as (P_user). */
  userId: number | null;
  parentId: string | null;
  depth: number;
  /** The client's Idempotency-Key with the fingerprint of what it asked (stored with the request). */
  idempotency?: { key: string; fingerprint: string };
}

/** `step 3 (Approve)`: how errors and logs name a step. */
export function stepLabel(step: StepDefinition): string {
  return `step ${step.id}${step.name ? ` (${step.name})` : ''}`;
}
