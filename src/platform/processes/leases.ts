/**
 * Leases (docs/hosts.md, "Durable requests and timers"). A run being driven holds a lease on its
 * row (`process_runs.lease_owner`, `lease_expires`): the server process driving it, until when.
 * The driver renews it while it works (Heartbeat); a server that dies stops renewing, and once
 * the lease has expired any server's sweeper claims the run with one conditional UPDATE
 * (ProcessRuns.claimExpired) and resumes it. Named leases (`leases` table) elect one server for
 * a job, such as firing timers. Lease times are wall-clock epoch ms, compared across servers.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigError } from '../../config/index.js';
import { sql, type Sql, type Store } from '../../store/index.js';
import type { ProcessRuns } from './runs.js';

/** This server process, as the owner of the leases it takes. */
export const PROCESS_OWNER = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

export const DEFAULT_LEASE_MS = 30_000;

/** The lease duration: FLOWMARK_LEASE_MS (1 s to 1 h), else 30 s. */
export function leaseMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.FLOWMARK_LEASE_MS;
  if (text === undefined || text === '') return DEFAULT_LEASE_MS;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1000 || value > 3_600_000)
    throw new ConfigError(
      `FLOWMARK_LEASE_MS: expected milliseconds from 1000 to 3600000, got ${JSON.stringify(text)}`,
    );
  return value;
}

/** Past this many, a sweep claims none of its own owner's rows rather than list them all. */
const DRIVING_LISTED = 5_000;

/**
 * The condition that leaves out the rows `lease.owner` holds for the requests it still drives
 * (LeaseKeeper.driving): a sweep claims what a dead server left, never what its own process is
 * running, whatever its lease says.
 */
export function notDriving(lease: Lease, driving: readonly string[]): Sql {
  if (!driving.length) return sql``;
  if (driving.length > DRIVING_LISTED) return sql` AND lease_owner <> ${lease.owner}`;
  return sql` AND NOT (lease_owner = ${lease.owner} AND request_id IN (${sql.join(driving)}))`;
}

export interface LeaseSettings {
  owner: string;
  ttlMs: number;
}

/** A lease to write on a row: who, until when. */
export interface Lease {
  owner: string;
  expires: number;
}

export class NamedLeases {
  constructor(private readonly store: Store) {}

  /** True when `owner` holds the lease `name` until now + ttl (taken, renewed, or taken over once expired). */
  async acquire(name: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
    const row = await this.store.get(sql`
      INSERT INTO leases (name, owner, expires_at) VALUES (${name}, ${owner}, ${now + ttlMs})
      ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
        WHERE leases.expires_at <= ${now} OR leases.owner = excluded.owner
      RETURNING owner`);
    return row !== undefined;
  }

  async release(name: string, owner: string): Promise<void> {
    await this.store.run(sql`DELETE FROM leases WHERE name = ${name} AND owner = ${owner}`);
  }
}

/**
 * Renews, every third of the lease, the leases of the runs this process is driving (one UPDATE
 * for all of them); runs nobody here drives any more are left to expire.
 */
/** Who renews the leases of the runs a runner drives, while it holds them. */
export interface LeaseKeeper {
  hold(requestId: string): void;
  release(requestId: string): void;
  /**
   * The requests held now. Their leases may have lapsed in the store (a beat came late: a loaded
   * machine, a long pause), but this process still drives them: its own sweeper must not claim
   * them and run their steps a second time.
   */
  driving(): string[];
}

/** A heartbeat renewing the leases `lease.owner` holds on runs, three times a lease period. */
export function leaseHeartbeat(runs: Pick<ProcessRuns, 'renew'>, lease: LeaseSettings): Heartbeat {
  return new Heartbeat(
    (ids) => runs.renew(ids, { owner: lease.owner, expires: Date.now() + lease.ttlMs }),
    Math.max(Math.floor(lease.ttlMs / 3), 50),
  );
}

export class Heartbeat implements LeaseKeeper {
  private readonly held = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly renew: (requestIds: string[]) => Promise<unknown>,
    private readonly intervalMs: number,
  ) {}

  hold(requestId: string): void {
    this.held.set(requestId, (this.held.get(requestId) ?? 0) + 1);
    if (!this.timer) {
      this.timer = setInterval(() => void this.beat(), this.intervalMs);
      this.timer.unref();
    }
  }

  release(requestId: string): void {
    const count = (this.held.get(requestId) ?? 1) - 1;
    if (count > 0) this.held.set(requestId, count);
    else this.held.delete(requestId);
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  driving(): string[] {
    return [...this.held.keys()];
  }

  private async beat(): Promise<void> {
    const ids = [...this.held.keys()];
    try {
      for (let i = 0; i < ids.length; i += 500) await this.renew(ids.slice(i, i + 500));
    } catch {
      // A store that is unreachable now may be back at the next beat; meanwhile the lease runs on.
    }
  }
}
