/**
 * Where a manual task is opened and submitted: `<origin>/live/<account>/task/<request>/<step>/<iteration>`.
 * The private URL needs a user of the account (in the step's lane); the public one carries
 * `token`, an HMAC of the task with the request's secret, which is the only right it needs.
 * `P_context=mobile` (or tablet) adapts the page to the mobile application, as for web interfaces.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TaskRef } from './tasks.js';

export const TASK_CONTEXTS = ['web', 'mobile', 'tablet'] as const;
export type TaskContext = (typeof TASK_CONTEXTS)[number];

/** The token of a task's public URL (HMAC-SHA256 with the request's secret, base64url). */
export function taskToken(secret: string, ref: TaskRef): string {
  return createHmac('sha256', secret)
    .update(`${ref.requestId}/${ref.stepId}/${ref.iteration}`)
    .digest('base64url');
}

/** Whether a token is the task's (constant time). */
export function isTaskToken(secret: string, ref: TaskRef, token: string): boolean {
  const expected = Buffer.from(taskToken(secret, ref));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function taskPath(ref: TaskRef): string {
  return `task/${encodeURIComponent(ref.requestId)}/${ref.stepId}/${ref.iteration}`;
}

/** The URL of a task under the account's live URL (which ends with a slash). */
export function taskUrl(
  liveUrl: string,
  ref: TaskRef,
  options: { token?: string; context?: TaskContext } = {},
): string {
  const query = new URLSearchParams();
  if (options.token !== undefined) query.set('token', options.token);
  if (options.context !== undefined && options.context !== 'web') query.set('P_context', options.context);
  const text = query.toString();
  return `${liveUrl}${taskPath(ref)}${text ? `?${text}` : ''}`;
}
