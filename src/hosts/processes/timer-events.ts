/**
 * The timer events a request (and its sub-processes) still waits for: intermediate timer catch
 * events (kind `wait`) and timer boundary events (kind `boundary`) whose token still waits on
 * them — what `flowmark run` waits for and fires itself (docs/hosts.md, "The command
 * line", timers under `run`). A manual task's deadline and reminder are not timer events of the model.
 */
import type { Platform } from '../../platform/index.js';
import { graphIndexOf, type ProcessTimer } from '../../platform/processes/index.js';
import { nodeLabel } from './labels.js';

export interface PendingTimerEvent {
  timer: ProcessTimer;
  /** `intermediateCatchEvent Later (Later)`. */
  label: string;
}

/** The earliest timer event of the requests `requestIds` still to fire, if any. */
export async function nextTimerEvent(
  platform: Platform,
  accountId: string,
  requestIds: readonly string[],
): Promise<PendingTimerEvent | undefined> {
  const { timers, runs } = platform.processes;
  const candidates: ProcessTimer[] = [];
  for (const requestId of requestIds)
    for (const timer of await timers.list(accountId, requestId))
      if (timer.firedAt === null && (timer.kind === 'wait' || timer.kind === 'boundary'))
        candidates.push(timer);
  candidates.sort((a, b) => a.dueAt - b.dueAt || a.id - b.id);
  for (const timer of candidates) {
    const message = timer.message ?? '';
    let nodeId: string;
    let waiting: boolean;
    if (timer.kind === 'wait') {
      const [node = '', token] = message.split(' ');
      const run = await runs.token(accountId, timer.requestId, token);
      nodeId = node;
      waiting = run?.cursor.phase === 'timer' && run.cursor.at === node;
    } else {
      const cut = message.indexOf(':');
      const record = Number(message.slice(0, cut));
      nodeId = message.slice(cut + 1);
      waiting = (await runs.allTokens(accountId, timer.requestId)).some(
        (t) => (t.cursor.phase === 'task' || t.cursor.phase === 'child') && t.cursor.record === record,
      );
    }
    // a timer whose token went on (its task submitted, its request ended) fires as nothing
    if (!waiting) continue;
    const run = await runs.find(accountId, timer.requestId);
    const node = run && graphIndexOf(run.definition).nodes.get(nodeId);
    return { timer, label: node ? nodeLabel(node) : nodeId };
  }
  return undefined;
}
