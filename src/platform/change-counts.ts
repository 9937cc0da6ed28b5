/**
 * Counts of changes, in memory the threads of one server process share: a thread drops what it
 * keeps of a kind (composite API routes, users and delegations) when that kind's count moves, so a
 * write on any thread is seen on all at once. One SharedArrayBuffer holds every count; a platform
 * given none counts alone.
 */

/** Where each kind's count sits in the buffer. */
const CELLS = { routes: 0, directory: 1 } as const;

/** A buffer for every count, to share between the platforms of a server process's threads. */
export function changeCountsBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * Object.keys(CELLS).length);
}

/** One kind's count. */
export class ChangeCount {
  constructor(
    private readonly cells: Int32Array,
    private readonly index: number,
  ) {}

  get value(): number {
    return Atomics.load(this.cells, this.index);
  }

  bump(): void {
    Atomics.add(this.cells, this.index, 1);
  }
}

/** Every kind's count, kept in `buffer` (changeCountsBuffer). */
export function changeCounts(buffer: SharedArrayBuffer = changeCountsBuffer()): {
  routes: ChangeCount;
  directory: ChangeCount;
} {
  const cells = new Int32Array(buffer);
  return { routes: new ChangeCount(cells, CELLS.routes), directory: new ChangeCount(cells, CELLS.directory) };
}
