/**
 * Uploaded files of an account: a descriptor row (`uploads`), the content apart
 * (`upload_contents`, a BLOB on SQLite and a BYTEA on PostgreSQL, so listing never reads
 * bodies), and the grants (`upload_rights`). Every method takes the account and the principal
 * calling it and checks the principal's right first (see rights.ts); an unknown id is the
 * platform's `Uploaded file X doesn't exist.`
 */
import { randomUUID } from 'node:crypto';
import { sql, type Queryable, type Sql, type Store } from '../../store/index.js';
import type { Directory } from '../directory/index.js';
import { notFound, PlatformError } from '../errors.js';
import { fromJson, laneModeFor, toJson, toJsonObject } from '../model.js';
import { DEFAULT_CHARSET, isCharset } from './codec.js';
import { detectContentType, isTextType, normaliseContentType } from './content-type.js';
import { fileLimits, type FileLimits } from './limits.js';
import {
  allows,
  grantedAccess,
  implicitAccess,
  rightsOf,
  VISIBILITIES,
  ACCESSES,
  RIGHT_KINDS,
  type Access,
  type FileRights,
  type Grant,
  type Principal,
  type RightKind,
  type Visibility,
} from './rights.js';
import { buildZip, extractZip, type ZipInput } from './zip.js';
import { isOneOf, oneOf } from '../../safety/narrow.js';

export interface StoredFile {
  id: string;
  accountId: string;
  name: string;
  contentType: string;
  /** The charset of a text file's bytes; null for binary content. */
  charset: string | null;
  /** Bytes. */
  size: number;
  createdAt: number;
  updatedAt: number;
  /** The user who created it; null when created with nobody connected (or by the operator). */
  ownerId: number | null;
  /** The request that created it when nobody was connected. */
  ownerRequest: string | null;
  visibility: Visibility;
  metadata: Record<string, unknown>;
}

export interface NewFile {
  name: string;
  content: Uint8Array;
  /** Default: detected from the content and the name. */
  contentType?: string;
  /** Charset of text content (default UTF-8); ignored for binary content types. */
  charset?: string | null;
  visibility?: Visibility;
  metadata?: Record<string, unknown>;
}

/** What save_file_desc / update_file may change. */
export interface FileChanges {
  name?: string;
  contentType?: string;
  charset?: string | null;
  visibility?: Visibility;
  metadata?: Record<string, unknown>;
}

export interface RightsChange {
  kind: RightKind;
  access: Access;
  op: 'add' | 'remove';
  /** Users by id, login or email (kind user); lane ids (kind lane). */
  principals: ReadonlyArray<number | string>;
}

type FileRow = {
  id: string;
  account_id: string;
  name: string;
  content_type: string;
  charset: string | null;
  size: number;
  created_at: number;
  updated_at: number;
  created_by: number | null;
  owner_request: string | null;
  visibility: string;
  metadata: string;
};

const COLUMNS = sql.raw(
  'id, account_id, name, content_type, charset, size, created_at, updated_at, created_by, owner_request, visibility, metadata',
);

export function uploadedFileMissing(id: string): PlatformError {
  return notFound(`Uploaded file ${id} doesn't exist.`);
}

export class FileService {
  readonly limits: FileLimits;

  constructor(
    private readonly store: Store,
    private readonly directory: Directory,
    private readonly clock: () => number,
    limits: Partial<FileLimits> = {},
  ) {
    this.limits = fileLimits(limits);
  }

