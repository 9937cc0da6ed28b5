/**
 * What each server process runs beside its requests (docs/hosts.md, "Durable requests and
 * timers"): every `intervalMs` it claims the runs whose lease expired (their server died) and
 * resumes them, and — when it holds the `timers` lease, which one server holds at a time — fires
 * the timers that are due and the ticks of timer start events (triggers.ts).
 *
 *   const sweeper = new ProcessSweeper(host.runner, { onError: (e) => log.error(e) });
 *   sweeper.start();  …  await sweeper.stop();
 */
import { ConfigError } from '../../config/index.js';
import type {
  ProcessRun,
  ProcessTimer,
  ProcessTrigger,
  TriggerEvent,
} from '../../platform/processes/index.js';
import type { ProcessRunner } from './runner.js';
import { currentCell, eachCell } from '../../store/index.js';
import { fireCollectionEvent, fireSchedule } from './triggers.js';

/** What the sweeper does with what it claimed: resume a run, fire a timer or a start event's tick (by default its runner). */
export interface SweepWork {
  recover(run: ProcessRun): Promise<void>;
  fireTimer(timer: ProcessTimer): Promise<boolean>;
  fireSchedule(trigger: ProcessTrigger): Promise<boolean>;
  /** Takes a collection trigger's event: true when this call took it and started its request (it matched). */
  fireCollectionEvent(event: TriggerEvent): Promise<boolean>;
  /** The requests this server process drives now: never claimed, even when their lease lapsed. */
  driving(): string[];
}

/** The sweeper's work done by a runner in this thread. */
export function localSweeps(runner: ProcessRunner): SweepWork {
  return {
    recover: (run) => runner.recover(run),
    fireTimer: (timer) => runner.fireTimer(timer),
    fireSchedule: (trigger) => fireSchedule(runner, trigger),
    fireCollectionEvent: (event) => fireCollectionEvent(runner, event),
    driving: () => runner.driving(),
  };
}

export interface SweeperOptions {
  /** How often it looks (default FLOWMARK_SWEEP_MS, else 1 s). */
  intervalMs?: number;
  /** The most runs claimed, and timers fired, per look (default 100). */
  batch?: number;
  /** Told what failed (a store error, a recovery that threw). */
  onError?: (error: unknown) => void;
  /** Where claimed runs are resumed and timers fired (`flowmark serve`: the evaluation pool). */
  work?: SweepWork;
}

export const TIMER_LEASE = 'timers';

/** P_message of a request ended because it was left without a run. */
export const ORPHAN_MESSAGE =
  'ended by the process sweeper: the server that created this request stopped before storing its run (an older flowmark version), so no step ever ran';

export class ProcessSweeper {
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<unknown> | undefined;
  private readonly resuming = new Set<Promise<void>>();
  private readonly intervalMs: number;
  private readonly batch: number;
  /** When each cell (by name; '' without cells) was last looked at for orphans. */
  private readonly orphansLooked = new Map<string, number>();
  private readonly work: SweepWork;

  constructor(
    readonly runner: ProcessRunner,
    private readonly options: SweeperOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? sweepMsFromEnv();
    this.batch = options.batch ?? 100;
    this.work = options.work ?? localSweeps(runner);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      // With cells (docs/deploy.md), one look at each cell in turn; the work it claims runs there.
      this.looking ??= eachCell(() => this.sweep())
        .catch((e) => this.options.onError?.(e))
        .finally(() => (this.looking = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops looking, waits for the runs it resumed, gives the timer lease up. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.looking;
    await Promise.allSettled([...this.resuming]);
    await eachCell(() => this.runner.platform.processes.leases.release(TIMER_LEASE, this.runner.lease.owner));
  }

  /**
   * One look: runs claimed (their recovery goes on in the background), timers fired, start
   * events' due ticks fired (`started`: the requests they started), and — at
   * most once a lease period — requests an older version left without a run ended.
   */
  async sweep(): Promise<{ resumed: number; fired: number; started: number; orphans: number }> {
    const { processes } = this.runner.platform;
    const orphans = await this.endOrphans();
    const claimed = await processes.runs.claimExpired(
      this.runner.leaseUntil(),
      Date.now(),
      this.batch,
      this.work.driving(),
    );
    for (const run of claimed) {
      const recovery = this.work.recover(run).catch((e) => this.options.onError?.(e));
      this.resuming.add(recovery);
      void recovery.finally(() => this.resuming.delete(recovery));
    }
    let fired = 0;
    let started = 0;
    const { owner, ttlMs } = this.runner.lease;
    if (await processes.leases.acquire(TIMER_LEASE, owner, Date.now(), ttlMs)) {
      for (const timer of await processes.timers.due(this.runner.now(), this.batch)) {
        try {
          if (await this.work.fireTimer(timer)) fired++;
        } catch (e) {
          this.options.onError?.(e);
        }
      }
      for (const trigger of await processes.triggers.due(this.runner.now(), this.batch)) {
        try {
          if (await this.work.fireSchedule(trigger)) started++;
        } catch (e) {
          this.options.onError?.(e);
        }
      }
      for (const event of await processes.triggers.events(this.batch)) {
        try {
          if (await this.work.fireCollectionEvent(event)) started++;
        } catch (e) {
          this.options.onError?.(e);
        }
      }
    }
    return { resumed: claimed.length, fired, started, orphans };
  }

  private async endOrphans(): Promise<number> {
    const now = Date.now();
    const { ttlMs } = this.runner.lease;
    const cell = currentCell() ?? '';
    if (now - (this.orphansLooked.get(cell) ?? 0) < ttlMs) return 0;
    this.orphansLooked.set(cell, now);
    // A request and its run are written in one transaction since this version: a running request
    // older than a lease without a run was left by an older version's crash.
    const ended = await this.runner.platform.processes.runs.endOrphans(now - ttlMs, now, ORPHAN_MESSAGE);
    return ended.length;
  }

  /** Resolves when the runs resumed so far have stopped (waiting or ended). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.resuming]);
  }
}

/** FLOWMARK_SWEEP_MS (50 ms to 1 min), else 1 s. */
export function sweepMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.FLOWMARK_SWEEP_MS;
  if (text === undefined || text === '') return 1000;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 50 || value > 60_000)
    throw new ConfigError(
      `FLOWMARK_SWEEP_MS: expected milliseconds from 50 to 60000, got ${JSON.stringify(text)}`,
    );
  return value;
}
