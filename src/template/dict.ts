/** A lookup table without a prototype, so names like "constructor" are never found by accident. */
export function dict<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(emptyDict<T>(), entries);
}

/** An empty lookup table without a prototype. */
export function emptyDict<T>(): Record<string, T> {
  return Object.create(null);
}
