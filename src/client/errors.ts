/**
 * The one error every client method reports (onFailure, or the rejected Promise):
 * `{status, code, message}` — the server's error body when the server answered one.
 *
 * | status | code | when |
 * |---|---|---|
 * | the HTTP status | the server's code (`unauthenticated`, `not-found`, `forbidden`, `invalid`, `invalid-xml` …) | the server refused the request |
 * | the HTTP status | `http-error` | the server answered an error without the JSON error body |
 * | the HTTP status (2xx) | `invalid-xml` / `invalid-json` | the answer is not a well-formed Atom document |
 * | 0 | `network-error` | no answer (server down, connection refused, CORS) |
 * | 0 | `invalid-xml` | loadSet was given XML that is not well-formed, or not an Atom entry |
 * | 0 | `invalid-argument` | a method was called wrongly (no id to load, a bad filter …) |
 * | 0 | `not-supported` | this resource does not offer this method (User.update …) |
 */
export class ClientError extends Error {
  override name = 'ClientError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  toJSON(): { status: number; code: string; message: string } {
    return { status: this.status, code: this.code, message: this.message };
  }
}

export const invalidArgument = (message: string) => new ClientError(0, 'invalid-argument', message);

/** Any thrown value as a ClientError (a bug in a callback stays the bug it is: see settle). */
export function toClientError(error: unknown): ClientError {
  if (error instanceof ClientError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ClientError(0, 'client-error', message);
}
