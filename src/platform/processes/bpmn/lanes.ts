/**
 * BPMN lanes as flowmark lanes (docs/hosts.md, "BPMN", "Lanes"): a task inside a `bpmn:lane` of
 * its process's `laneSet` (the innermost one, lanes nest by `childLaneSet`) runs in the flowmark
 * lane the BPMN lane names — its `flowmark:lane` id, else the account's one lane whose name is
 * the BPMN lane's `name` (else its `id`). The account's lanes are read when the model is saved.
 */
import type { ModdleElement } from 'bpmn-moddle';
import { isElement, list } from './elements.js';

/** A lane of the account, as a BPMN lane is matched against it. */
export interface AccountLane {
  id: number;
  name: string;
}

/** A task's flowmark lane, or why its BPMN lane names none (then the task cannot run). */
export type LaneOfTask = { lane: number } | { problem: string; laneElement: ModdleElement };

export function lanesOfTasks(
  process: ModdleElement,
  accountLanes: readonly AccountLane[],
): Map<ModdleElement, LaneOfTask> {
  const found = new Map<ModdleElement, LaneOfTask>();
  const visit = (laneSet: ModdleElement) => {
    for (const lane of list(laneSet.lanes)) {
      const resolved = resolve(lane, accountLanes);
      for (const node of list(lane.flowNodeRef)) found.set(node, resolved);
      // Visited after: a task of a nested lane takes the inner one.
      if (isElement(lane.childLaneSet)) visit(lane.childLaneSet);
    }
  };
  for (const laneSet of list(process.laneSets)) visit(laneSet);
  return found;
}

function resolve(lane: ModdleElement, accountLanes: readonly AccountLane[]): LaneOfTask {
  if (typeof lane.lane === 'number') return { lane: lane.lane };
  const name = (lane.name ?? '').trim() || (lane.id ?? '');
  const matching = accountLanes.filter((l) => l.name.trim() === name);
  if (matching.length === 1) return { lane: matching[0]!.id };
  const problem =
    matching.length === 0
      ? `no lane of the account is named ${JSON.stringify(name)}`
      : `${matching.length} lanes of the account are named ${JSON.stringify(name)} (${matching
          .map((l) => l.id)
          .join(', ')}): give the one with flowmark:lane="<id>" on the bpmn:lane`;
  return { problem, laneElement: lane };
}
