/**
 * Requests started by a trigger (docs/hosts.md, "Triggers"): a timer start event's tick, fired
 * by the sweeper holding the timer lease. The tick is claimed (platform/processes/triggers.ts)
 * in the transaction that stores the request, so a tick starts one request across servers, and a
 * server dying before that commit leaves the tick to the next sweep. The request runs in LIVE
 * mode without an initiator, with an empty data document.
 */
import { PlatformError } from '../../platform/index.js';
import { describeTimer, type ProcessTrigger } from '../../platform/processes/index.js';
import type { ProcessRunner } from './runner.js';

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
      requestId = await runner.create(accountId, {
        definition: stored.definition,
        definitionId,
        data: {},
        mode: 'LIVE',
        projectId: stored.definition.project,
        initiatorId: null,
        userId: null,
        parentId: null,
        depth: 0,
      });
      await platform.processes.triggers.started(definitionId, requestId);
    } catch (e) {
      if (!(e instanceof PlatformError)) throw e;
      // The tick is spent all the same: a definition that cannot start would fail every sweep.
      await platform.logs.write(accountId, {
        requestId: null,
        projectId: stored.definition.project,
        userId: null,
        mode: 'LIVE',
        level: 'SEVERE',
        message: `process ${JSON.stringify(stored.name)}: the ${describeTimer(trigger.timer!)} of start event ${JSON.stringify(trigger.nodeId)} could not start a request: ${e.message}`,
      });
    }
    return true;
  });
  if (requestId !== undefined) await runner.drive(accountId, requestId);
  return claimed;
}