  async create(accountId: string, principal: Principal, input: NewFile): Promise<StoredFile> {
    const name = this.checkName(input.name);
    const content = this.checkSize(input.content);
    const contentType = input.contentType
      ? checkContentType(input.contentType)
      : await detectContentType(name, content);
    const charset = isTextType(contentType) ? checkCharset(input.charset ?? DEFAULT_CHARSET) : null;
    const visibility = checkVisibility(input.visibility ?? 'PRIVATE');
    const metadata = this.checkMetadata(input.metadata ?? {});
    const id = randomUUID();
    const now = this.clock();
    const owner = principal.userId;
    const ownerRequest = owner === null ? (principal.requestId ?? null) : null;
    return this.store.transaction(async (tx) => {
      const row = await tx.get<FileRow>(sql`
        INSERT INTO uploads (account_id, id, name, content_type, size, created_at, created_by, charset, updated_at,
                             visibility, metadata, owner_request)
        VALUES (${accountId}, ${id}, ${name}, ${contentType}, ${content.length}, ${now}, ${owner}, ${charset}, ${now},
                ${visibility}, ${toJson(metadata)}, ${ownerRequest})
        RETURNING ${COLUMNS}`);
      await tx.run(
        sql`INSERT INTO upload_contents (account_id, id, content) VALUES (${accountId}, ${id}, ${Buffer.from(content)})`,
      );
      return toFile(row!);
    });
  }

  /** The descriptor (READ). */
  async describe(accountId: string, principal: Principal, id: string): Promise<StoredFile> {
    return this.authorize(this.store, accountId, principal, id, 'READ');
  }

  /** The descriptor and the content (READ). */
  async read(
    accountId: string,
    principal: Principal,
    id: string,
  ): Promise<{ file: StoredFile; content: Buffer }> {
    const file = await this.describe(accountId, principal, id);
    return { file, content: await this.contentOf(this.store, accountId, id) };
  }

  /** The descriptor, when the principal holds the right; the not-found or access error otherwise. */
  async check(accountId: string, principal: Principal, id: string, access: Access): Promise<StoredFile> {
    return this.authorize(this.store, accountId, principal, id, access);
  }

  /** True when the file exists and the principal holds the right. */
  async can(accountId: string, principal: Principal, id: string, access: Access): Promise<boolean> {
    try {
      await this.authorize(this.store, accountId, principal, id, access);
      return true;
    } catch (e) {
      if (e instanceof PlatformError) return false;
      throw e;
    }
  }

  /** Replaces the content (WRITE); the charset too when given. */
  async save(
    accountId: string,
    principal: Principal,
    id: string,
    content: Uint8Array,
    options: { charset?: string | null; contentType?: string } = {},
  ): Promise<StoredFile> {
    const bytes = this.checkSize(content);
    const contentType = options.contentType === undefined ? undefined : checkContentType(options.contentType);
    const charset = options.charset == null ? undefined : checkCharset(options.charset);
    return this.store.transaction(async (tx) => {
      const file = await this.authorize(tx, accountId, principal, id, 'WRITE', true);
      const type = contentType ?? file.contentType;
      const nextCharset = isTextType(type) ? (charset ?? file.charset ?? DEFAULT_CHARSET) : null;
      await tx.run(
        sql`UPDATE upload_contents SET content = ${Buffer.from(bytes)} WHERE account_id = ${accountId} AND id = ${id}`,
      );
      const row = await tx.get<FileRow>(sql`
        UPDATE uploads SET size = ${bytes.length}, content_type = ${type}, charset = ${nextCharset},
                           updated_at = ${this.clock()}
        WHERE account_id = ${accountId} AND id = ${id} RETURNING ${COLUMNS}`);
      return toFile(row!);
    });
  }

  /** Adds bytes at the end (WRITE). */
  async append(
    accountId: string,
    principal: Principal,
    id: string,
    content: Uint8Array,
  ): Promise<StoredFile> {
    return this.store.transaction(async (tx) => {
      const file = await this.authorize(tx, accountId, principal, id, 'WRITE', true);
      const before = await this.contentOf(tx, accountId, id);
      const after = this.checkSize(Buffer.concat([before, content]));
      await tx.run(
        sql`UPDATE upload_contents SET content = ${after} WHERE account_id = ${accountId} AND id = ${id}`,
      );
      const row = await tx.get<FileRow>(sql`
        UPDATE uploads SET size = ${after.length}, updated_at = ${this.clock()}
        WHERE account_id = ${accountId} AND id = ${file.id} RETURNING ${COLUMNS}`);
      return toFile(row!);
    });
  }

