/**
 * One side of the channel between the HTTP thread and an evaluation thread: the messages sent
 * during one turn of the event loop leave together, as one array, once the turn's I/O callbacks
 * have run (setImmediate). Under load the HTTP thread reads several requests per turn and a thread
 * finishes several tasks per turn; one postMessage for them all costs one serialisation and one
 * wake-up of the other thread instead of one each, and that wake-up is most of the hop's cost
 * (docs/performance.md "The evaluation pool's hop"). Order is kept: a task's progress leaves
 * before its reply. An evaluation thread also flushes at every wall-time check of a budget
 * (limits: onTimeCheck), so a long evaluation does not hold back its siblings' finished replies.
 */
export class Outbox<T> {
  private batch: T[] = [];

  constructor(private readonly post: (batch: T[]) => void) {}

  send(message: T): void {
    if (this.batch.length === 0) setImmediate(this.flush);
    this.batch.push(message);
  }

  /** Sends what waits now, rather than at the end of the turn. */
  readonly flush = (): void => {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.post(batch);
  };
}
