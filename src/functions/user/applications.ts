/** get_applications: the web interfaces a user may launch. */
import type { Mode } from '../../platform/index.js';
import { INTERFACE_CONTEXTS, NO_TAG, webInterfaceUrl } from '../../platform/projects/web-interfaces.js';
import { laneModeFor } from '../../platform/model.js';
import { MODES } from '../context.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { platformOf } from '../request/calls.js';
import { evaluationState } from '../request/evaluation.js';
import { choice } from '../utilities/args.js';
import { targetUser } from './resolve.js';

export const applicationFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'get_applications',
    group: 'User',
    rights: 'user',
    doc:
      'The web interfaces a user (login; default the connected user) may launch in a context (web, mobile or tablet; ' +
      'default web) and mode (default the current one): LIVE lists those of LIVE versions, ACCEPTANCE those of LIVE ' +
      'and ACCEPTANCE versions, TEST none. Entries {id, title, url, description, thumb}, by title. With `tagged` true, ' +
      'an object grouping the entries by tag (an interface appears under each of its tags; untagged ones under NO_TAG). ' +
      "The platform's own form get_applications(login, context, isTagged) is accepted: a boolean third argument " +
      '(or the text true/false) is `tagged`, in the current mode.',
    returns: 'array or object',
    flags: { webInterface: true },
    forms: [
      {
        params: [
          { name: 'login', type: 'string', optional: true },
          { name: 'context', type: 'string', optional: true, default: 'web' },
          { name: 'mode', type: ['boolean', 'string'], optional: true },
          { name: 'tagged', type: 'boolean', optional: true, default: false },
        ],
        async impl(ctx, [login, context, third, fourth], _call, fn) {
          // The platform's own parameter list is (login, context, isTagged): a boolean third argument
          // (or "true"/"false") is isTagged, in the current mode.
          const flag = typeof third === 'string' ? /^\s*(true|false)\s*$/i.exec(third)?.[1] : undefined;
          const isTagged =
            typeof third === 'boolean'
              ? third
              : flag !== undefined
                ? flag.toLowerCase() === 'true'
                : undefined;
          const modeText = isTagged === undefined ? third : undefined;
          const tagged = isTagged ?? fourth;
          const platform = platformOf(fn, ctx);
          const contextName = choice(fn, 2, 'context', context, INTERFACE_CONTEXTS);
          const mode: Mode =
            modeText === undefined ? ctx.mode : choice(fn, 3, 'mode', modeText as string, MODES);
          const user = await targetUser(fn, ctx, platform, login);
          const lanes = await platform.directory.lanes.lanesOf(ctx.accountId, user.id, laneModeFor(mode));
          const applications = await platform.webInterfaces.applications(ctx.accountId, {
            mode,
            context: contextName,
            userLanes: lanes.map((l) => l.id),
          });
          const live = (await evaluationState(ctx)).urls.live;
          const entries = applications.map(({ webInterface: w, mode: launched }) => ({
            tags: w.tags,
            entry: {
              id: w.id,
              title: w.title,
              url: webInterfaceUrl(live, w.id, launched, contextName),
              description: w.description,
              thumb: w.thumb,
            },
          }));
          if (!tagged) return entries.map((e) => e.entry);
          const groups = new Map<string, unknown[]>();
          for (const { tags, entry } of entries)
            for (const tag of tags.length ? tags : [NO_TAG]) {
              let group = groups.get(tag);
              if (!group) groups.set(tag, (group = []));
              group.push(entry);
            }
          return Object.fromEntries(groups);
        },
      },
    ],
  }),
];
