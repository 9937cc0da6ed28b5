/**
 * Importing a CSV or JSON file into a collection (`/collections/:name/import`, multipart), answered
 * at once or streamed as NDJSON progress lines.
 */
import { PassThrough } from 'node:stream';
import { Type } from 'typebox';
import { importOptions } from '../../../platform/collections/index.js';
import { parseJsonSafely, UnsafeJsonKeyError } from '../../../safety/index.js';
import { isRecord } from '../../../safety/narrow.js';
import type { Api, ServerDeps } from '../../deps.js';
import { ApiError, badRequest, toErrorBody } from '../../errors.js';
import { Params, routeContext } from './shared.js';

export function importRoutes(app: Api, deps: ServerDeps): void {
  const { collections, actorOf } = routeContext(deps);

  app.post(
    '/:name/import',
    {
      schema: {
        tags: ['collections'],
        summary: `Import a CSV or JSON file into a collection like import_objects (multipart/form-data: the part "file", an optional field "options" with import_objects' options as JSON); all or nothing; at most ${deps.settings.uploadBytes} bytes. With Accept: application/x-ndjson, the answer streams {"documents": n} per batch, then {"imported": n} or the error body`,
        consumes: ['multipart/form-data'],
        params: Params,
        response: {
          200: Type.Unknown({ description: 'application/x-ndjson: the streamed progress' }),
          201: Type.Object({ imported: Type.Integer() }),
        },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        throw new ApiError(415, 'unsupported-media-type', 'Send the file as multipart/form-data.');
      let content: Buffer | undefined;
      let raw: Record<string, unknown> = {};
      let parsed: unknown;
      for await (const part of request.parts({ limits: { fileSize: deps.settings.uploadBytes } })) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file' || content) {
            part.file.resume();
            throw badRequest('send exactly one file, in the part named "file"');
          }
          content = await part.toBuffer();
        } else if (part.fieldname === 'options') {
          try {
            parsed = parseJsonSafely(String(part.value));
          } catch (e) {
            if (e instanceof UnsafeJsonKeyError) throw badRequest(`options: ${e.message}`);
            throw badRequest('options: a JSON object is expected');
          }
          if (!isRecord(parsed)) throw badRequest('options: a JSON object is expected');
          raw = parsed;
        } else throw badRequest(`unknown field ${JSON.stringify(part.fieldname)} (file, options)`);
      }
      if (!content) throw badRequest('no file: send it in the part named "file"');
      const format = importOptions(raw);
      if (!(request.headers.accept ?? '').includes('application/x-ndjson')) {
        const imported = await collections.importFile(
          actorOf(request),
          request.params.name,
          [content],
          format,
        );
        reply.code(201);
        return { imported };
      }
      // Streamed: a line {"documents": n} per batch written, then {"imported": n}, or the error
      // body (the status is sent before the import runs). The import does not wait for the client.
      const lines = new PassThrough();
      const line = (value: unknown) => lines.write(`${JSON.stringify(value)}\n`);
      collections
        .importFile(actorOf(request), request.params.name, [content], format, {
          onProgress: (p) => line({ documents: p.documents }),
        })
        .then(
          (imported) => line({ imported }),
          (e: unknown) => {
            const reply = toErrorBody(e);
            if (reply.internal) request.log.error(e);
            line(reply.body);
          },
        )
        .finally(() => lines.end());
      return reply.code(200).type('application/x-ndjson; charset=utf-8').send(lines);
    },
  );
}