  /** Changes descriptor fields (WRITE). */
  async update(
    accountId: string,
    principal: Principal,
    id: string,
    changes: FileChanges,
  ): Promise<StoredFile> {
    const sets: Sql[] = [];
    if (changes.name !== undefined) sets.push(sql`name = ${this.checkName(changes.name)}`);
    if (changes.contentType !== undefined)
      sets.push(sql`content_type = ${checkContentType(changes.contentType)}`);
    if (changes.visibility !== undefined) sets.push(sql`visibility = ${checkVisibility(changes.visibility)}`);
    if (changes.metadata !== undefined)
      sets.push(sql`metadata = ${toJson(this.checkMetadata(changes.metadata))}`);
    return this.store.transaction(async (tx) => {
      const file = await this.authorize(tx, accountId, principal, id, 'WRITE', true);
      const type =
        changes.contentType === undefined ? file.contentType : checkContentType(changes.contentType);
      const charset = isTextType(type)
        ? changes.charset != null
          ? checkCharset(changes.charset)
          : (file.charset ?? DEFAULT_CHARSET)
        : null;
      sets.push(sql`charset = ${charset}`, sql`updated_at = ${this.clock()}`);
      const row = await tx.get<FileRow>(sql`
        UPDATE uploads SET ${sql.join(sets)} WHERE account_id = ${accountId} AND id = ${id} RETURNING ${COLUMNS}`);
      return toFile(row!);
    });
  }

  /** Deletes a file, its content, its grants and its attachments (WRITE); false when it does not exist. */
  async delete(accountId: string, principal: Principal, id: string): Promise<boolean> {
    return this.store.transaction(async (tx) => {
      try {
        await this.authorize(tx, accountId, principal, id, 'WRITE', true);
      } catch (e) {
        if (e instanceof PlatformError && e.code === 'not-found') return false;
        throw e;
      }
      const result = await tx.run(sql`DELETE FROM uploads WHERE account_id = ${accountId} AND id = ${id}`);
      return result.changes > 0;
    });
  }

  /** The files the principal may read, oldest first. */
  async list(
    accountId: string,
    principal: Principal,
    page: { first?: number; limit?: number } = {},
  ): Promise<StoredFile[]> {
    const limit = Math.max(0, Math.min(page.limit ?? 1000, 1000));
    const first = Math.max(0, page.first ?? 0);
    let visible = sql`1 = 1`;
    if (!principal.isAdmin) {
      const lanes = [...(await this.lanesOf(accountId, principal))];
      const laneGrant = lanes.length
        ? sql` OR (r.kind = 'lane' AND r.principal_id IN (${sql.join(lanes)}))`
        : sql``;
      visible = sql`(u.visibility = 'PUBLIC'
        OR (u.created_by IS NOT NULL AND u.created_by = ${principal.userId ?? -1})
        OR (u.created_by IS NULL AND u.owner_request IS NOT NULL AND u.owner_request = ${principal.requestId ?? null})
        OR EXISTS (SELECT 1 FROM upload_rights r WHERE r.account_id = u.account_id AND r.file_id = u.id
                   AND ((r.kind = 'user' AND r.principal_id = ${principal.userId ?? -1})${laneGrant})))`;
    }
    const rows = await this.store.all<FileRow>(sql`
      SELECT ${sql.raw(COLUMNS_OF_U)} FROM uploads u
      WHERE u.account_id = ${accountId} AND ${visible}
      ORDER BY u.created_at, u.id LIMIT ${limit} OFFSET ${first}`);
    return rows.map(toFile);
  }

  /** The grants of a file (READ). */
  async rights(accountId: string, principal: Principal, id: string): Promise<FileRights> {
    await this.authorize(this.store, accountId, principal, id, 'READ');
    return rightsOf(await this.grantsOf(this.store, accountId, id));
  }

