/**
 * Application instances: one per launch of a web interface, or per manual task shown to a user
 * (then tied to its request and step). An instance holds its data (the interface's variables),
 * the ids of its upload widgets, the files attached to it, and its history: who did what, when,
 * at which step, and which fields changed (what a history widget shows).
 *
 * Instances are visible to every user of their account (the spec gives them no rights); the
 * files attached to one stay under the file rights: attaching and detaching need READ on the
 * file, and a listing shows only the attached files the caller may read.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Queryable, type Store } from '../../store/index.js';
import { notFound, PlatformError } from '../errors.js';
import type { FileService, Principal, StoredFile } from '../files/index.js';
import { fromJson, isMode, storedMode, toJson, toJsonObject, toJsonValue, type Mode } from '../model.js';

export interface ApplicationInstance {
  id: string;
  accountId: string;
  projectId: number | null;
  webInterfaceId: number | null;
  requestId: string | null;
  /** The step (manual task) of the request it is shown in. */
  stepId: string | null;
  mode: Mode;
  /** Free text set by the host: OPEN, SUBMITTED, CLOSED … */
  status: string;
  title: string;
  data: Record<string, unknown>;
  /** Ids of the upload widgets of its interface, in their order. */
  uploadWidgets: string[];
  createdAt: number;
  createdBy: number | null;
  updatedAt: number;
  updatedBy: number | null;
}

export interface NewInstance {
  id?: string;
  projectId?: number | null;
  webInterfaceId?: number | null;
  requestId?: string | null;
  stepId?: string | number | null;
  mode: Mode;
  status?: string;
  title?: string;
  data?: Record<string, unknown>;
  uploadWidgets?: string[];
}

export interface InstanceChanges {
  data?: Record<string, unknown>;
  status?: string;
  stepId?: string | number | null;
}

/** Who acts on an instance, as the history records them. */
export interface Actor {
  userId: number | null;
  login: string | null;
}

/** One field's change: the value before and after (null when absent). */
export interface FieldChange {
  old: unknown;
  new: unknown;
}

export interface HistoryEntry {
  id: number;
  instanceId: string;
  requestId: string | null;
  at: number;
  userId: number | null;
  login: string | null;
  stepId: string | null;
  /** create, update, attach, detach, or what the host records (submit …). */
  action: string;
  changes: Record<string, FieldChange>;
}

export interface Attachment {
  instanceId: string;
  file: StoredFile;
  widgetId: string | null;
  attachedAt: number;
  attachedBy: number | null;
}

type InstanceRow = {
  account_id: string;
  id: string;
  project_id: number | null;
  web_interface_id: number | null;
  request_id: string | null;
  step_id: string | null;
  mode: string;
  status: string;
  title: string;
  data: string;
  upload_widgets: string;
  created_at: number;
  created_by: number | null;
  updated_at: number;
  updated_by: number | null;
};

type HistoryRow = {
  id: number;
  instance_id: string;
  request_id: string | null;
  at: number;
  user_id: number | null;
  user_login: string | null;
  step_id: string | null;
  action: string;
  changes: string;
};

type AttachmentRow = {
  file_id: string;
  widget_id: string | null;
  attached_at: number;
  attached_by: number | null;
};

const ID = /^[A-Za-z0-9_.-]{1,128}$/;
const WIDGET = /^[A-Za-z0-9_.:-]{1,128}$/;
/** Most entries one history query returns (the oldest are dropped past it). */
export const MAX_HISTORY_ENTRIES = 1000;

export function instanceMissing(id: string): PlatformError {
  return notFound(`Application instance ${id} not found.`);
}

export class Applications {
  constructor(
    private readonly store: Store,
    private readonly files: FileService,
    private readonly clock: () => number,
  ) {}

