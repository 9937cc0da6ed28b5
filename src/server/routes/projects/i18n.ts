/**
 * A project's i18n dictionary as one document, `{ language: { key: text } }`
 * (`/projects/:id/i18n`; project 0 is the account-wide dictionary, the fallback of every
 * project): read it, replace it whole, and its history (routes/versions.ts: each replace keeps a
 * version; a restore replaces it with a version's body). Administrators only, as the account's
 * other designed artefacts.
 */
import { Type } from 'typebox';
import { ACCOUNT_WIDE } from '../../../platform/i18n.js';
import { callerOf } from '../../auth/access.js';
import type { Api, ServerDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { putJson, versionRoutes } from '../versions.js';

const DictionaryParams = Type.Object({
  id: Type.Integer({ minimum: 0, description: 'the project, or 0 for the account-wide dictionary' }),
});
const Dictionary = Type.Record(
  Type.String(),
  Type.Record(Type.String(), Type.String({ maxLength: 100_000 })),
  { description: '{ language: { key: text } }: a language is a two-letter code (fr, or fr_FR read as fr)' },
);
/** A language as the dictionaries take it (platform/i18n.ts: normaliseLanguage keeps its first two letters). */
const LANGUAGE = /^[A-Za-z]{2}([_-][A-Za-z0-9]+)?$/;

type DictionaryBody = Record<string, Record<string, string>>;

export function i18nRoutes(app: Api, deps: ServerDeps): void {
  const { projects, i18n } = deps.platform;

  /** The dictionary as one document (languages and keys in order). */
  const read = async (accountId: string, project: number): Promise<DictionaryBody> => {
    const body: DictionaryBody = {};
    for (const e of await i18n.entries(accountId, project)) (body[e.language] ??= {})[e.key] = e.text;
    return body;
  };
  const known = async (accountId: string, project: number) => {
    if (project !== ACCOUNT_WIDE) await projects.require(accountId, project);
  };

  app.get(
    '/:id/i18n',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: "A project's i18n dictionary (0: the account-wide one)",
        params: DictionaryParams,
        response: { 200: Dictionary },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      await known(accountId, request.params.id);
      return read(accountId, request.params.id);
    },
  );

  app.put(
    '/:id/i18n',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        summary: "Replace a project's i18n dictionary whole (0: the account-wide one); keeps a version",
        params: DictionaryParams,
        body: Dictionary,
        response: { 200: Dictionary },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      await known(caller.accountId, request.params.id);
      for (const [language, entries] of Object.entries(request.body)) {
        if (!LANGUAGE.test(language))
          throw new ApiError(
            400,
            'invalid',
            `invalid language ${JSON.stringify(language)}: expected a two-letter code (fr, fr_FR)`,
          );
        for (const key of Object.keys(entries))
          if (key === '' || key.length > 255)
            throw new ApiError(
              400,
              'invalid',
              `invalid i18n key ${JSON.stringify(key.slice(0, 300))} in ${language}: 1 to 255 characters`,
            );
      }
      await i18n.replaceAll(caller.accountId, request.params.id, request.body, caller.user);
      return read(caller.accountId, request.params.id);
    },
  );

  versionRoutes(
    app,
    { deps },
    {
      kind: 'i18n',
      path: '/:id/i18n',
      param: { name: 'id', schema: DictionaryParams.properties.id },
      label: (id) =>
        id === '0' ? 'the account-wide i18n dictionary' : `the i18n dictionary of project ${id}`,
      access: 'admin',
      tag: 'projects',
      save: (id, body) => putJson(`/api/v1/projects/${id}/i18n`, body),
    },
  );
}
