/**
 * The Application group of spec 4.1: attach_file, detach_file, list_attached_file, get_history,
 * get_instance_info (i18n, the sixth, is declared with the Request group's translations). The
 * shapes scripts see (applimetadata, history entry, attached-file descriptor) are documented in
 * docs/files.md.
 */
import type { ApplicationInstance, Attachment, HistoryEntry } from '../../platform/applications/index.js';
import type { ExecutionContext } from '../context.js';
import { argumentError, FunctionError } from '../errors.js';
import {
  fileDescriptor,
  fileIds,
  platformCall,
  platformOf,
  principalOf,
  type FileDescriptor,
} from '../file/args.js';
import { defineFunction, type FunctionSpec } from '../spec.js';

/** A filedescriptor with the attachment's instance, widget, time and author. */
export interface AttachedFileDescriptor extends FileDescriptor {
  instance_id: string;
  widget_id: string | null;
  attached: number;
  attached_by: number | null;
}

export function attachedFileDescriptor(a: Attachment): AttachedFileDescriptor {
  return {
    ...fileDescriptor(a.file),
    instance_id: a.instanceId,
    widget_id: a.widgetId,
    attached: a.attachedAt,
    attached_by: a.attachedBy,
  };
}

export function historyEntry(h: HistoryEntry): Record<string, unknown> {
  return {
    date: h.at,
    user: h.userId === null ? null : { id: h.userId, login: h.login },
    step: h.stepId,
    action: h.action,
    instance_id: h.instanceId,
    changes: h.changes,
  };
}

/** Spec 2.4 applimetadata. */
export function appliMetadata(i: ApplicationInstance): Record<string, unknown> {
  return {
    id: i.id,
    title: i.title,
    project_id: i.projectId,
    web_interface_id: i.webInterfaceId,
    request_id: i.requestId,
    step: i.stepId,
    mode: i.mode,
    status: i.status,
    created: i.createdAt,
    created_by: i.createdBy,
    updated: i.updatedAt,
    updated_by: i.updatedBy,
    upload_widgets: i.uploadWidgets,
    data: i.data,
  };
}

function actorOf(ctx: ExecutionContext) {
  return { userId: ctx.user?.id ?? null, login: ctx.user?.login ?? null };
}

function instanceId(fn: string, index: number, value: unknown): string {
  const id = String(value).trim();
  if (id === '') throw argumentError(fn, index, 'instance_id', 'is empty: an instance id is expected');
  return id;
}

export const application: FunctionSpec[] = [
  defineFunction({
    name: 'attach_file',
    group: 'Application',
    rights: 'service',
    doc:
      'Attaches uploaded files (READ on each; the value of an upload widget: one id, or an array of ids) to the ' +
      'application instance of the manual task whose input variables are being computed. `file_widget_id` names ' +
      'the upload widget and is needed when the interface has several. Returns the attached-file descriptors.',
    returns: 'array of attached-file descriptors',
    flags: { manualTaskInputOnly: true },
    forms: [
      {
        params: [
          { name: 'file_variable', type: ['array', 'string'] },
          { name: 'file_widget_id', type: 'string', optional: true },
        ],
        async impl(ctx, [files, widget], _call, fn) {
          const platform = platformOf(fn, ctx);
          const ids = fileIds(fn, 1, 'file_variable', files);
          const instance = ctx.applicationInstanceId;
          if (!instance)
            throw new FunctionError(fn, 'the manual task has no application instance to attach files to');
          const attached = await platformCall(fn, () =>
            platform.applications.attach(
              ctx.accountId,
              principalOf(ctx),
              actorOf(ctx),
              instance,
              ids,
              widget || undefined,
            ),
          );
          return attached.map(attachedFileDescriptor);
        },
      },
    ],
  }),
  defineFunction({
    name: 'detach_file',
    group: 'Application',
    rights: 'service',
    doc:
      'Detaches uploaded files (one id, or an array of ids; READ on each) from an application instance; returns ' +
      'the descriptors of the files that were attached and are not any more.',
    returns: 'array of attached-file descriptors',
    forms: [
      {
        params: [
          { name: 'file_variable', type: ['array', 'string'] },
          { name: 'instance_id', type: 'string' },
        ],
        async impl(ctx, [files, instance], _call, fn) {
          const platform = platformOf(fn, ctx);
          const ids = fileIds(fn, 1, 'file_variable', files);
          const detached = await platformCall(fn, () =>
            platform.applications.detach(
              ctx.accountId,
              principalOf(ctx),
              actorOf(ctx),
              instanceId(fn, 2, instance),
              ids,
            ),
          );
          return detached.map(attachedFileDescriptor);
        },
      },
    ],
  }),
  defineFunction({
    name: 'list_attached_file',
    group: 'Application',
    rights: 'service',
    doc: 'The files attached to an application instance that the caller may read, in the order they were attached.',
    returns: 'array of attached-file descriptors',
    forms: [
      {
        params: [{ name: 'instance_id', type: 'string' }],
        async impl(ctx, [instance], _call, fn) {
          const platform = platformOf(fn, ctx);
          const id = instanceId(fn, 1, instance);
          const list = await platformCall(fn, () =>
            platform.applications.attachments(ctx.accountId, principalOf(ctx), id),
          );
          return list.map(attachedFileDescriptor);
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_history',
    group: 'Application',
    rights: 'user',
    doc:
      'The history of the current request (every application instance of it), else of the current application ' +
      'instance, oldest first: what a history widget shows (date, user, step, action, changes).',
    returns: 'array of history metadata',
    forms: [
      {
        params: [],
        async impl(ctx, _args, _call, fn) {
          const platform = platformOf(fn, ctx);
          const of = ctx.requestId
            ? { requestId: ctx.requestId }
            : ctx.applicationInstanceId
              ? { instanceId: ctx.applicationInstanceId }
              : undefined;
          if (!of) throw new FunctionError(fn, 'there is no current request or application instance');
          const entries = await platformCall(fn, () => platform.applications.history(ctx.accountId, of));
          return entries.map(historyEntry);
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_instance_info',
    group: 'Application',
    rights: 'user',
    doc: 'The description of an application instance (applimetadata, docs/files.md).',
    returns: 'applimetadata',
    forms: [
      {
        params: [{ name: 'instance_id', type: 'string' }],
        async impl(ctx, [instance], _call, fn) {
          const platform = platformOf(fn, ctx);
          const found = await platformCall(fn, () =>
            platform.applications.require(ctx.accountId, String(instance).trim()),
          );
          return appliMetadata(found);
        },
      },
    ],
  }),
];
