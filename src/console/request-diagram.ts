/**
 * A request's diagram (docs/console.md, "The diagram"): its process's BPMN export in the bpmn-js
 * viewer, each task coloured by the status of its step records (done, waiting, failed, skipped)
 * with a badge giving the status, the iterations and the time it took; a failed task's badge
 * shows its error and marks its row in the steps table. A task that never ran is skipped once the
 * request ended. The diagram is the stored definition's (by the request's process name): a
 * request started before a change of it keeps its own steps, which may no longer match.
 */
import { api } from './api.js';
import { bpmnJs, definitionXml } from './bpmn-js.js';
import { fill, h } from './dom.js';

export interface StepRecord {
  stepId: number;
  iteration: number;
  status: string;
  error: { message: string; line?: number; column?: number; template?: string } | null;
  startedAt: number;
  endedAt: number | null;
}

interface Definition {
  id: number;
  name: string;
  definition: {
    steps: Array<{ id: number }>;
    graph?: { nodes: Array<{ id: string; kind: string; step?: number }> };
  };
}

interface Overlays {
  add(element: string, overlay: { position: { bottom?: number; left?: number }; html: HTMLElement }): void;
}
interface Canvas {
  addMarker(id: string, marker: string): void;
  zoom(level: 'fit-viewport'): void;
}

export const STATUSES = ['done', 'waiting', 'running', 'failed', 'skipped'] as const;

/**
 * Draws the diagram of `process` into `container` (already in the page): false when there is
 * none to draw (no stored definition of that name, or a user who may not read definitions).
 */
export async function showRequestDiagram<S extends StepRecord>(
  container: HTMLElement,
  process: string,
  steps: S[],
  ended: boolean,
  onError: (step: S) => void,
): Promise<boolean> {
  let definitions: Definition[];
  try {
    definitions = (await api<{ items: Definition[] }>('GET', '/processes')).items;
  } catch {
    return false; // not an administrator: the steps table stays the only view
  }
  const stored = definitions.find((d) => d.name === process);
  if (!stored) return false;
  const canvasElement = h('div', { class: 'diagram-canvas small', 'aria-label': `Diagram of ${process}` });
  const legend = h('p', { class: 'diagram-legend', role: 'status' });
  fill(container, legend, canvasElement);
  const Viewer = await bpmnJs('viewer');
  const viewer = new Viewer({ container: canvasElement });
  await viewer.importXML(await definitionXml(stored.id));
  const canvas = viewer.get<Canvas>('canvas');
  canvas.zoom('fit-viewport');
  const overlays = viewer.get<Overlays>('overlays');
  const counts = new Map<string, number>();
  for (const [nodeId, stepId] of taskNodes(stored)) {
    const records = steps.filter((s) => s.stepId === stepId);
    const status = nodeStatus(records, ended);
    if (!status) continue;
    counts.set(status, (counts.get(status) ?? 0) + 1);
    canvas.addMarker(nodeId, `node-${status}`);
    const failed = records.find((r) => r.status === 'failed');
    const text = [status, records.length > 1 ? `×${records.length}` : '', timing(records)]
      .filter(Boolean)
      .join(' · ');
    const badge = failed
      ? h(
          'button',
          {
            type: 'button',
            class: `node-badge node-${status}`,
            'data-node': nodeId,
            title: failed.error?.message ?? 'failed',
            onclick: () => onError(failed),
          },
          text,
        )
      : h('span', { class: `node-badge node-${status}`, 'data-node': nodeId }, text);
    overlays.add(nodeId, { position: { bottom: 4, left: 0 }, html: badge });
  }
  legend.textContent = STATUSES.filter((s) => counts.has(s))
    .map((s) => `${counts.get(s)} ${s}`)
    .join(' · ');
  canvasElement.dataset.ready = 'true';
  return true;
}

/** Task node id → step id, from the definition's graph (a JSON one without: Step_<id>). */
function taskNodes(stored: Definition): Array<[string, number]> {
  const graph = stored.definition.graph;
  if (!graph) return stored.definition.steps.map((s) => [`Step_${s.id}`, s.id]);
  return graph.nodes.filter((n) => n.kind === 'task' && n.step !== undefined).map((n) => [n.id, n.step!]);
}

/** A task's status from its step records (every iteration): undefined while it has not run yet. */
function nodeStatus(records: StepRecord[], ended: boolean): string | undefined {
  if (records.length === 0) return ended ? 'skipped' : undefined;
  for (const status of ['failed', 'waiting', 'running'])
    if (records.some((r) => r.status === status)) return status;
  return records.every((r) => r.status === 'skipped') ? 'skipped' : 'done';
}

/** From the first record's start to the last one's end (none while one runs). */
function timing(records: StepRecord[]): string {
  if (records.length === 0 || records.some((r) => r.endedAt === null)) return '';
  const start = Math.min(...records.map((r) => r.startedAt));
  const end = Math.max(...records.map((r) => r.endedAt!));
  const ms = end - start;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
