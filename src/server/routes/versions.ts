/**
 * The history of a designed artefact over REST (docs/deploy.md, "History and rollback"): its
 * versions newest first, paged by `before`; one version with its body; and a restore, which saves
 * that body again, as the caller's own save through the artefact's route (same rights, same
 * checks, a new version, and an audit log entry of that save). Each family of artefacts
 * registers these routes beside its own, with its own access.
 */
import { Type, type TSchema } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { VERSION_PAGE_MAX, type ArtefactKind } from '../../platform/index.js';
import { propertyOf } from '../../safety/narrow.js';
import { callerOf, type Access } from '../auth/access.js';
import { callerHeaders } from '../audit.js';
import type { Api, ServerDeps } from '../deps.js';
import { notFound } from '../errors.js';

const Author = Type.Object({ id: Type.Union([Type.Integer(), Type.Null()]), login: Type.String() });
const Summary = Type.Object({ version: Type.Integer(), author: Author, createdAt: Type.Integer() });
const Version = Type.Object({ ...Summary.properties, body: Type.Unknown() });

const VersionQuery = Type.Object(
  {
    before: Type.Optional(
      Type.Integer({ minimum: 1, description: 'versions older than this number (the next page)' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: VERSION_PAGE_MAX, default: 50 })),
  },
  { additionalProperties: false },
);

export interface VersionedFamily {
  kind: ArtefactKind;
  /** The artefact's own path below the plugin's prefix: `/:id`, `/:id/template`, `/custom-lists/:listId`. */
  path: string;
  /** The schema of the path's artefact parameter (`id` or `listId`). */
  param: { name: string; schema: TSchema };
  /** How messages name one: `composite API 3`. */
  label: (id: string) => string;
  access: Access;
  /** The save a restore makes: the route and its payload for a version's body. */
  save: (id: string, body: unknown) => { url: string; contentType: string; payload: string };
  tag: string;
}

/** A version's body saved again as JSON, through PUT `url`. */
export const putJson = (url: string, body: unknown) => ({
  url,
  contentType: 'application/json',
  payload: JSON.stringify(body),
});

export function versionRoutes(app: Api, { deps }: { deps: ServerDeps }, family: VersionedFamily): void {
  const { versions } = deps.platform;
  const Params = Type.Object({ [family.param.name]: family.param.schema });
  const VersionParams = Type.Object({
    [family.param.name]: family.param.schema,
    version: Type.Integer({ minimum: 1 }),
  });
  const config = { access: family.access };
  const artefactOf = (request: FastifyRequest) => String(propertyOf(request.params, family.param.name));
  const versionOf = (request: FastifyRequest) => Number(propertyOf(request.params, 'version'));
  const required = async (request: FastifyRequest) => {
    const id = artefactOf(request);
    const version = versionOf(request);
    const found = await versions.find(callerOf(request).accountId, family.kind, id, version);
    if (!found) throw notFound(`Version ${version} of ${family.label(id)} not found.`);
    return found;
  };

  app.get(
    `${family.path}/versions`,
    {
      config,
      schema: {
        tags: [family.tag],
        summary: `The saved versions of ${family.label(`:${family.param.name}`)}, newest first`,
        params: Params,
        querystring: VersionQuery,
        response: {
          200: Type.Object({
            items: Type.Array(Summary),
            next: Type.Optional(Type.Integer({ description: 'the `before` of the next page' })),
          }),
        },
      },
    },
    async (request) => {
      const { before, limit = 50 } = request.query;
      const id = artefactOf(request);
      const items = await versions.list(callerOf(request).accountId, family.kind, id, {
        ...(before !== undefined ? { before } : {}),
        limit,
      });
      if (items.length === 0 && before === undefined)
        throw notFound(`${capitalised(family.label(id))} has no versions.`);
      return items.length === limit ? { items, next: items.at(-1)!.version } : { items };
    },
  );

  app.get(
    `${family.path}/versions/:version`,
    {
      config,
      schema: {
        tags: [family.tag],
        summary: `A saved version of ${family.label(`:${family.param.name}`)}, with its body`,
        params: VersionParams,
        response: { 200: Version },
      },
    },
    required,
  );

  app.post(
    `${family.path}/versions/:version/restore`,
    {
      config,
      schema: {
        tags: [family.tag],
        summary:
          `Restore a version of ${family.label(`:${family.param.name}`)}: its body saved again as a new version ` +
          "(the caller's own save; the answer is that save's)",
        params: VersionParams,
      },
    },
    async (request, reply) => {
      const found = await required(request);
      const save = family.save(artefactOf(request), found.body);
      const answer = await app.inject({
        method: 'PUT',
        url: save.url,
        headers: { ...callerHeaders(request), 'content-type': save.contentType },
        payload: save.payload,
      });
      return reply
        .code(answer.statusCode)
        .type(String(answer.headers['content-type'] ?? 'application/json'))
        .send(answer.body);
    },
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
