/**
 * Uploaded files: multipart upload, download, descriptor changes, deletion and rights. The file
 * service checks every right (owner, administrators, user and lane grants, PUBLIC files); the
 * caller acts with the LIVE lane configuration. Downloads are always attachments served with
 * `nosniff` and a sandbox CSP, so an uploaded HTML file never runs as a page of this origin.
 */
import { Type, type Static } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Principal, StoredFile } from '../../platform/files/index.js';
import { callerOf } from '../auth/access.js';
import type { Api, ServerDeps } from '../deps.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { ListQuery } from '../listing.js';
import { JsonObject, Nullable } from '../schemas.js';

const Visibility = Type.Union([Type.Literal('PRIVATE'), Type.Literal('PUBLIC')]);

export const FileInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  contentType: Type.String(),
  charset: Nullable(Type.String()),
  size: Type.Integer(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
  ownerId: Nullable(Type.Integer()),
  visibility: Visibility,
  metadata: JsonObject,
});

const IdList = Type.Array(Type.Integer());
const FileRights = Type.Object({
  user: Type.Object({ READ: IdList, WRITE: IdList }),
  lane: Type.Object({ READ: IdList, WRITE: IdList }),
});

const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });
const Empty = { 204: Type.Null() };

const toFileBody = ({ accountId: _a, ownerRequest: _r, ...file }: StoredFile) => file;

/** The prefix the plugin is registered under (below /api/v1). */
export const FILES_PREFIX = '/files';

/**
 * A plugin registered under FILES_PREFIX (below /api/v1), its paths relative to it. Files take raw
 * bodies of any type: PUT …/content has its own content-type parser, in its own context.
 */
