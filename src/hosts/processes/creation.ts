/**
 * A new request and its run, written in one transaction: a request without its run has no lease
 * for a sweeper to find and would stay running forever (docs/deploy.md, "Faults").
 */
import { STATUS_RUNNING, type Platform, type ProcessRequest } from '../../platform/index.js';
import type { Lease } from '../../platform/processes/index.js';
import type { NewRun, RunnerOptions } from './runner-api.js';

export function storeNewRun(
  platform: Platform,
  accountId: string,
  input: NewRun,
  data: Record<string, unknown>,
  lease: () => Lease,
  inject: RunnerOptions['inject'],
): Promise<ProcessRequest> {
  return platform.processes.transaction(async () => {
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
    await platform.processes.runs.create(accountId, {
      requestId: request.id,
      definition: input.definition,
      definitionId: input.definitionId,
      userId: input.userId,
      depth: input.depth,
      lease: lease(),
    });
    return request;
  });
}
