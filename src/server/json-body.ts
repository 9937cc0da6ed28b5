/**
 * The JSON body parser: Fastify's own refuses a `__proto__` key (and `constructor.prototype`)
 * with the same "not valid JSON" as a syntax error; this one says which key it refused.
 */
import { errorCodes, type FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';
import { parseJsonSafely, UnsafeJsonKeyError } from '../safety/index.js';
import { asError } from '../errors/index.js';

function refuse(key: string): never {
  throw new ApiError(
    400,
    'invalid-json',
    `The JSON body holds the key ${JSON.stringify(key)}, which is not allowed.`,
  );
}

export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY();
  try {
    return parseJsonSafely(text, { constructorPrototype: true });
  } catch (e) {
    if (e instanceof UnsafeJsonKeyError) refuse(e.key);
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
}

/** Replaces Fastify's application/json parser (same limits, same errors for malformed text). */
export function useJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(String(body)));
    } catch (e) {
      done(asError(e), undefined);
    }
  });
}
