/** Small readers of entry members, for the resource classes. */
import type { AtomEntry } from '../atom/format.js';

export function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function asString(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

export function asNumberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function asNumbers(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
}

/** An ISO date text (or epoch ms) as a Date; null when absent or unreadable. */
export function dateOf(value: unknown): Date | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The numeric id at the end of a `…/<kind>/<id>` URL, or null. */
export function idInHref(href: string | undefined, kind: string): number | null {
  const m = href === undefined ? null : new RegExp(`/${kind}/(\\d+)/?(?:[?#].*)?$`).exec(href);
  return m ? Number(m[1]) : null;
}

/** The entry's record (its content object, as the JSON API shows the resource). */
export function recordOf(entry: AtomEntry): Record<string, unknown> {
  return asObject(entry.content);
}
