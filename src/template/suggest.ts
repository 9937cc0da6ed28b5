/**
 * "Did you mean …?" for a call of a missing name: the embedder (the function library, src/functions)
 * registers the names it puts in every scope; a call of an unknown name close to one of them gets
 * a tip naming it (FreeMarker itself only says "null or missing").
 */

let known: (() => Iterable<string>) | undefined;

/** Registers the callable names every evaluation has (replacing any registered before). */
export function registerCallableNames(names: () => Iterable<string>): void {
  known = names;
}

/** The registered name closest to `name` when it is close enough to be a misspelling, else undefined. */
export function suggestCallable(name: string): string | undefined {
  return known ? closestName(name, known()) : undefined;
}

/**
 * The candidate closest to `name` when it is close enough to be a misspelling (one edit for short
 * names, two from 8 characters on; names under 4 characters get none), else undefined; ties go to
 * the first candidate. Also the CLI's "did you mean" for a mistyped command.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  if (name.length < 4) return undefined;
  const limit = name.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = limit + 1;
  const lower = name.toLowerCase();
  for (const candidate of candidates) {
    if (candidate === name) return undefined;
    if (Math.abs(candidate.length - name.length) > limit) continue;
    const d = candidate.toLowerCase() === lower ? 0.5 : distance(lower, candidate.toLowerCase(), limit);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance (insertions, deletions, substitutions, adjacent swaps), capped at limit + 1. */
function distance(a: string, b: string, limit: number): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1);
    row[0] = i;
    rows.push(row);
  }
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    let rowMin = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
  }
  return rows[a.length]![b.length]!;
}
