/**
 * Slows password guessing: after `maxFailures` failed logins for one key within `windowMs`,
 * further attempts are refused until the window has passed. The server keeps two: per account,
 * login and client address (so that guessing from one address never locks the user out of
 * another), and (with a higher limit) per client address. In memory, per process, bounded; the
 * server processes of one service share their changes (ThrottleShare), so N processes do not
 * give N times the tries.
 */
import { isIPv6 } from 'node:net';

export interface ThrottleOptions {
  maxFailures: number;
  windowMs: number;
  /** Most keys remembered; the oldest are forgotten first. */
  maxKeys: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = {
  maxFailures: 10,
  windowMs: 15 * 60 * 1000,
  maxKeys: 10_000,
};
/** Per client address: many users may share one (a proxy, an office). */
export const DEFAULT_ADDRESS_THROTTLE: ThrottleOptions = { ...DEFAULT_THROTTLE, maxFailures: 100 };

/** One change of a throttle, as another process applies it. */
export interface ThrottleChange {
  op: 'fail' | 'succeed';
  key: string;
  at: number;
}

/** How the server processes of one service tell each other their throttles' changes. */
export interface ThrottleShare {
  publish(throttle: 'login' | 'address', change: ThrottleChange): void;
  subscribe(listener: (throttle: 'login' | 'address', change: ThrottleChange) => void): void;
}

export class LoginThrottle {
  private readonly failures = new Map<string, { count: number; since: number }>();
  /** Told every change made here (not those applied from elsewhere). */
  onChange?: (change: ThrottleChange) => void;

  constructor(
    private readonly clock: () => number,
    private readonly options: ThrottleOptions = DEFAULT_THROTTLE,
  ) {}

  /** Milliseconds until a key may try again, 0 when it may now. */
  retryAfter(key: string): number {
    const entry = this.failures.get(key);
    if (!entry) return 0;
    const left = entry.since + this.options.windowMs - this.clock();
    if (left <= 0) {
      this.failures.delete(key);
      return 0;
    }
    return entry.count >= this.options.maxFailures ? left : 0;
  }

  fail(key: string): void {
    const at = this.clock();
    this.record(key, at);
    this.onChange?.({ op: 'fail', key, at });
  }

  succeed(key: string): void {
    this.failures.delete(key);
    this.onChange?.({ op: 'succeed', key, at: this.clock() });
  }

  /** A change another process made. */
  apply(change: ThrottleChange): void {
    if (change.op === 'fail') this.record(change.key, change.at);
    else this.failures.delete(change.key);
  }

  private record(key: string, at: number): void {
    const entry = this.failures.get(key);
    if (entry && entry.since + this.options.windowMs > at) entry.count++;
    else {
      this.failures.delete(key);
      this.failures.set(key, { count: 1, since: at });
      if (this.failures.size > this.options.maxKeys) {
        const oldest = this.failures.keys().next().value;
        if (oldest !== undefined) this.failures.delete(oldest);
      }
    }
  }
}

/**
 * The client a throttle counts: an IPv4 address as it is, an IPv6 address by its /64 prefix (one
 * subscriber's network, whose 2^64 addresses would otherwise each get their own tries).
 */
export function clientKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
