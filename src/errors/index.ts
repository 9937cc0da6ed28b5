/** What a caught value says: an Error's message, anything else (a thrown string …) as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A caught value as an Error (for callbacks that take one): an Error as it is, anything else wrapped. */
export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
