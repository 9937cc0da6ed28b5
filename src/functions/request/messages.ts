/**
 * send_process_message: starts the stored process whose message start event has that name
 * (docs/hosts.md, "Message start events"), as `POST /api/v1/messages/{name}` does. The process
 * host of the platform sets how (`setMessageSender`): the functions do not reach the hosts.
 */
import type { Platform } from '../../platform/index.js';
import type { ExecutionContext } from '../context.js';
import { FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { connectedUser, platformCall, platformOf } from './calls.js';

/** What a message started: the request's id, its status once it waited or ended, its process. */
export interface MessageStarted {
  id: string;
  status: number;
  process: string;
}

export type MessageSender = (
  ctx: ExecutionContext,
  message: string,
  data: Record<string, unknown>,
) => Promise<MessageStarted>;

/** By the platform's process store, which a host's copy of the platform (with its own logs, say) shares. */
const senders = new WeakMap<Platform['processes'], MessageSender>();

/** How messages start processes on this platform (the process host's). */
export function setMessageSender(platform: Platform, sender: MessageSender): void {
  senders.set(platform.processes, sender);
}

export const messageFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'send_process_message',
    group: 'Request',
    rights: 'user',
    doc:
      'Starts the stored process of the account whose message start event is named `message` (docs/hosts.md, ' +
      '"Message start events"), with `data` as its data document (default `{}`), the connected user as its ' +
      'initiator, in the mode of the script; the request runs until it waits or ends. Returns ' +
      '{id, status, process}. Error `No process starts on message "…"` when none does; a chain of ' +
      'requests started by messages from requests nests at most 10 deep.',
    returns: 'object',
    forms: [
      {
        params: [
          { name: 'message', type: 'string' },
          { name: 'data', type: 'object', optional: true },
        ],
        async impl(ctx, [message, data], _call, fn) {
          const platform = platformOf(fn, ctx);
          connectedUser(fn, ctx);
          const send = senders.get(platform.processes);
          if (!send) throw new FunctionError(fn, 'this server has no process host');
          const started = await platformCall(fn, () => send(ctx, message, data ?? {}));
          return { ...started };
        },
      },
    ],
  }),
];
