/** A lookup table without a prototype, so names like "constructor" are never found by accident. */
export function dict<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}
