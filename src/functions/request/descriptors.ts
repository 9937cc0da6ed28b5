/**
 * The shapes scripts see for users and requests (spec part 2.4 leaves them open; docs/platform.md
 * fixes them).
 */
import type { Platform, ProcessRequest, User } from '../../platform/index.js';
import { readOnce, type ContextReads } from './reads.js';

/** P_user / P_initiator: {id, login, name, profile, extended (public metadata), preferences, delegators}. */
export async function userParameter(
  platform: Platform,
  user: User,
  now: number,
  reads?: ContextReads,
): Promise<Record<string, unknown>> {
  const delegators = await readOnce(reads?.delegators, user.id, () =>
    platform.directory.users.delegatorsOf(user.accountId, user.id, now),
  );
  return {
    id: user.id,
    login: user.login,
    name: user.name,
    profile: user.profile,
    extended: user.metadata,
    preferences: user.preferences,
    delegators: delegators.map((d) => ({ id: d.id, login: d.login, name: d.name })),
  };
}

/** get_lane_users: the user descriptor. */
export function userDescriptor(user: User): Record<string, unknown> {
  return {
    id: user.id,
    login: user.login,
    name: user.name,
    email: user.email ?? '',
    profile: user.profile,
    status: user.status,
  };
}

/**
 * get_user_data: the simplified descriptor {id, name, profile} with what real scripts read of it on
 * the platform: get_lane_users' descriptor and i18n (the user's language).
 */
export function simplifiedUser(user: User): Record<string, unknown> {
  return { ...userDescriptor(user), i18n: user.language };
}

/**
 * P_request: the request without its data document; get_request_info adds `data`.
 * {id, project, version, mode, status, initiator, parent, created, updated, P_locks, P_message}
 */
export async function requestDescriptor(
  platform: Platform,
  request: ProcessRequest,
  withData: boolean,
  /** The initiator, when the caller has read it already. */
  initiatorRead?: User,
  reads?: ContextReads,
): Promise<Record<string, unknown>> {
  const initiator =
    request.initiatorId === null
      ? undefined
      : (initiatorRead ?? (await platform.directory.users.find(request.accountId, request.initiatorId)));
  const { versionId } = request;
  const version =
    versionId === null
      ? undefined
      : await readOnce(reads?.versions, versionId, () =>
          platform.projects.findVersion(request.accountId, versionId),
        );
  const descriptor: Record<string, unknown> = {
    id: request.id,
    project: request.projectId,
    version: version?.name ?? null,
    mode: request.mode,
    status: request.status,
    initiator: initiator ? { id: initiator.id, login: initiator.login, name: initiator.name } : null,
    parent: request.parentId,
    created: request.createdAt,
    updated: request.updatedAt,
    P_locks: request.locks,
    P_message: request.message,
  };
  if (withData) descriptor.data = request.data;
  return descriptor;
}
