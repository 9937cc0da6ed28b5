/** Custom lists and translations: get_custom_list, save_custom_list, get_i18n, i18n. */
import type { Platform } from '../../platform/index.js';
import { normaliseLanguage } from '../../platform/i18n.js';
import { RIGHTS_MESSAGES } from '../../platform/rights.js';
import type { ExecutionContext } from '../context.js';
import { argumentError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { requireRight, requireUser } from '../rights.js';
import { platformCall, platformOf } from './calls.js';

/** The page's language (?P_language=), else the connected user's, else the account locale's. */
async function defaultLanguage(platform: Platform, ctx: ExecutionContext): Promise<string> {
  if (ctx.language) return ctx.language;
  if (ctx.user) {
    const user = await platform.directory.users.find(ctx.accountId, ctx.user.id);
    if (user) return user.language;
  }
  return normaliseLanguage(ctx.locale);
}

async function translate(
  fn: string,
  ctx: ExecutionContext,
  key: string,
  fallback: string,
  language: string | undefined,
): Promise<string> {
  const platform = platformOf(fn, ctx);
  let lang: string;
  try {
    lang = language === undefined ? await defaultLanguage(platform, ctx) : normaliseLanguage(language);
  } catch {
    throw argumentError(
      fn,
      3,
      'language',
      `expected a two-letter language code, got ${JSON.stringify(language)}`,
    );
  }
  const text = await platform.i18n.lookup(ctx.accountId, { key, language: lang, projectId: ctx.projectId });
  return text ?? fallback;
}

export const listFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'get_custom_list',
    group: 'Request',
    rights: 'none',
    doc: 'The content (an array) of a custom list of the account. Error `Custom list not found.` for an unknown id.',
    returns: 'array',
    forms: [
      {
        params: [{ name: 'id', type: 'string' }],
        async impl(ctx, [id], _call, fn) {
          const platform = platformOf(fn, ctx);
          return platformCall(fn, async () => {
            return (await platform.customLists.require(ctx.accountId, id)).content;
          });
        },
      },
    ],
  }),
  defineFunction({
    name: 'save_custom_list',
    group: 'Request',
    rights: 'argument',
    doc:
      'Replaces the content of a custom list and returns the new content. Administrators, and designers of the ' +
      "list's project, may. Error `Custom list not found.`",
    returns: 'array',
    forms: [
      {
        params: [
          { name: 'listId', type: 'string' },
          { name: 'data', type: 'array' },
        ],
        async impl(ctx, [listId, data], _call, fn) {
          const platform = platformOf(fn, ctx);
          const user = ctx.designedIn === undefined ? requireUser(fn, ctx) : ctx.user;
          return platformCall(fn, async () => {
            const list = await platform.customLists.require(ctx.accountId, listId);
            await requireRight(
              fn,
              platform.rights.canWriteCustomList(ctx.accountId, user, list, ctx.designedIn),
              RIGHTS_MESSAGES.customList(list.id),
            );
            const author = user ? { id: user.id, login: user.login } : undefined;
            return platform.customLists.save(ctx.accountId, list.id, data, author);
          });
        },
      },
    ],
  }),
  defineFunction({
    name: 'get_i18n',
    group: 'Request',
    rights: 'none',
    doc:
      "The translation of a key, for every kind of activity: the current project's dictionary first, then the " +
      "account-wide one. `language` is a two-letter code (default: the connected user's language, else the " +
      "account's). `defaultValue` when nothing is found (default: the key itself).",
    returns: 'string',
    forms: [
      {
        params: [
          { name: 'key', type: 'string' },
          { name: 'defaultValue', type: 'string', optional: true },
          { name: 'language', type: 'string', optional: true },
        ],
        impl(ctx, [key, defaultValue, language], _call, fn) {
          return translate(fn, ctx, key, defaultValue ?? key, language);
        },
      },
    ],
  }),
  defineFunction({
    name: 'i18n',
    group: 'Application',
    rights: 'none',
    doc:
      "The translation of a key in the page's language (a web interface opened with ?P_language=), else the connected user's, else the account's, as get_i18n; " +
      '`defaultValue` when nothing is found. Used by email activities and web interfaces.',
    returns: 'string',
    flags: { webInterface: true },
    forms: [
      {
        params: [
          { name: 'key', type: 'string' },
          { name: 'defaultValue', type: 'string' },
        ],
        impl(ctx, [key, defaultValue], _call, fn) {
          return translate(fn, ctx, key, defaultValue, undefined);
        },
      },
    ],
  }),
];
