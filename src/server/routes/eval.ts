/**
 * POST /api/v1/eval: evaluate a template in a context the caller chooses (mode, data, project,
 * request). Evaluating arbitrary templates is a design right: administrators of the account, or
 * designers of the project given (src/platform/rights.ts); only an administrator may evaluate as
 * another user of the account. A template that fails
 * is still a 200: the answer carries the error with its line and column (what the playground
 * shows); 4xx are for requests the server refuses.
 */
import { Type } from 'typebox';
import { callerOf } from '../auth/access.js';
import type { Api, ServerDeps } from '../deps.js';
import { ApiError, forbidden } from '../errors.js';
import { JsonObject, Mode } from '../schemas.js';
import { RIGHTS_MESSAGES } from '../../platform/index.js';

/** Largest template accepted, in characters. */
export const MAX_TEMPLATE_CHARS = 512 * 1024;

const EvalBody = Type.Object(
  {
    template: Type.String({ maxLength: MAX_TEMPLATE_CHARS }),
    mode: Type.Optional(Mode),
    user: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'evaluate as this login (administrators)' }),
    ),
    data: Type.Optional(JsonObject),
    projectId: Type.Optional(Type.Integer({ minimum: 1 })),
    requestId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    locale: Type.Optional(Type.String({ pattern: '^[a-z]{2,3}(_[A-Z]{2})?$' })),
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

const EvalResult = Type.Object({
  output: Type.String(),
  variables: JsonObject,
  logs: Type.Array(Type.Object({ level: Type.String(), message: Type.String() })),
  response: Type.Object({
    status: Type.Optional(Type.Integer()),
    statusName: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    headers: Type.Record(Type.String(), Type.String()),
  }),
  error: Type.Optional(
    Type.Object({
      message: Type.String(),
      kind: Type.Optional(Type.String()),
      line: Type.Optional(Type.Integer()),
      column: Type.Optional(Type.Integer()),
      templateName: Type.Optional(Type.String()),
    }),
  ),
});

/** The prefix the plugin is registered under (below /api/v1). */
export const EVAL_PREFIX = '/eval';

/** POST /eval: a plugin registered under EVAL_PREFIX. */
export async function evalRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  app.post(
    '',
    {
      bodyLimit: deps.settings.dataBodyBytes,
      schema: {
        tags: ['eval'],
        summary:
          'Evaluate a template: output, changed variables, logs, response status/headers, or the error',
        body: EvalBody,
        response: { 200: EvalResult },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const evaluate = deps.hosts.evaluate;
      if (!evaluate) throw new ApiError(501, 'not-implemented', 'This server has no evaluation host.');
      const { template, user, data = {}, mode = 'TEST', ...rest } = request.body;
      const refusal = await deps.platform.rights.evaluationRefusal(
        caller.accountId,
        caller.user,
        rest.projectId,
        user,
      );
      if (refusal) throw forbidden(refusal);
      if (rest.requestId !== undefined && !caller.user.isAdmin) {
        // A designer evaluates only in requests of the project they design.
        const inRequest = await deps.platform.requests.find(caller.accountId, rest.requestId);
        if (inRequest && inRequest.projectId !== rest.projectId)
          throw forbidden(RIGHTS_MESSAGES.evaluateInRequest(rest.requestId));
      }
      return evaluate.call(deps.hosts, { caller, template, mode, data, asUser: user, ...rest });
    },
  );
}
