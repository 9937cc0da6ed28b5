/**
 * A new request and its run, written in one transaction: a request without its run has no lease
 * for a sweeper to find and would stay running forever (docs/deploy.md, "Faults").
 */
import { PlatformError, STATUS_RUNNING, type Platform, type ProcessRequest } from '../../platform/index.js';
import {
  FIRST_CURSOR,
  outsideSubset,
  type Lease,
  type ProcessDefinition,
  type ProcessRun,
  type RecordToBegin,
  type RunCursor,
  type StepRecord,
} from '../../platform/processes/index.js';
import type { NewRequest } from '../../platform/requests.js';
import type { NewRunRow } from '../../platform/processes/runs.js';
import type { NewRun, RunnerOptions } from './runner-api.js';

/**
 * `then` runs in the same transaction once both are written (given them as stored). `input`: the
 * run to store, or how to read it, in the same transaction (a start's reads and its creation
 * commit together); `prepare` checks it (before the transaction when it is given) and says where
 * the run stands (else at its start event, or before its first step).
 *
 * With `first` (what the first task's record begins with, for a run created claimed before it),
 * where the engine creates the request, its run and that record in one statement
 * (Processes.createStarted), the reads come first, the statement alone writes and `then` runs
 * after it, given the record: no transaction, and no moment when the request exists without its
 * run. A fault injected at `request-stored` asks for the transaction, where that moment exists.
 */
export async function storeNewRun<T>(
  platform: Platform,
  accountId: string,
  input: NewRun | (() => Promise<NewRun>),
  prepare: (input: NewRun) => Promise<{ data: Record<string, unknown>; first?: RunCursor }>,
  lease: () => Lease,
  inject: RunnerOptions['inject'],
  then: (request: ProcessRequest, run: ProcessRun, begun?: StepRecord) => Promise<T>,
  first?: (run: NewRun, cursor: RunCursor) => RecordToBegin | undefined,
): Promise<{ request: ProcessRequest; then: T; input: NewRun }> {
  const resolve = async (run: NewRun) => ({ input: run, ...(await checked(run, prepare)) });
  const inOne = first !== undefined && inject === undefined && platform.processes.createsInOne;
  const given = typeof input === 'function' && !inOne ? undefined : await resolve(await runOf(input));
  if (inOne) {
    const created = await createdInOne(platform, accountId, given!, lease(), first);
    if (created) {
      platform.processes.runs.committed(created.run);
      const { request, run, begun } = created;
      return { request, then: await then(request, run, begun), input: given!.input };
    }
  }
  let run: ProcessRun | undefined;
  const created = await platform.processes.transaction(async () => {
    const read = given ?? (await resolve(await runOf(input)));
    const request = await platform.requests.create(accountId, requestOf(read.input, read.data));
    await inject?.('request-stored');
    run = await platform.processes.runs.create(accountId, {
      requestId: request.id,
      ...runRowOf(read, lease()),
    });
    return { request, then: await then(request, run), input: read.input };
  });
  platform.processes.runs.committed(run!);
  return created;
}

const runOf = (input: NewRun | (() => Promise<NewRun>)) => (typeof input === 'function' ? input() : input);

type Checked = Awaited<ReturnType<typeof checked>> & { input: NewRun };

function requestOf(input: NewRun, data: Record<string, unknown>): NewRequest {
  return {
    projectId: input.projectId,
    mode: input.mode,
    data,
    initiatorId: input.initiatorId,
    parentId: input.parentId,
    status: STATUS_RUNNING,
    ...(input.idempotency ? { idempotency: input.idempotency } : {}),
  };
}

function runRowOf(read: Checked, lease: Lease): Omit<NewRunRow, 'requestId'> {
  return {
    definition: read.definition,
    ...(read.cursor ? { cursor: read.cursor } : {}),
    definitionId: read.input.definitionId,
    definitionVersionId: read.input.definitionVersionId,
    userId: read.input.userId,
    depth: read.input.depth,
    lease,
  };
}

/** The request, its run and the first task's record in one statement; undefined where it cannot be. */
async function createdInOne(
  platform: Platform,
  accountId: string,
  read: Checked,
  lease: Lease,
  first: (run: NewRun, cursor: RunCursor) => RecordToBegin | undefined,
): Promise<{ request: ProcessRequest; run: ProcessRun; begun?: StepRecord } | undefined> {
  const begin = read.cursor && first(read.input, read.cursor);
  if (!begin) return undefined;
  const request = await platform.requests.inserting(accountId, requestOf(read.input, read.data));
  const created = await platform.processes.createStarted(accountId, request, runRowOf(read, lease), begin);
  if (created === null) throw new PlatformError('conflict', `request ${request.id} already exists`);
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
  const cursor: RunCursor | undefined = first ?? (start && { ...FIRST_CURSOR, at: start.id });
  return { definition, data, ...(cursor ? { cursor } : {}) };
}

/** A definition with elements outside the executable subset is refused, each named with its line. */
export function refuseUnsupported(definition: ProcessDefinition): void {
  const refusal = outsideSubset(definition);
  if (refusal !== undefined) throw new PlatformError('invalid', refusal);
}