  async create(accountId: string, actor: Actor, input: NewInstance): Promise<ApplicationInstance> {
    if (!isMode(input.mode)) throw new PlatformError('invalid', `invalid mode ${JSON.stringify(input.mode)}`);
    const id = input.id ?? randomUUID();
    if (!ID.test(id)) throw new PlatformError('invalid', `invalid instance id ${JSON.stringify(id)}`);
    const widgets = checkWidgets(input.uploadWidgets ?? []);
    const data = toJsonObject(input.data ?? {}, 'the instance data');
    const now = this.clock();
    return this.store.transaction(async (tx) => {
      const row = await tx.get<InstanceRow>(sql`
        INSERT INTO application_instances (account_id, id, project_id, web_interface_id, request_id, step_id, mode,
                                           status, title, data, upload_widgets, created_at, created_by, updated_at,
                                           updated_by)
        VALUES (${accountId}, ${id}, ${input.projectId ?? null}, ${input.webInterfaceId ?? null},
                ${input.requestId ?? null}, ${stepText(input.stepId)}, ${input.mode}, ${checkText('status', input.status ?? 'OPEN')},
                ${checkText('title', input.title ?? '', true)}, ${toJson(data)}, ${toJson(widgets)}, ${now}, ${actor.userId},
                ${now}, ${actor.userId})
        ON CONFLICT (account_id, id) DO NOTHING
        RETURNING *`);
      if (!row) throw new PlatformError('conflict', `application instance ${id} already exists`);
      const instance = toInstance(row);
      await this.record(tx, accountId, instance, actor, 'create', diff({}, data));
      return instance;
    });
  }

  async find(accountId: string, id: string): Promise<ApplicationInstance | undefined> {
    const row = await this.store.get<InstanceRow>(
      sql`SELECT * FROM application_instances WHERE account_id = ${accountId} AND id = ${String(id)}`,
    );
    return row && toInstance(row);
  }

  /** An instance of the account, or `Application instance X not found.` */
  async require(accountId: string, id: string): Promise<ApplicationInstance> {
    const instance = await this.find(accountId, id);
    if (!instance) throw instanceMissing(id);
    return instance;
  }

  /**
   * The account's instances, newest first: all, or those of a project or a web interface (the
   * client library's web interface reports). At most 1000 a page.
   */
  async list(
    accountId: string,
    options: { projectId?: number; webInterfaceId?: number; first?: number; limit?: number } = {},
  ): Promise<ApplicationInstance[]> {
    const where = [sql`account_id = ${accountId}`];
    if (options.projectId !== undefined) where.push(sql`project_id = ${options.projectId}`);
    if (options.webInterfaceId !== undefined) where.push(sql`web_interface_id = ${options.webInterfaceId}`);
    const limit = Math.max(0, Math.min(options.limit ?? 100, 1000));
    const rows = await this.store.all<InstanceRow>(sql`
      SELECT * FROM application_instances WHERE ${sql.join(where, ' AND ')}
      ORDER BY created_at DESC, id LIMIT ${limit} OFFSET ${Math.max(0, options.first ?? 0)}`);
    return rows.map(toInstance);
  }

  /** Changes data (merged field by field; a null value removes a field), status or step; records what changed. */
  async update(
    accountId: string,
    actor: Actor,
    id: string,
    changes: InstanceChanges,
    action = 'update',
  ): Promise<ApplicationInstance> {
    checkText('action', action);
    return this.store.transaction(async (tx) => {
      const before = await this.lock(tx, accountId, id);
      const data = { ...before.data };
      if (changes.data !== undefined)
        for (const [key, value] of Object.entries(toJsonObject(changes.data, 'the instance data'))) {
          if (value === null) delete data[key];
          else data[key] = value;
        }
      const status = changes.status === undefined ? before.status : checkText('status', changes.status);
      const stepId = changes.stepId === undefined ? before.stepId : stepText(changes.stepId);
      const changed = diff(before.data, data);
      if (status !== before.status) changed.status = { old: before.status, new: status };
      if (stepId !== before.stepId) changed.step = { old: before.stepId, new: stepId };
      const row = await tx.get<InstanceRow>(sql`
        UPDATE application_instances SET data = ${toJson(data)}, status = ${status}, step_id = ${stepId},
               updated_at = ${this.clock()}, updated_by = ${actor.userId}
        WHERE account_id = ${accountId} AND id = ${id} RETURNING *`);
      const after = toInstance(row!);
      if (Object.keys(changed).length > 0) await this.record(tx, accountId, after, actor, action, changed);
      return after;
    });
  }

  /** Adds a history entry of the host's own (submit, assign …). */
  async recordAction(
    accountId: string,
    actor: Actor,
    id: string,
    action: string,
    changes: Record<string, FieldChange> = {},
  ): Promise<HistoryEntry> {
    const instance = await this.require(accountId, id);
    return this.record(this.store, accountId, instance, actor, checkText('action', action), changes);
  }

