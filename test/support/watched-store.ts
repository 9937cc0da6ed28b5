/**
 * The suite's store with every statement's text (whitespace folded) handed to `seen` before it
 * runs: tests count what the platform sends without touching the engine.
 */
import type { Store } from '../../src/store/index.js';

export function watchedStore(store: Store, seen: (text: string) => void): Store {
  const watch = (q: Parameters<Store['all']>[0]) =>
    seen(q.render(store.dialect.name).text.replace(/\s+/g, ' ').trim());
  return {
    dialect: store.dialect,
    location: store.location,
    lockWaitMs: store.lockWaitMs,
    all: (q) => (watch(q), store.all(q)),
    get: (q) => (watch(q), store.get(q)),
    run: (q) => (watch(q), store.run(q)),
    exec: (t) => store.exec(t),
    transaction: (fn, options) => store.transaction(fn, options),
    close: () => store.close(),
  } as Store;
}
