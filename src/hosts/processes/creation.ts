/**
 * A new request and its run, written in one transaction: a request without its run has no lease
 * for a sweeper to find and would stay running forever (docs/deploy.md, "Faults").
 */
import { PlatformError, STATUS_RUNNING, type Platform, type ProcessRequest } from '../../platform/index.js';
import {
  outsideSubset,
  type Lease,
  type ProcessDefinition,
  type ProcessRun,
  type RunCursor,
} from '../../platform/processes/index.js';
import type { NewRun, RunnerOptions } from './runner-api.js';

/**
 * `then` runs in the same transaction once both are written (given them as stored); `first`: where
 * the run stands (else at its start event, or before its first step).
 */
export async function storeNewRun<T>(
  platform: Platform,
  accountId: string,
  input: NewRun,
  data: Record<string, unknown>,
  lease: () => Lease,
  inject: RunnerOptions['inject'],
  then: (request: ProcessRequest, run: ProcessRun) => Promise<T>,
  first?: RunCursor,
): Promise<{ request: ProcessRequest; then: T }> {
  refuseUnsupported(input.definition);
  // The run keeps what it executes: the BPMN text stays with the stored definition only.
  const { bpmn: _source, ...definition } = input.definition;
  const start = definition.graph?.nodes.find((n) => n.kind === 'start');
  const cursor: RunCursor | undefined =
    first ?? (start && { step: 0, iteration: 0, phase: 'ready', at: start.id });
  let run: ProcessRun | undefined;
  const created = await platform.processes.transaction(async () => {
    const request = await platform.requests.create(accountId, {
      projectId: input.projectId,
      mode: input.mode,
      data,
      initiatorId: input.initiatorId,
      parentId: input.parentId,
      status: STATUS_RUNNING,
      ...(input.idempotency ? { idempotency: input.idempotency } : {}),
    });
    await inject?.('request-stored');
    run = await platform.processes.runs.create(accountId, {
      requestId: request.id,
      definition,
      ...(cursor ? { cursor } : {}),
      definitionId: input.definitionId,
      definitionVersionId: input.definitionVersionId,
      userId: input.userId,
      depth: input.depth,
      lease: lease(),
    });
    return { request, then: await then(request, run) };
  });
  platform.processes.runs.committed(run!);
  return created;
}

/** A definition with elements outside the executable subset is refused, each named with its line. */
export function refuseUnsupported(definition: ProcessDefinition): void {
  const refusal = outsideSubset(definition);
  if (refusal !== undefined) throw new PlatformError('invalid', refusal);
}
