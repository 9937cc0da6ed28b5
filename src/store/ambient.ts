import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The transaction of the current async context. Node 20's AsyncLocalStorage, once used, adds a
 * hook to every promise of the process (about 3× the cost of an await); so it is switched off
 * again whenever no transaction is open, and statements outside transactions run hook-free.
 */
export class Ambient<T extends { done: boolean }> {
  private readonly storage = new AsyncLocalStorage<T>();
  private open = 0;

  /** The open transaction of this async context, if any. */
  current(): T | undefined {
    if (this.open === 0) return undefined;
    const state = this.storage.getStore();
    return state && !state.done ? state : undefined;
  }

  /** Runs `fn` with `state` as the ambient transaction (until it settles). */
  async run<R>(state: T, fn: () => Promise<R>): Promise<R> {
    this.open++;
    try {
      return await this.storage.run(state, fn);
    } finally {
      if (--this.open === 0) this.storage.disable();
    }
  }
}
