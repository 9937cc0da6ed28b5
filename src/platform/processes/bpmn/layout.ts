/**
 * Places a graph's nodes for its diagram: left to right by layer (the longest path from the start
 * event, flows going back ignored), one row per node of a layer; a boundary event sits on the
 * lower edge of its task. With lanes, each lane is a band of rows of its own.
 */
import type { FlowNode, GraphIndex } from '../graph.js';

const onEdge = (node: FlowNode): node is FlowNode & { kind: 'boundary-error' | 'boundary-timer' } =>
  node.kind === 'boundary-error' || node.kind === 'boundary-timer';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const SIZE: Record<FlowNode['kind'], [number, number]> = {
  start: [36, 36],
  end: [36, 36],
  task: [100, 80],
  exclusive: [50, 50],
  parallel: [50, 50],
  'boundary-error': [36, 36],
  timer: [36, 36],
  'boundary-timer': [36, 36],
  inclusive: [50, 50],
};
const COLUMN = 170;
const ROW = 130;
const LEFT = 160;
const TOP = 80;

/**
 * `bandOf`: a band (a lane's, drawn as horizontal stripes, 0 first) per node; without it, one band.
 * `bands` gives each band's stripe: its top and height.
 */
export function layout(
  index: GraphIndex,
  bandOf?: ReadonlyMap<string, number>,
): { boxes: Map<string, Box>; bands: Array<{ y: number; height: number }> } {
  const layers = new Map<string, number>();
  const order: string[] = [];
  const visiting = new Set<string>();
  // Depth-first from the start: a flow to a node on the current path goes back and is not a layer step.
  const back = new Set<string>();
  const visit = (id: string) => {
    visiting.add(id);
    for (const flow of index.outgoing.get(id) ?? []) {
      if (visiting.has(flow.target)) back.add(flow.id);
      else if (!order.includes(flow.target)) visit(flow.target);
    }
    visiting.delete(id);
    order.unshift(id);
  };
  const roots = [
    ...index.graph.nodes.filter((n) => n.kind === 'start'),
    ...index.graph.nodes.filter(onEdge),
    ...index.graph.nodes,
  ];
  for (const node of roots) if (!order.includes(node.id)) visit(node.id);
  for (const id of order) {
    const node = index.nodes.get(id)!;
    let layer = layers.get(id) ?? 0;
    if (onEdge(node)) layer = layers.get(node.attachedTo) ?? layer;
    layers.set(id, layer);
    for (const flow of index.outgoing.get(id) ?? [])
      if (!back.has(flow.id)) layers.set(flow.target, Math.max(layers.get(flow.target) ?? 0, layer + 1));
  }
  const placed = index.graph.nodes.filter((n) => !onEdge(n));
  const bandCount = Math.max(1, ...placed.map((n) => (bandOf?.get(n.id) ?? 0) + 1));
  const rows = Array.from({ length: bandCount }, () => new Map<number, number>());
  const rowOf = new Map<string, number>();
  for (const node of placed) {
    const inBand = rows[bandOf?.get(node.id) ?? 0]!;
    const layer = layers.get(node.id) ?? 0;
    const row = inBand.get(layer) ?? 0;
    inBand.set(layer, row + 1);
    rowOf.set(node.id, row);
  }
  const bands: Array<{ y: number; height: number }> = [];
  let top = TOP;
  for (const inBand of rows) {
    const height = Math.max(1, ...inBand.values()) * ROW;
    bands.push({ y: top - (ROW - 80) / 2, height });
    top += height;
  }
  const boxes = new Map<string, Box>();
  for (const node of placed) {
    const band = bands[bandOf?.get(node.id) ?? 0]!;
    const [width, height] = SIZE[node.kind];
    boxes.set(node.id, {
      x: LEFT + (layers.get(node.id) ?? 0) * COLUMN + (100 - width) / 2,
      y: band.y + (ROW - 80) / 2 + rowOf.get(node.id)! * ROW + (80 - height) / 2,
      width,
      height,
    });
  }
  const onTask = new Map<string, number>();
  for (const node of index.graph.nodes)
    if (onEdge(node)) {
      const task = boxes.get(node.attachedTo)!;
      const n = onTask.get(node.attachedTo) ?? 0;
      onTask.set(node.attachedTo, n + 1);
      boxes.set(node.id, { x: task.x + 50 + n * 40, y: task.y + task.height - 18, width: 36, height: 36 });
    }
  return { boxes, bands };
}
