/** Request functions about where a script runs: get_access_url, get_project_metadata, get_request_info. */
import { accessUrl } from '../../platform/accounts.js';
import { canReadRequest, RIGHTS_MESSAGES } from '../../platform/rights.js';
import { MESSAGES } from '../../platform/errors.js';
import { FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { requireRight } from '../rights.js';
import { platformCall, platformOf } from './calls.js';
import { requestDescriptor } from './descriptors.js';
import { evaluationState } from './evaluation.js';

export const contextInfoFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'get_access_url',
    group: 'Request',
    rights: 'none',
    doc:
      "The platform's service URL for the account, with its protocol (`https://flow.example.com/`) or without it " +
      '(`flow.example.com/`); always with a trailing slash, as on the platform.',
    returns: 'string',
    forms: [
      {
        params: [{ name: 'includeProtocol', type: 'boolean' }],
        async impl(ctx, [includeProtocol]) {
          const state = await evaluationState(ctx);
          return `${accessUrl({ baseUrl: state.urls.host }, includeProtocol)}/`;
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_project_metadata',
    group: 'Request',
    rights: 'none',
    doc:
      "The metadata object of a project of the account (default: the current request's project). " +
      'Error `Project not found.` for an unknown project, or when there is none in the context.',
    returns: 'object',
    forms: [
      {
        params: [{ name: 'projectId', type: 'integer', optional: true }],
        async impl(ctx, [projectId], _call, fn) {
          const platform = platformOf(fn, ctx);
          const id = projectId ?? ctx.projectId;
          if (id === undefined) throw new FunctionError(fn, MESSAGES.projectNotFound);
          return platformCall(fn, async () => {
            const project = await platform.projects.require(ctx.accountId, id);
            return project.metadata;
          });
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_request_info',
    group: 'Request',
    rights: 'argument',
    doc:
      'The descriptor of a process request of the account (default: the current one): ' +
      '{id, project, version, mode, status, initiator {id, login, name}, parent, created, updated (epoch ms), ' +
      'P_locks, P_message, data (the data document)}. Error `Request not found.`',
    returns: 'object',
    forms: [
      {
        params: [{ name: 'id', type: 'string', optional: true }],
        async impl(ctx, [id], _call, fn) {
          const platform = platformOf(fn, ctx);
          const requestId = id ?? ctx.requestId;
          if (requestId === undefined) throw new FunctionError(fn, MESSAGES.requestNotFound);
          return platformCall(fn, async () => {
            const request = await platform.requests.require(ctx.accountId, requestId);
            if (requestId !== ctx.requestId)
              await requireRight(fn, canReadRequest(ctx.user, request), RIGHTS_MESSAGES.otherRequest);
            return requestDescriptor(platform, request, true);
          });
        },
      },
    ],
  }),
];