  /** The history of one instance, or of every instance of a request, oldest first. */
  async history(
    accountId: string,
    of: { instanceId: string } | { requestId: string },
  ): Promise<HistoryEntry[]> {
    const where =
      'instanceId' in of ? sql`instance_id = ${of.instanceId}` : sql`request_id = ${of.requestId}`;
    const rows = await this.store.all<HistoryRow>(sql`
      SELECT * FROM (
        SELECT id, instance_id, request_id, at, user_id, user_login, step_id, action, changes FROM application_history
        WHERE account_id = ${accountId} AND ${where} ORDER BY id DESC LIMIT ${MAX_HISTORY_ENTRIES}) h
      ORDER BY id`);
    return rows.map(toHistory);
  }

  /**
   * Attaches files (READ on each) through an upload widget: `widgetId` may be omitted when the
   * instance has at most one. Returns the attachments of those files.
   */
  async attach(
    accountId: string,
    principal: Principal,
    actor: Actor,
    instanceId: string,
    fileIds: readonly string[],
    widgetId?: string,
  ): Promise<Attachment[]> {
    return this.store.transaction(async (tx) => {
      const instance = await this.lock(tx, accountId, instanceId);
      const widget = resolveWidget(instance, widgetId);
      const before = await this.attachedIds(tx, accountId, instanceId);
      const files: StoredFile[] = [];
      for (const id of new Set(fileIds)) files.push(await this.files.describe(accountId, principal, id));
      const now = this.clock();
      for (const file of files)
        await tx.run(sql`
          INSERT INTO application_files (account_id, instance_id, file_id, widget_id, attached_at, attached_by)
          VALUES (${accountId}, ${instanceId}, ${file.id}, ${widget}, ${now}, ${actor.userId})
          ON CONFLICT (account_id, instance_id, file_id) DO UPDATE SET widget_id = excluded.widget_id`);
      const after = await this.attachedIds(tx, accountId, instanceId);
      if (after.length !== before.length)
        await this.record(tx, accountId, instance, actor, 'attach', { files: { old: before, new: after } });
      const rows = await this.attachmentRows(tx, accountId, instanceId);
      const wanted = new Set(files.map((f) => f.id));
      return rows
        .filter((r) => wanted.has(r.file_id))
        .map((r) =>
          toAttachment(
            instanceId,
            r,
            files.find((f) => f.id === r.file_id)!,
          ),
        );
    });
  }

  /** Detaches files (READ on each attached one); returns the attachments removed. */
  async detach(
    accountId: string,
    principal: Principal,
    actor: Actor,
    instanceId: string,
    fileIds: readonly string[],
  ): Promise<Attachment[]> {
    return this.store.transaction(async (tx) => {
      const instance = await this.lock(tx, accountId, instanceId);
      const before = await this.attachedIds(tx, accountId, instanceId);
      const rows = await this.attachmentRows(tx, accountId, instanceId);
      const removed: Attachment[] = [];
      for (const id of new Set(fileIds)) {
        const row = rows.find((r) => r.file_id === id);
        if (!row) continue;
        const file = await this.files.describe(accountId, principal, id);
        await tx.run(sql`
          DELETE FROM application_files WHERE account_id = ${accountId} AND instance_id = ${instanceId} AND file_id = ${id}`);
        removed.push(toAttachment(instanceId, row, file));
      }
      if (removed.length > 0) {
        const after = await this.attachedIds(tx, accountId, instanceId);
        await this.record(tx, accountId, instance, actor, 'detach', { files: { old: before, new: after } });
      }
      return removed;
    });
  }

  /** The attachments of an instance whose file the principal may read, in the order they were attached. */
  async attachments(accountId: string, principal: Principal, instanceId: string): Promise<Attachment[]> {
    await this.require(accountId, instanceId);
    const rows = await this.attachmentRows(this.store, accountId, instanceId);
    const result: Attachment[] = [];
    for (const row of rows) {
      if (!(await this.files.can(accountId, principal, row.file_id, 'READ'))) continue;
      result.push(
        toAttachment(instanceId, row, await this.files.describe(accountId, principal, row.file_id)),
      );
    }
    return result;
  }

  // ---------------------------------------------------------------------------------------------

  private async lock(db: Queryable, accountId: string, id: string): Promise<ApplicationInstance> {
    const row = await db.get<InstanceRow>(sql`
      SELECT * FROM application_instances WHERE account_id = ${accountId} AND id = ${String(id)}${db.dialect.forUpdate}`);
    if (!row) throw instanceMissing(id);
    return toInstance(row);
  }

