/**
 * The log P_log writes: java.util.logging levels, the mode rule deciding what is kept (TEST and
 * ACCEPTANCE keep every level, LIVE only SEVERE, unless the resource's P_log attribute sets the
 * threshold), and the 3 KB message limit (longer messages are cut and end with `(...)`).
 */
import type { Store } from '../store/index.js';
import { sql } from '../store/sql.js';
import type { Mode } from './model.js';

export const LOG_LEVELS = ['SEVERE', 'WARNING', 'INFO', 'CONFIG', 'FINE', 'FINER', 'FINEST'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** A threshold: a level, or OFF (nothing) / ALL (everything). */
export type LogThreshold = LogLevel | 'OFF' | 'ALL';

const SEVERITY: Record<LogThreshold, number> = {
  OFF: Infinity,
  SEVERE: 1000,
  WARNING: 900,
  INFO: 800,
  CONFIG: 700,
  FINE: 500,
  FINER: 400,
  FINEST: 300,
  ALL: -Infinity,
};

/** Largest message kept, in UTF-8 bytes (3 Kbytes), the `(...)` marker included. */
export const MAX_LOG_BYTES = 3 * 1024;
export const TRUNCATION_MARK = '(...)';

export function isLogLevel(value: unknown, orThreshold = false): value is LogThreshold {
  if (typeof value !== 'string') return false;
  return orThreshold ? Object.hasOwn(SEVERITY, value) : LOG_LEVELS.some((level) => level === value);
}

/** The threshold a script runs with: the resource's P_log attribute, else the mode's rule. */
export function logThreshold(mode: Mode, resourceLevel?: LogThreshold | null): LogThreshold {
  if (resourceLevel) return resourceLevel;
  return mode === 'LIVE' ? 'SEVERE' : 'ALL';
}

export function isLogged(level: LogLevel, threshold: LogThreshold): boolean {
  return SEVERITY[level] >= SEVERITY[threshold];
}

/** The message as kept: at most 3 KB of UTF-8, a longer one cut at a character boundary and ending with `(...)`. */
export function truncateLogMessage(message: string): string {
  if (Buffer.byteLength(message, 'utf8') <= MAX_LOG_BYTES) return message;
  const room = MAX_LOG_BYTES - TRUNCATION_MARK.length;
  let bytes = 0;
  let end = 0;
  for (const ch of message) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > room) break;
    bytes += size;
    end += ch.length;
  }
  return message.slice(0, end) + TRUNCATION_MARK;
}

export interface LogEntry {
  id: number;
  accountId: string;
  requestId: string | null;
  projectId: number | null;
  userId: number | null;
  mode: Mode;
  level: LogLevel;
  message: string;
  createdAt: number;
}

export type NewLogEntry = Omit<LogEntry, 'id' | 'accountId' | 'createdAt'>;

type LogRow = {
  id: number;
  account_id: string;
  request_id: string | null;
  project_id: number | null;
  user_id: number | null;
  mode: string;
  level: string;
  message: string;
  created_at: number;
};

export class Logs {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  async write(accountId: string, entry: NewLogEntry): Promise<LogEntry> {
    const row = await this.store.get<LogRow>(sql`
      INSERT INTO logs (account_id, request_id, project_id, user_id, mode, level, message, created_at)
      VALUES (${accountId}, ${entry.requestId}, ${entry.projectId}, ${entry.userId}, ${entry.mode}, ${entry.level},
              ${truncateLogMessage(entry.message)}, ${this.clock()})
      RETURNING *`);
    return toEntry(row!);
  }

  /** The latest entries first (of one request when given). */
  async list(accountId: string, options: LogQuery = {}): Promise<LogEntry[]> {
    const rows = await this.store.all<LogRow>(sql`
      SELECT * FROM logs WHERE account_id = ${accountId}
      ${options.requestId === undefined ? sql`` : sql`AND request_id = ${options.requestId}`}
      ${options.level === undefined ? sql`` : sql`AND level IN (${sql.join(levelsAtLeast(options.level))})`}
      ${options.since === undefined ? sql`` : sql`AND created_at >= ${options.since}`}
      ${options.until === undefined ? sql`` : sql`AND created_at < ${options.until}`}
      ${options.before === undefined ? sql`` : sql`AND id < ${options.before}`}
      ${
        // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
        options.text === undefined
          ? sql``
          : sql`AND lower(message) LIKE lower(${likeContaining(options.text)}) ESCAPE '!'`
      }
      ORDER BY id DESC LIMIT ${Math.min(options.limit ?? 100, 1001)}`);
    return rows.map(toEntry);
  }
}

export interface LogQuery {
  requestId?: string;
  /** The minimum severity: WARNING gives SEVERE and WARNING entries. */
  level?: LogLevel;
  /** Epoch milliseconds: created at or after. */
  since?: number;
  /** Epoch milliseconds: created before. */
  until?: number;
  /** Only entries with a smaller id (the next page of a list ordered by id, latest first). */
  before?: number;
  /** A case-insensitive substring of the message, taken literally. */
  text?: string;
  /** At most 1001: a page of 1000 and the entry telling whether another page follows. */
  limit?: number;
}

/** The levels at least as severe as `level`. */
export function levelsAtLeast(level: LogLevel): LogLevel[] {
  return LOG_LEVELS.filter((l) => SEVERITY[l] >= SEVERITY[level]);
}

/** A LIKE pattern (escape character `!`) matching any text containing `text` literally. */
function likeContaining(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

function toEntry(row: LogRow): LogEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    requestId: row.request_id,
    projectId: row.project_id,
    userId: row.user_id,
    mode: storedOf(LOG_MODES, row.mode, 'a stored mode'),
    level: storedOf(LOG_LEVELS, row.level, 'a stored log level'),
    message: row.message,
    createdAt: row.created_at,
  };
}

/** A log level or threshold read from the store (an Error if the column holds anything else). */
export function storedLogLevel(value: unknown): LogThreshold {
  if (isLogLevel(value, true)) return value;
  throw new Error(`a stored log level: ${JSON.stringify(value)} is not a log level`);
}

/**
 * The modes a log row holds. This module loads with `flowmark render` (a template's log calls),
 * which keeps model.ts and safety/narrow.ts out: hence this list and storedOf rather than theirs.
 */
const LOG_MODES: readonly Mode[] = ['LIVE', 'ACCEPTANCE', 'TEST'];

function storedOf<T extends string>(values: readonly T[], value: unknown, what: string): T {
  const found = values.find((v) => v === value);
  if (found === undefined)
    throw new Error(`${what}: ${JSON.stringify(value)} is not one of ${values.join(', ')}`);
  return found;
}
