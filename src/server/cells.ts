/**
 * Routing by account on a store with cells (docs/deploy.md "Cells"): every route's handler runs in
 * the cell of the account it serves — the account its URL names (`/live/ACCOUNT/…`,
 * `/config/ACCOUNT/…`), else the caller's, else the `account` of its body (a login), else the
 * default account's. Everything the handler does (the platform's services, the evaluation pool's
 * tasks, the process steps it drives) then reaches that cell only. Not used without cells.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { inCell, type CellStore } from '../store/index.js';
import { propertyOf } from '../safety/narrow.js';
import type { ServerSettings } from './deps.js';

type Handler = RouteOptions['handler'];

/** `handler`, run in its request's account's cell. */
export function cellRouted(handler: Handler, cells: CellStore, settings: ServerSettings): Handler {
  return function routed(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const account = accountOf(request) ?? settings.defaultAccountId;
    const run = () => handler.call(this, request, reply);
    if (account === undefined) return run();
    const cell = cells.cellOf(account);
    if (typeof cell === 'string') return inCell(cell, run);
    // A handler that answered through `reply` and returned nothing: its reply stands (Fastify's rule for async handlers).
    return cell.then((c) => inCell(c, run) ?? reply);
  };
}

function accountOf(request: FastifyRequest): string | undefined {
  const named = propertyOf(request.params, 'account');
  if (typeof named === 'string') return named;
  if (request.caller) return request.caller.accountId;
  const inBody = propertyOf(request.body, 'account');
  return typeof inBody === 'string' ? inBody : undefined;
}