export async function fileRoutes(app: Api, { deps }: { deps: ServerDeps }): Promise<void> {
  const files = deps.platform.files;
  const uploadBytes = Math.min(deps.settings.uploadBytes, files.limits.maxFileBytes);
  const principalOf = (request: FastifyRequest): Principal => {
    const caller = callerOf(request);
    return { userId: caller.user.id, isAdmin: caller.user.isAdmin, mode: 'LIVE' };
  };

  app.get(
    '',
    {
      schema: {
        tags: ['files'],
        summary: 'The files the caller may read, oldest first',
        querystring: Type.Pick(ListQuery, ['first', 'nb']),
        response: {
          200: Type.Object({ items: Type.Array(FileInfo), first: Type.Integer(), nb: Type.Integer() }),
        },
      },
    },
    async (request) => {
      const first = request.query.first ?? 0;
      const nb = request.query.nb ?? 100;
      const list = await files.list(callerOf(request).accountId, principalOf(request), { first, limit: nb });
      return { items: list.map(toFileBody), first, nb };
    },
  );

  app.post(
    '',
    {
      schema: {
        tags: ['files'],
        summary: `Upload a file (multipart/form-data: the part "file", optional fields visibility, metadata (JSON), contentType, charset; at most ${uploadBytes} bytes)`,
        consumes: ['multipart/form-data'],
        response: { 201: FileInfo },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        throw new ApiError(415, 'unsupported-media-type', 'Upload files as multipart/form-data.');
      const { file, fields } = await readUpload(request, uploadBytes);
      const created = await files.create(callerOf(request).accountId, principalOf(request), {
        name: file.filename,
        content: file.content,
        contentType:
          fields.contentType ?? (file.mimetype === 'application/octet-stream' ? undefined : file.mimetype),
        charset: fields.charset,
        visibility: fields.visibility,
        metadata: fields.metadata,
      });
      reply.code(201);
      return toFileBody(created);
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: ['files'],
        summary: "A file's descriptor",
        params: Params,
        response: { 200: FileInfo },
      },
    },
    async (request) =>
      toFileBody(await files.describe(callerOf(request).accountId, principalOf(request), request.params.id)),
  );

  app.get(
    '/:id/content',
    {
      schema: {
        tags: ['files'],
        summary: 'Download a file (READ right)',
        params: Params,
      },
    },
    async (request, reply) => {
      const { file, content } = await files.read(
        callerOf(request).accountId,
        principalOf(request),
        request.params.id,
      );
      return reply
        .type(file.charset ? `${file.contentType}; charset=${file.charset}` : file.contentType)
        .header('content-disposition', attachment(file.name))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "sandbox; default-src 'none'")
        .send(content);
    },
  );

  // PUT …/content takes the raw bytes of any type (JSON included): a context of its own with one parser.
  app.register(async (raw: Api) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: uploadBytes }, (_r, body, done) =>
      done(null, body),
    );

    raw.put(
      '/:id/content',
      {
        bodyLimit: uploadBytes,
        schema: {
          tags: ['files'],
          summary: "Replace a file's content with the request body (WRITE right)",
          params: Params,
          response: { 200: FileInfo },
        },
      },
      async (request) => {
        const content = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const type = request.headers['content-type'];
        const saved = await files.save(
          callerOf(request).accountId,
          principalOf(request),
          request.params.id,
          content,
          {
            contentType:
              type === undefined || type === 'application/octet-stream'
                ? undefined
                : type.split(';')[0]!.trim(),
          },
        );
        return toFileBody(saved);
      },
    );
  });

  app.patch(
    '/:id',
    {
      schema: {
        tags: ['files'],
        summary: "Change a file's name, content type, charset, visibility or metadata (WRITE right)",
        params: Params,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            contentType: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            charset: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
            visibility: Type.Optional(Visibility),
            metadata: Type.Optional(JsonObject),
          },
          { additionalProperties: false },
        ),
        response: { 200: FileInfo },
      },
    },
    async (request) =>
      toFileBody(
        await files.update(
          callerOf(request).accountId,
          principalOf(request),
          request.params.id,
          request.body,
        ),
      ),
  );

  app.delete(
    '/:id',
    { schema: { tags: ['files'], summary: 'Delete a file (WRITE right)', params: Params, response: Empty } },
    async (request, reply) => {
      if (!(await files.delete(callerOf(request).accountId, principalOf(request), request.params.id)))
        throw notFound(`Uploaded file ${request.params.id} doesn't exist.`);
      reply.code(204);
    },
  );

  app.get(
    '/:id/rights',
    {
      schema: {
        tags: ['files'],
        summary: "A file's user and lane grants (READ right)",
        params: Params,
        response: { 200: FileRights },
      },
    },
    async (request) => files.rights(callerOf(request).accountId, principalOf(request), request.params.id),
  );

  app.post(
    '/:id/rights',
    {
      schema: {
        tags: ['files'],
        summary:
          'Grant or withdraw READ/WRITE to users or lanes (WRITE right), as the R_read_file_*/R_update_file_* functions',
        params: Params,
        body: Type.Object(
          {
            op: Type.Union([Type.Literal('add'), Type.Literal('remove')]),
            kind: Type.Union([Type.Literal('user'), Type.Literal('lane')]),
            access: Type.Union([Type.Literal('READ'), Type.Literal('WRITE')]),
            principals: Type.Array(
              Type.Union([Type.Integer({ minimum: 1 }), Type.String({ minLength: 1, maxLength: 255 })]),
              {
                minItems: 1,
                maxItems: 1000,
              },
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: FileRights },
      },
    },
    async (request) => {
      const rights = await files.changeRights(
        callerOf(request).accountId,
        principalOf(request),
        [request.params.id],
        request.body,
      );
      return rights[request.params.id]!;
    },
  );
}

const UploadFields = Type.Object({
  visibility: Type.Optional(Visibility),
  metadata: Type.Optional(JsonObject),
  contentType: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  charset: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});

/** The one file part and the fields of a multipart upload, the file read up to the size limit. */
async function readUpload(
  request: FastifyRequest,
  limit: number,
): Promise<{
  file: { filename: string; mimetype: string; content: Buffer };
  fields: Static<typeof UploadFields>;
}> {
  let file: { filename: string; mimetype: string; content: Buffer } | undefined;
  const fields: Record<string, unknown> = {};
  for await (const part of request.parts({ limits: { fileSize: limit } })) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file' || file) {
        part.file.resume();
        throw badRequest('send exactly one file, in the part named "file"');
      }
      file = { filename: part.filename, mimetype: part.mimetype, content: await part.toBuffer() };
    } else if (part.fieldname === 'metadata') {
      try {
        fields.metadata = JSON.parse(String(part.value));
      } catch {
        throw badRequest('metadata: a JSON object is expected');
      }
    } else if (part.fieldname in UploadFields.properties) fields[part.fieldname] = String(part.value);
    else
      throw badRequest(
        `unknown field ${JSON.stringify(part.fieldname)} (file, visibility, metadata, contentType, charset)`,
      );
  }
  if (!file) throw badRequest('no file: send it in the part named "file"');
  const visibility = fields.visibility;
  if (visibility !== undefined && visibility !== 'PRIVATE' && visibility !== 'PUBLIC')
    throw badRequest('visibility: PRIVATE or PUBLIC');
  const metadata = fields.metadata;
  if (
    metadata !== undefined &&
    (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
  )
    throw badRequest('metadata: a JSON object is expected');
  return { file, fields: fields as Static<typeof UploadFields> };
}

/** `attachment` with the name as ASCII fallback and as RFC 5987 UTF-8 (quotes and controls replaced). */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
