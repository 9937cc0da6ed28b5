/**
 * The hash of a JSON value's content: SHA-256 of the value written with sorted keys, so equal
 * values hash equal whatever their key order (PostgreSQL's and SQLite's JSON texts differ in
 * that). Versions of designed artefacts and the definitions requests run are deduplicated by it.
 */
import { createHash } from 'node:crypto';
import { isRecord } from '../safety/narrow.js';

export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}