  /**
   * Adds or removes grants on several files at once (WRITE on each, all or nothing): the
   * R_read_file_* / R_update_file_* functions. Returns the rights of each file, by id.
   */
  async changeRights(
    accountId: string,
    principal: Principal,
    ids: readonly string[],
    change: RightsChange,
  ): Promise<Record<string, FileRights>> {
    const principalIds = await this.resolvePrincipals(accountId, change.kind, change.principals);
    return this.store.transaction(async (tx) => {
      const result: Record<string, FileRights> = Object.create(null);
      for (const id of ids) {
        await this.authorize(tx, accountId, principal, id, 'WRITE', true);
        for (const principalId of principalIds) {
          if (change.op === 'add')
            await tx.run(sql`
              INSERT INTO upload_rights (account_id, file_id, kind, access, principal_id)
              VALUES (${accountId}, ${id}, ${change.kind}, ${change.access}, ${principalId})
              ON CONFLICT DO NOTHING`);
          else
            await tx.run(sql`
              DELETE FROM upload_rights WHERE account_id = ${accountId} AND file_id = ${id}
                AND kind = ${change.kind} AND access = ${change.access} AND principal_id = ${principalId}`);
        }
      }
      for (const id of ids) result[id] = rightsOf(await this.grantsOf(tx, accountId, id));
      return { ...result };
    });
  }

  /** zip_file: a new archive of the given files (READ on each), owned by the principal. */
  async zip(
    accountId: string,
    principal: Principal,
    ids: readonly string[],
    name: string,
  ): Promise<StoredFile> {
    if (ids.length === 0) throw new PlatformError('invalid', 'no file to zip');
    if (ids.length > this.limits.maxZipInputs)
      throw new PlatformError('invalid', `more than ${this.limits.maxZipInputs} files to zip`);
    const inputs: ZipInput[] = [];
    let total = 0;
    for (const id of new Set(ids)) {
      const { file, content } = await this.read(accountId, principal, id);
      total += content.length;
      if (total > this.limits.maxZipUncompressedBytes)
        throw new PlatformError(
          'invalid',
          `the files to zip exceed ${this.limits.maxZipUncompressedBytes} bytes (maxZipUncompressedBytes)`,
        );
      inputs.push({ name: file.name, content, mtime: file.updatedAt });
    }
    const archive = await buildZip(inputs);
    return this.create(accountId, principal, { name, content: archive, contentType: 'application/zip' });
  }

  /** unzip_file: one new file per file entry of the archive (READ on it), within the zip limits. */
  async unzip(accountId: string, principal: Principal, id: string): Promise<StoredFile[]> {
    const { content } = await this.read(accountId, principal, id);
    const entries = await extractZip(content, this.limits);
    return this.store.transaction(async () => {
      const files: StoredFile[] = [];
      for (const entry of entries)
        files.push(await this.create(accountId, principal, { name: entry.name, content: entry.content }));
      return files;
    });
  }

  // ---------------------------------------------------------------------------------------------

  private async authorize(
    db: Queryable,
    accountId: string,
    principal: Principal,
    id: string,
    access: Access,
    lock = false,
  ): Promise<StoredFile> {
    const row = await db.get<FileRow>(sql`
      SELECT ${COLUMNS} FROM uploads WHERE account_id = ${accountId} AND id = ${String(id)}
      ${lock ? db.dialect.forUpdate : sql``}`);
    if (!row) throw uploadedFileMissing(id);
    const file = toFile(row);
    if (allows(implicitAccess(principal, file), access)) return file;
    if (principal.userId !== null) {
      const grants = await this.grantsOf(db, accountId, id);
      if (grants.length > 0) {
        const lanes = grants.some((g) => g.kind === 'lane')
          ? await this.lanesOf(accountId, principal)
          : new Set<number>();
        if (allows(grantedAccess(grants, principal.userId, lanes), access)) return file;
      }
    }
    throw new PlatformError('not-allowed', `Access denied: no ${access} right on file ${id}.`);
  }

  private async grantsOf(db: Queryable, accountId: string, id: string): Promise<Grant[]> {
    const rows = await db.all<{ kind: string; access: string; principal_id: number }>(sql`
      SELECT kind, access, principal_id FROM upload_rights WHERE account_id = ${accountId} AND file_id = ${id}`);
    return rows.map((r) => ({
      kind: oneOf(RIGHT_KINDS, r.kind, 'a stored upload right'),
      access: oneOf(ACCESSES, r.access, 'a stored upload right'),
      principalId: Number(r.principal_id),
    }));
  }

