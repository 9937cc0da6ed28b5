/**
 * The data document of a request and its size limit (ExecutionContext.limits.dataDocumentBytes):
 * what the flow functions and the process host write into it. Past the limit the process stops
 * (DataDocumentLimitError, the error inject_objects raises too).
 */
import { DataDocumentLimitError } from '../collections/transfer.js';
import type { ExecutionContext } from '../context.js';
import type { CallEnv } from '../template-types.js';
import { platformCall, platformOf } from './calls.js';

/** The size of a data document in bytes: its compact JSON text in UTF-8. */
export function dataDocumentBytes(data: Record<string, unknown>): number {
  return Buffer.byteLength(JSON.stringify(data));
}

/** Raises DataDocumentLimitError (naming `fn`) when `data` is over the limit. */
export function checkDataDocument(fn: string, data: Record<string, unknown>, limit: number): void {
  const bytes = dataDocumentBytes(data);
  if (bytes > limit)
    throw new DataDocumentLimitError(
      fn,
      `the data document would reach ${bytes} bytes, over its maximum of ${limit} bytes: the process is stopped`,
    );
}

/**
 * Sets variables of the current request's data document (checked against the limit, stored) and
 * of the running template (`call.setVariable`). Outside a request, only the template's.
 */
export async function injectVariables(
  fn: string,
  ctx: ExecutionContext,
  call: CallEnv | undefined,
  values: Record<string, unknown>,
): Promise<void> {
  const requestId = ctx.requestId;
  if (requestId !== undefined) {
    const platform = platformOf(fn, ctx);
    await platformCall(fn, async () => {
      const request = await platform.requests.require(ctx.accountId, requestId);
      const data = { ...request.data, ...values };
      checkDataDocument(fn, data, ctx.limits.dataDocumentBytes);
      await platform.requests.update(ctx.accountId, requestId, { data });
      ctx.requestDataWrites = (ctx.requestDataWrites ?? 0) + 1;
    });
  }
  for (const [name, value] of Object.entries(values)) call?.setVariable?.(name, value);
}
