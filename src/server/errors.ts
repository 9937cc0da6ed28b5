/**
 * The one error body of the API, `{status, code, message}`, and how every error the layers below
 * raise maps onto it. `code` is a stable kebab-case word a client may branch on; `message` is for
 * people (the platform's wording where it has one: `Project not found.`).
 */
import { FunctionError } from '../functions/errors.js';
import { PLATFORM_ERROR_STATUS, PlatformError } from '../platform/errors.js';
import { CollectionError, type CollectionErrorCode } from '../platform/collections/errors.js';
import { BudgetExceededError } from '../limits/index.js';
import { CONTENTION_RETRY_AFTER_SECONDS, storeFaultAnswer } from '../store/index.js';
import { propertyOf } from '../safety/narrow.js';

export interface ErrorBody {
  status: number;
  code: string;
  message: string;
}

/** An error a route raises on purpose; the handler sends it as it is. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An error raised in another thread (an evaluation worker, src/isolation) and answered as it was
 * mapped there; `detail` is the original error's stack, logged when the reply is internal.
 */
export class RelayedError extends Error {
  override name = 'RelayedError';
  constructor(
    readonly reply: ErrorReply,
    readonly detail?: string,
  ) {
    super(reply.body.message);
    if (detail) this.stack = detail;
  }
}

export const unauthenticated = (message = 'Authentication required: log in or send an API token.') =>
  new ApiError(401, 'unauthenticated', message);
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);
export const notFound = (message: string) => new ApiError(404, 'not-found', message);
export const badRequest = (message: string, code = 'invalid') => new ApiError(400, code, message);

const COLLECTION_STATUS: Record<CollectionErrorCode, number> = {
  'access-denied': 403,
  'read-only': 403,
  'not-allowed': 400,
  invalid: 400,
  'duplicate-key': 409,
  exists: 409,
  'not-found': 404,
  'too-large': 413,
  import: 400,
};

/** Fastify's own errors a client can cause, by their code. */
const FASTIFY_ERRORS: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'too-large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported-media-type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid-json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid-json' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, code: 'unsupported-media-type' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, code: 'too-large' },
  FST_PARTS_LIMIT: { status: 413, code: 'too-large' },
  FST_FILES_LIMIT: { status: 413, code: 'too-large' },
  FST_FIELDS_LIMIT: { status: 413, code: 'too-large' },
  FST_PROTO_VIOLATION: { status: 400, code: 'invalid' },
};

export interface ErrorReply {
  body: ErrorBody;
  /** The server's fault: logged as an error; its details are not shown to the client. */
  internal: boolean;
  /** Seconds to send as `Retry-After` (contention). */
  retryAfter?: number;
}

/** The reply for any error. */
export function toErrorBody(error: unknown): ErrorReply {
  const body = (status: number, code: string, message: string) => ({
    body: { status, code, message },
    internal: false,
  });
  if (error instanceof ApiError) return body(error.status, error.code, error.message);
  if (error instanceof RelayedError) return error.reply;
  if (error instanceof PlatformError)
    return error.code === 'contention'
      ? { ...body(409, 'contention', error.message), retryAfter: CONTENTION_RETRY_AFTER_SECONDS }
      : body(PLATFORM_ERROR_STATUS[error.code], error.code, error.message);
  // A store fault, also when it caused another error (a template's function call): contention
  // (409), a database unavailable (503) or full (507), never a success nor a 500 (store/faults.ts).
  const fault = storeFaultAnswer(error);
  if (fault) return { ...body(fault.status, fault.code, fault.message), retryAfter: fault.retryAfter };
  if (error instanceof BudgetExceededError)
    return error.limit === 'time'
      ? body(422, 'time-limit', error.message)
      : error.limit === 'steps'
        ? body(422, 'step-limit', error.message)
        : body(413, 'too-large', error.message);
  if (error instanceof CollectionError) return body(COLLECTION_STATUS[error.code], error.code, error.message);
  if (error instanceof FunctionError) return body(400, 'invalid', error.message);
  const e = {
    validation: propertyOf(error, 'validation'),
    code: propertyOf(error, 'code'),
    statusCode: propertyOf(error, 'statusCode'),
    message: propertyOf(error, 'message'),
  };
  if (error !== null && typeof error === 'object') {
    if (Array.isArray(e.validation)) return body(400, 'invalid', String(e.message));
    const known = typeof e.code === 'string' ? FASTIFY_ERRORS[e.code] : undefined;
    if (known) return body(known.status, known.code, String(e.message));
    // A JSON body secure-json-parse refused (__proto__ / constructor.prototype keys) or could not read.
    if (error instanceof SyntaxError && e.statusCode === 400)
      return body(400, 'invalid-json', String(e.message));
    const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
    if (status >= 400 && status < 500) return body(status, 'invalid', String(e.message));
  }
  return { body: { status: 500, code: 'internal', message: 'Internal server error.' }, internal: true };
}
