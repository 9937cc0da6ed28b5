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
 * `then` runs in the same transaction once both are written (given them as stored). `input`: the
 * run to store, or how to read it, in the same transaction (a start's reads and its creation
 * commit together); `prepare` checks it (before the transaction when it is given) and says where
 * the run stands (else at its start event, or before its first step).
 */
export async function storeNewRun<T>(
  platform: Platform,
  accountId: string,
  input: NewRun | (() => Promise<NewRun>),
  prepare: (input: NewRun) => Promise<{ data: Record<string, unknown>; first?: RunCursor }>,
  lease: () => Lease,
  inject: RunnerOptions['inject'],
  then: (request: ProcessRequest, run: ProcessRun) => Promise<T>,
): Promise<{ request: ProcessRequest; then: T; input: NewRun }> {
  const resolve = async (run: NewRun) => ({ input: run, ...(await checked(run, prepare)) });
  const given = typeof input === 'function' ? undefined : await resolve(input);
  let run: ProcessRun | undefined;
  const created = await platform.processes.transaction(async () => {
    const read = typeof input === 'function' ? await resolve(await input()) : given!;
    const { data, cursor } = read;
    const request = await platform.requests.create(accountId, {
      projectId: read.input.projectId,
      mode: read.input.mode,
      data,
      initiatorId: read.input.initiatorId,
      parentId: read.input.parentId,
      status: STATUS_RUNNING,
      ...(read.input.idempotency ? { idempotency: read.input.idempotency } : {}),
    });
    await inject?.('request-stored');
    run = await platform.processes.runs.create(accountId, {
      requestId: request.id,
      definition: read.definition,
      ...(cursor ? { cursor } : {}),
      definitionId: read.input.definitionId,
      definitionVersionId: read.input.definitionVersionId,
      userId: read.input.userId,
      depth: read.input.depth,
      lease: lease(),
    });
    return { request, then: await then(request, run), input: read.input };
  });
  platform.processes.runs.committed(run!);
  return created;
}

/** The run's definition as it is kept, its document and where it stands, once checked. */
async function checked(
  input: NewRun,
  prepare: (input: NewRun) => Promise<{ data: Record<string, unknown>; first?: RunCursor }>,
): Promise<{
  definition: Omit<ProcessDefinition, 'bpmn'>;
  data: Record<string, unknown>;
  cursor?: RunCursor;
}> {
  const { data, first } = await prepare(input);
  refuseUnsupported(input.definition);
  // The run keeps what it executes: the BPMN text stays with the stored definition only.
  const { bpmn: _source, ...definition } = input.definition;
  const start = definition.graph?.nodes.find((n) => n.kind === 'start');
  const cursor: RunCursor | undefined =
    first ?? (start && { step: 0, iteration: 0, phase: 'ready', at: start.id });
  return { definition, data, ...(cursor ? { cursor } : {}) };
}

/** A definition with elements outside the executable subset is refused, each named with its line. */
export function refuseUnsupported(definition: ProcessDefinition): void {
  const refusal = outsideSubset(definition);
  if (refusal !== undefined) throw new PlatformError('invalid', refusal);
}