  private async attachmentRows(
    db: Queryable,
    accountId: string,
    instanceId: string,
  ): Promise<AttachmentRow[]> {
    return db.all<AttachmentRow>(sql`
      SELECT file_id, widget_id, attached_at, attached_by FROM application_files
      WHERE account_id = ${accountId} AND instance_id = ${instanceId} ORDER BY attached_at, file_id`);
  }

  private async attachedIds(db: Queryable, accountId: string, instanceId: string): Promise<string[]> {
    return (await this.attachmentRows(db, accountId, instanceId)).map((r) => r.file_id);
  }

  private async record(
    db: Queryable,
    accountId: string,
    instance: ApplicationInstance,
    actor: Actor,
    action: string,
    changes: Record<string, FieldChange>,
  ): Promise<HistoryEntry> {
    const row = await db.get<HistoryRow>(sql`
      INSERT INTO application_history (account_id, instance_id, request_id, at, user_id, user_login, step_id, action, changes)
      VALUES (${accountId}, ${instance.id}, ${instance.requestId}, ${this.clock()}, ${actor.userId}, ${actor.login},
              ${instance.stepId}, ${action}, ${toJson(changes)})
      RETURNING id, instance_id, request_id, at, user_id, user_login, step_id, action, changes`);
    return toHistory(row!);
  }
}

/** The changed top-level fields between two data objects. */
function diff(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const old = Object.prototype.hasOwnProperty.call(before, key) ? before[key] : null;
    const now = Object.prototype.hasOwnProperty.call(after, key) ? after[key] : null;
    if (JSON.stringify(old) !== JSON.stringify(now)) changes[key] = { old, new: now };
  }
  return changes;
}

function resolveWidget(instance: ApplicationInstance, widgetId: string | undefined): string | null {
  const widgets = instance.uploadWidgets;
  if (widgetId !== undefined && widgetId !== '') {
    if (widgets.length > 0 && !widgets.includes(widgetId))
      throw new PlatformError(
        'invalid',
        `the instance has no upload widget ${JSON.stringify(widgetId)}: ${widgets.join(', ')}`,
      );
    return widgetId;
  }
  if (widgets.length > 1)
    throw new PlatformError(
      'invalid',
      `the instance has ${widgets.length} upload widgets (${widgets.join(', ')}): the widget id is needed`,
    );
  return widgets[0] ?? null;
}

function checkWidgets(widgets: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const w of widgets) {
    if (typeof w !== 'string' || !WIDGET.test(w))
      throw new PlatformError('invalid', `invalid upload widget id ${JSON.stringify(w)}`);
    seen.add(w);
  }
  return [...seen];
}

function checkText(what: string, value: string, allowEmpty = false): string {
  const text = String(value);
  if ((!allowEmpty && text.trim() === '') || text.length > 255)
    throw new PlatformError('invalid', `invalid ${what} ${JSON.stringify(value)}`);
  return text;
}

function stepText(step: string | number | null | undefined): string | null {
  if (step === null || step === undefined || step === '') return null;
  return checkText('step id', String(step));
}

function toInstance(row: InstanceRow): ApplicationInstance {
  return {
    id: row.id,
    accountId: row.account_id,
    projectId: row.project_id === null ? null : Number(row.project_id),
    webInterfaceId: row.web_interface_id === null ? null : Number(row.web_interface_id),
    requestId: row.request_id,
    stepId: row.step_id,
    mode: storedMode(row.mode),
    status: row.status,
    title: row.title,
    data: fromJson(row.data),
    uploadWidgets: fromJson(row.upload_widgets),
    createdAt: Number(row.created_at),
    createdBy: row.created_by === null ? null : Number(row.created_by),
    updatedAt: Number(row.updated_at),
    updatedBy: row.updated_by === null ? null : Number(row.updated_by),
  };
}

function toHistory(row: HistoryRow): HistoryEntry {
  return {
    id: Number(row.id),
    instanceId: row.instance_id,
    requestId: row.request_id,
    at: Number(row.at),
    userId: row.user_id === null ? null : Number(row.user_id),
    login: row.user_login,
    stepId: row.step_id,
    action: row.action,
    changes: toJsonValue(fromJson(row.changes), 'history changes') as Record<string, FieldChange>,
  };
}

function toAttachment(instanceId: string, row: AttachmentRow, file: StoredFile): Attachment {
  return {
    instanceId,
    file,
    widgetId: row.widget_id,
    attachedAt: Number(row.attached_at),
    attachedBy: row.attached_by === null ? null : Number(row.attached_by),
  };
}
