/**
 * Requests started by a trigger (docs/hosts.md, "Triggers"): a message sent to a message start
 * event (over HTTP, or by send_process_message), and a timer start event's tick, fired by the
 * sweeper holding the timer lease. The tick is claimed (platform/processes/triggers.ts)
 * in the transaction that stores the request, so a tick starts one request across servers, and a
 * server dying before that commit leaves the tick to the next sweep. The request runs in LIVE
 * mode without an initiator, with an empty data document.
 */
import { setMessageSender, type MessageStarted } from '../../functions/request/index.js';
import { PlatformError, type Platform } from '../../platform/index.js';
import {
  DEFINITION_LIMITS,
  describeTimer,
  matchesTrigger,
  triggerOf,
  type ProcessTrigger,
  type TriggerEvent,
} from '../../platform/processes/index.js';
import { errorMessage } from '../../errors/index.js';
import { isPlainObject } from '../../platform/model.js';
import type { ProcessRunner } from './runner.js';
import type { NewRun } from './runner-api.js';
import type { StoredDefinition } from '../../platform/processes/index.js';

/** The stored definition an enabled message start event of the account starts on `message`, or 404. */
export async function messageProcess(
  platform: Platform,
  accountId: string,
  message: string,
): Promise<number> {
  const trigger = await platform.processes.triggers.findMessage(accountId, message);
  if (!trigger)
    throw new PlatformError(
      'not-found',
      `No process starts on message ${JSON.stringify(message)}: no stored process of the account has an enabled message start event of that name.`,
    );
  return trigger.definitionId;
}

/**
 * send_process_message on this platform: the message's process starts as the script's user, in
 * its mode, and runs until it waits or ends. A request started so from a request is one deeper
 * (`depth`), so a process that messages itself stops at the nesting limit.
 */
export function serveMessages(runner: ProcessRunner): void {
  const { platform } = runner;
  setMessageSender(platform, async (ctx, message, data): Promise<MessageStarted> => {
    const { accountId } = ctx;
    const from =
      ctx.requestId === undefined ? undefined : await platform.processes.runs.find(accountId, ctx.requestId);
    const depth = from ? from.depth + 1 : 0;
    if (depth > DEFINITION_LIMITS.nesting)
      throw new PlatformError(
        'invalid',
        `requests started by messages from requests nest at most ${DEFINITION_LIMITS.nesting} deep`,
      );
    const definitionId = await messageProcess(platform, accountId, message);
    const stored = await platform.processes.definitions.require(accountId, definitionId);
    const requestId = await runner.create(accountId, {
      definition: stored.definition,
      definitionId,
      definitionVersionId: stored.versionId,
      data,
      mode: ctx.mode,
      projectId: stored.definition.project,
      initiatorId: ctx.user!.id,
      userId: ctx.user!.id,
      parentId: null,
      depth,
    });
    await runner.drive(accountId, requestId);
    const request = await platform.requests.require(accountId, requestId);
    return { id: requestId, status: request.status, process: stored.name };
  });
}

/** Fires a due timer trigger: true when this call claimed its tick (and started its request). */
export async function fireSchedule(runner: ProcessRunner, trigger: ProcessTrigger): Promise<boolean> {
  const { platform } = runner;
  const { accountId, definitionId } = trigger;
  const stored = await platform.processes.definitions.find(accountId, definitionId);
  if (!stored || trigger.timer === null) return false;
  const now = runner.now();
  let requestId: string | undefined;
  const claimed = await platform.processes.transaction(async () => {
    if (!(await platform.processes.triggers.claim(trigger, runner.lease.owner, now))) return false;
    try {
      requestId = await runner.create(accountId, triggeredRun(stored, {}));
      await platform.processes.triggers.started(definitionId, requestId);
    } catch (e) {
      if (!(e instanceof PlatformError)) throw e;
      // The tick is spent all the same: a definition that cannot start would fail every sweep.
      await logTriggerProblem(
        platform,
        accountId,
        stored,
        `the ${describeTimer(trigger.timer!)} of start event ${JSON.stringify(trigger.nodeId)} could not start a request: ${e.message}`,
      );
    }
    return true;
  });
  if (requestId !== undefined) await runner.drive(accountId, requestId);
  return claimed;
}

/**
 * Takes a collection trigger's event (a document written to the collection it watches): when the
 * document matches the trigger's filter, the request it starts is stored in the transaction that
 * deletes the event, so an event starts one request across servers; one that does not match is
 * only deleted. True when this call started a request. The request's data document is
 * `{"collection": …, "document": …}`.
 */
export async function fireCollectionEvent(runner: ProcessRunner, event: TriggerEvent): Promise<boolean> {
  const { platform } = runner;
  const { accountId, definitionId } = event;
  const stored = await platform.processes.definitions.find(accountId, definitionId);
  const watched = stored ? triggerOf(stored.definition)?.collection : undefined;
  const parsed: unknown = JSON.parse(event.doc);
  const document = isPlainObject(parsed) ? parsed : {};
  let matches = false;
  let problem: string | undefined;
  try {
    matches = watched !== undefined && matchesTrigger(watched.filter, document);
  } catch (e) {
    problem = `its filter could not be matched against a document: ${errorMessage(e)}`;
  }
  const now = runner.now();
  let requestId: string | undefined;
  const taken = await platform.processes.transaction(async () => {
    if (!(await platform.processes.triggers.takeEvent(event, runner.lease.owner, now, matches))) return false;
    if (!matches || !stored || !watched) return true;
    try {
      requestId = await runner.create(
        accountId,
        triggeredRun(stored, { collection: watched.name, document }),
      );
      await platform.processes.triggers.started(definitionId, requestId);
    } catch (e) {
      if (!(e instanceof PlatformError)) throw e;
      problem = `a matching document could not start a request: ${e.message}`;
    }
    return true;
  });
  if (taken && problem !== undefined && stored)
    await logTriggerProblem(
      platform,
      accountId,
      stored,
      `the collection trigger of start event ${JSON.stringify(triggerOf(stored.definition)?.id)}: ${problem}`,
    );
  if (requestId === undefined) return false;
  await runner.drive(accountId, requestId);
  return true;
}

/** A request a trigger starts: LIVE, without initiator, at the top level. */
function triggeredRun(stored: StoredDefinition, data: Record<string, unknown>): NewRun {
  return {
    definition: stored.definition,
    definitionId: stored.id,
    definitionVersionId: stored.versionId,
    data,
    mode: 'LIVE',
    projectId: stored.definition.project,
    initiatorId: null,
    userId: null,
    parentId: null,
    depth: 0,
  };
}

/** A trigger that could not start its request: a SEVERE line of the account's LIVE log, under the process's project. */
async function logTriggerProblem(
  platform: Platform,
  accountId: string,
  stored: StoredDefinition,
  problem: string,
): Promise<void> {
  await platform.logs.write(accountId, {
    requestId: null,
    projectId: stored.definition.project,
    userId: null,
    mode: 'LIVE',
    level: 'SEVERE',
    message: `process ${JSON.stringify(stored.name)}: ${problem}`,
  });
}
