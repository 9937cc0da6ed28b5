/**
 * Helpers of the fault-injection suites (test/faults/): a real server over a store the suite opens
 * itself (on a small disk, a throw-away PostgreSQL …), and a tiny tmpfs for a full disk.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../src/store/index.js';
import type { EngineUnderTest } from '../support/engines.js';

/** An engine whose store the suite sets (in its own beforeAll, before useServer's). */
export function storeHolder(name: 'sqlite' | 'postgres'): EngineUnderTest & { set(store: Store): void } {
  let current: Store | undefined;
  return {
    name,
    get store(): Store {
      if (!current) throw new Error('faults: the store is not open yet');
      return current;
    },
    set(store: Store) {
      current = store;
    },
    openStore: () => Promise.reject(new Error('faults: no second store')),
  };
}

/**
 * Mounts a tmpfs of `bytes` (root only: false when this machine does not allow it, and the
 * suite is skipped with that reason). Returns its directory and how to unmount it.
 */
export function mountTinyDisk(bytes: number): { dir: string; unmount(): void } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-tiny-'));
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this process may mount a tmpfs (tried once, on a throw-away directory). */
export function canMount(): boolean {
  const probe = mountTinyDisk(64 * 1024);
  probe?.unmount();
  return probe !== undefined;
}
