/**
 * Errors of the platform model (directory, projects, requests, counters, locks …). The message is
 * the reason alone, in the platform's wording where the spec gives one (`Unable to retrieve
 * user.`, `Project not found.`); the function layer prefixes it with the function's name.
 */
export type PlatformErrorCode =
  | 'not-found' // an unknown user, lane, pool, project, request, custom list, account …
  | 'invalid' // a malformed argument (path, token, name, option)
  | 'not-allowed' // a rights check refused the operation
  | 'conflict' // a login, email or name already taken
  | 'contention' // a concurrent modification that retries could not resolve
  | 'timeout'; // a lock not obtained in time

export class PlatformError extends Error {
  override name = 'PlatformError';
  constructor(
    readonly code: PlatformErrorCode,
    message: string,
    /**
     * What the error is about (`user "nobody"`), for the log lines that tell it; the message stays
     * the spec's wording, which does not say.
     */
    readonly subject?: string,
  ) {
    super(message);
  }
}

/** The HTTP status a platform error answers with, wherever it reaches HTTP (REST, task pages). */
export const PLATFORM_ERROR_STATUS: Readonly<Record<PlatformErrorCode, number>> = {
  'not-found': 404,
  invalid: 400,
  'not-allowed': 403,
  conflict: 409,
  contention: 409,
  timeout: 409,
};

/** The spec's wordings, used wherever the same condition occurs. */
export const MESSAGES = {
  userNotFound: 'Unable to retrieve user.',
  laneNotFound: 'Lane not found.',
  poolNotFound: 'Pool not found.',
  projectNotFound: 'Project not found.',
  requestNotFound: 'Request not found.',
  customListNotFound: 'Custom list not found.',
  noManager: 'No manager found.',
  contention: 'Counter already being modified, cannot increment it.',
  lockTimeout: 'Timeout exception',
  impersonationRefused: 'Impersonification is not allowed for user.',
} as const;

export function notFound(message: string, subject?: string): PlatformError {
  return new PlatformError('not-found', message, subject);
}

/** `Unable to retrieve user.`, about the user asked for. */
export function userNotFound(ref: number | string): PlatformError {
  return notFound(MESSAGES.userNotFound, `user ${JSON.stringify(ref)}`);
}
