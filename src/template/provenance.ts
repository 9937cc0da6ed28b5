/**
 * Where a value came from: the objects and arrays of a request's input (a composite API's JSON
 * body, query and headers; a web interface's query) are marked when the host hands them to the
 * template, so a consumer — a collection query — can tell them from the script's own literals.
 * The mark is identity (a WeakSet): template expressions pass these objects on as they are, and
 * toPlain keeps the mark on the copies it makes. Strings and numbers cannot be marked.
 */
const requestInput = new WeakSet<object>();

/** Marks every object and array inside `value` (not the primitives); returns `value`. */
export function markRequestInput<T>(value: T): T {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null || typeof v !== 'object' || requestInput.has(v)) continue;
    requestInput.add(v);
    if (Array.isArray(v)) pending.push(...v);
    else if (isPlain(v)) for (const key of Object.keys(v)) pending.push((v as Record<string, unknown>)[key]);
  }
  return value;
}

/** Marks this one object or array (not what it holds). */
export function markAsRequestInput(value: object): void {
  requestInput.add(value);
}

/** True for an object or array that came from a request's input (or a copy toPlain made of one). */
export function isRequestInput(value: unknown): boolean {
  return value !== null && typeof value === 'object' && requestInput.has(value);
}

/** Gives `copy` the mark of `original`, if it has one. */
export function carryMark(original: object, copy: object): void {
  if (requestInput.has(original)) requestInput.add(copy);
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
