/**
 * A line diff (longest common subsequence) for the History views: what changed between a saved
 * version and the current one. The common head and tail are set aside first; what remains is
 * compared line by line, up to MAX_CELLS of the LCS table, beyond which it is shown as replaced.
 */
export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

const MAX_CELLS = 4_000_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const same = (lines: string[]): DiffLine[] => lines.map((text) => ({ kind: 'same', text }));
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  return [...same(a.slice(0, head)), ...middle(x, y), ...same(a.slice(a.length - tail))];
}

function middle(x: string[], y: string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ kind: 'removed', text });
  const added = (text: string): DiffLine => ({ kind: 'added', text });
  if ((x.length + 1) * (y.length + 1) > MAX_CELLS) return [...x.map(removed), ...y.map(added)];
  // lengths[i][j]: the LCS of x[i..] and y[j..], one row of y.length + 1 per line of x
  const width = y.length + 1;
  const lengths = new Uint32Array((x.length + 1) * width);
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      lengths[i * width + j] =
        x[i] === y[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      out.push({ kind: 'same', text: x[i]! });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) out.push(removed(x[i++]!));
    else out.push(added(y[j++]!));
  }
  while (i < x.length) out.push(removed(x[i++]!));
  while (j < y.length) out.push(added(y[j++]!));
  return out;
}
