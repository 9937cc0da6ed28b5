/**
 * A project as a bundle: export it (`GET /projects/:id/bundle`) and import one
 * (`POST /projects/bundle`, the zip as the raw body, in a context of its own with one parser).
 */
import { Type } from 'typebox';
import { exportProject, importBundle, packBundle, unpackBundle } from '../../../platform/bundles/index.js';
import { RIGHTS_MESSAGES } from '../../../platform/index.js';
import { callerOf } from '../../auth/access.js';
import type { Api, ServerDeps } from '../../deps.js';
import { forbidden } from '../../errors.js';
import { IdParams } from '../../schemas.js';

const BundleQuery = Type.Object(
  {
    withDocuments: Type.Optional(Type.Boolean({ description: "the collections' documents too" })),
    withSecrets: Type.Optional(
      Type.Boolean({ description: "the vaults' values, in clear (default: their keys only)" }),
    ),
    collections: Type.Optional(
      Type.String({ description: 'the collections to carry, comma-separated (default: every one)' }),
    ),
  },
  { additionalProperties: false },
);
const ImportQuery = Type.Object(
  {
    dryRun: Type.Optional(Type.Boolean({ description: 'only list the changes' })),
    projectId: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "default: the only project titled as the bundle's, or a new one",
      }),
    ),
  },
  { additionalProperties: false },
);
const ImportAnswer = Type.Object({
  projectId: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null: a dry run that would create it',
  }),
  title: Type.String(),
  applied: Type.Boolean(),
  changes: Type.Array(
    Type.Object({
      action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
      path: Type.String({ description: 'the bundle file that differs' }),
    }),
  ),
});
/** Largest bundle POST /projects/bundle takes. */
const BUNDLE_BYTES = 256 * 1024 * 1024;

export function bundleRoutes(app: Api, deps: ServerDeps): void {
  const { projects } = deps.platform;

  app.get(
    '/:id/bundle',
    {
      schema: {
        tags: ['projects'],
        summary:
          'Export the project as a bundle (zip, format flowmark-bundle/1, docs/deploy.md "Project bundles"; design right)',
        params: IdParams,
        querystring: BundleQuery,
        produces: ['application/zip'],
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const id = request.params.id;
      const project = await projects.require(caller.accountId, id);
      if (!(await deps.platform.rights.canDesign(caller.accountId, caller.user, id)))
        throw forbidden(RIGHTS_MESSAGES.exportBundle(id));
      const files = await exportProject(deps.platform, caller.accountId, id, {
        withDocuments: request.query.withDocuments,
        withSecrets: request.query.withSecrets,
        collections: request.query.collections?.split(',').filter((c) => c !== ''),
      });
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="project-${project.id}.zip"`)
        .send(await packBundle(files));
    },
  );

  // The bundle comes as the raw body (any content type): a context of its own with one parser.
  app.register(async (raw: Api) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BUNDLE_BYTES }, (_r, body, done) =>
      done(null, body),
    );
    raw.post(
      '/bundle',
      {
        config: { access: 'admin' },
        bodyLimit: BUNDLE_BYTES,
        schema: {
          tags: ['projects'],
          summary:
            'Import a bundle (the zip as the request body) into a project: the creates, updates and deletes, all applied or none',
          querystring: ImportQuery,
          response: { 200: ImportAnswer },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const name = 'the bundle';
        const files = await unpackBundle(body, name);
        return importBundle(deps.platform, deps.store, caller.accountId, files, name, {
          projectId: request.query.projectId,
          dryRun: request.query.dryRun,
        });
      },
    );
  });
}
