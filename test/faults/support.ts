/**
 * Helpers of the fault-injection suites (test/faults/): a real server over a store the suite opens
 * itself (on a small disk, a throw-away PostgreSQL …), and a tiny tmpfs for a full disk.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
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

/** A PostgreSQL server of the test's own, which it may stop and start (initdb + pg_ctl). */
export interface Cluster {
  /** postgres://flowmark@127.0.0.1:PORT/flowmark */
  url: string;
  port: number;
  start(): void;
  /** `fast` ends every connection at once (rollback); `immediate` as a crash would. */
  stop(mode?: 'fast' | 'immediate'): void;
  destroy(): void;
}

/** The newest PostgreSQL server binaries installed (/usr/lib/postgresql/N/bin), if any. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : join(root, newest, 'bin');
}

/** Creates and starts a throw-away cluster on `port` (as the postgres user when run as root). */
export function throwAwayCluster(port: number): Cluster {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-pg-'));
  const root = process.getuid?.() === 0;
  if (root) execFileSync('chown', ['postgres', dir]);
  const run = (tool: string, args: string[]) =>
    execFileSync(
      root ? 'runuser' : join(bin, tool),
      root ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args,
      {
        stdio: 'ignore',
      },
    );
  run('initdb', [
    '-D',
    join(dir, 'data'),
    '-U',
    'flowmark',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
  ]);
  const cluster: Cluster = {
    url: `postgres://flowmark@127.0.0.1:${port}/flowmark`,
    port,
    start() {
      run('pg_ctl', [
        '-D',
        join(dir, 'data'),
        '-l',
        join(dir, 'server.log'),
        '-w',
        '-o',
        `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off`,
        'start',
      ]);
    },
    stop(mode = 'fast') {
      run('pg_ctl', ['-D', join(dir, 'data'), '-m', mode, '-w', 'stop']);
    },
    destroy() {
      try {
        cluster.stop('immediate');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'flowmark', 'flowmark']);
  return cluster;
}

/** A TCP port nobody listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