  private async lanesOf(accountId: string, principal: Principal): Promise<Set<number>> {
    if (principal.userId === null) return new Set();
    const lanes = await this.directory.lanes.lanesOf(
      accountId,
      principal.userId,
      laneModeFor(principal.mode),
    );
    return new Set(lanes.map((l) => l.id));
  }

  private async contentOf(db: Queryable, accountId: string, id: string): Promise<Buffer> {
    const row = await db.get<{ content: Buffer }>(
      sql`SELECT content FROM upload_contents WHERE account_id = ${accountId} AND id = ${id}`,
    );
    if (!row) throw uploadedFileMissing(id);
    return Buffer.isBuffer(row.content) ? row.content : Buffer.from(row.content);
  }

  private async resolvePrincipals(
    accountId: string,
    kind: RightKind,
    refs: ReadonlyArray<number | string>,
  ): Promise<number[]> {
    const ids = new Set<number>();
    for (const ref of refs) {
      if (kind === 'user') ids.add((await this.directory.users.require(accountId, ref)).id);
      else {
        const laneId = typeof ref === 'number' ? ref : /^\d{1,15}$/.test(ref.trim()) ? Number(ref) : NaN;
        if (!Number.isSafeInteger(laneId))
          throw new PlatformError(
            'invalid',
            `invalid lane id ${JSON.stringify(ref)}: a lane is named by its id`,
          );
        ids.add((await this.directory.lanes.require(accountId, laneId)).id);
      }
    }
    return [...ids];
  }

  private checkName(name: string): string {
    const trimmed = String(name).trim();
    if (trimmed === '') throw new PlatformError('invalid', 'a file name may not be empty');
    if (trimmed.length > this.limits.maxNameLength)
      throw new PlatformError('invalid', `a file name has at most ${this.limits.maxNameLength} characters`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(trimmed))
      throw new PlatformError('invalid', 'a file name may not hold control characters');
    return trimmed;
  }

  private checkSize(content: Uint8Array): Buffer {
    if (content.length > this.limits.maxFileBytes)
      throw new PlatformError(
        'invalid',
        `the file would exceed ${this.limits.maxFileBytes} bytes (maxFileBytes): ${content.length} bytes`,
      );
    return Buffer.isBuffer(content) ? content : Buffer.from(content);
  }

  private checkMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
    const copy = toJsonObject(metadata, 'the metadata');
    if (Buffer.byteLength(toJson(copy)) > this.limits.maxMetadataBytes)
      throw new PlatformError(
        'invalid',
        `the metadata exceeds ${this.limits.maxMetadataBytes} bytes of JSON`,
      );
    return copy;
  }
}

const COLUMNS_OF_U =
  'u.id, u.account_id, u.name, u.content_type, u.charset, u.size, u.created_at, u.updated_at, u.created_by, u.owner_request, u.visibility, u.metadata';

function checkContentType(text: string): string {
  const type = normaliseContentType(String(text));
  if (!type) throw new PlatformError('invalid', `invalid content type ${JSON.stringify(text)}`);
  return type;
}

function checkCharset(name: string): string {
  if (!isCharset(String(name)))
    throw new PlatformError('invalid', `unsupported charset ${JSON.stringify(name)}`);
  return String(name).trim();
}

function checkVisibility(value: string): Visibility {
  const upper = String(value).trim().toUpperCase();
  if (!isOneOf(VISIBILITIES, upper))
    throw new PlatformError('invalid', `invalid visibility ${JSON.stringify(value)}: PRIVATE or PUBLIC`);
  return upper;
}

function toFile(row: FileRow): StoredFile {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    contentType: row.content_type,
    charset: row.charset,
    size: Number(row.size),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ownerId: row.created_by === null ? null : Number(row.created_by),
    ownerRequest: row.owner_request,
    visibility: oneOf(VISIBILITIES, row.visibility, 'a stored visibility'),
    metadata: fromJson<Record<string, unknown>>(row.metadata) ?? {},
  };
}
