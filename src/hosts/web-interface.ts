/**
 * The web-interface host (docs/hosts.md): renders a web interface's HTML/JS template server-side
 * for a user of its account, on the surface `web-interface` — where only the functions of spec 2.1
 * (plus P_quoted and i18n) run; any other raises `function X is not available in a web interface`.
 *
 * `?P_mode=ACCEPTANCE|TEST` and `?P_context=mobile|tablet` choose the mode and context: a LIVE
 * page needs a LIVE version of the project, an ACCEPTANCE one a LIVE or ACCEPTANCE version, TEST
 * is for administrators; the context must be one the interface lists; an interface restricted
 * to lanes opens for their users (in the mode's lane configuration) and administrators.
 */
import { DEFAULT_LIMITS, type ExecutionLimits, type Mode } from '../functions/context.js';
import { contextFor } from '../functions/request/index.js';
import { isInterfaceContext, laneModeFor, type Platform } from '../platform/index.js';
import { markRequestInput, requestStrings, TemplateError } from '../template/index.js';
import { busyAnswer, errorAnswer, queryValue, type Answer, type Exchange } from './http.js';
import { loggedMessage, stepError } from './processes/failure.js';
import { renderIn } from './render.js';

export interface WebInterfaceHostOptions {
  clock?: () => number;
  random?: () => number;
  randomBytes?: (size: number) => Uint8Array;
  limits?: Partial<ExecutionLimits>;
}

export class WebInterfaceHost {
  private readonly limits: ExecutionLimits;

  constructor(
    readonly platform: Platform,
    readonly options: WebInterfaceHostOptions = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
  }

  async render(exchange: Exchange & { webInterfaceId: number }): Promise<Answer> {
    const { accountId, caller } = exchange;
    // Before the lookup: an anonymous caller must not learn which ids exist.
    if (!caller)
      return errorAnswer(401, 'unauthenticated', 'Authentication required: log in or send an API token.');
    const wi = await this.platform.webInterfaces.find(accountId, exchange.webInterfaceId);
    if (!wi) return errorAnswer(404, 'not-found', 'Web interface not found.');
    const mode = (queryValue(exchange.query, 'P_mode') ?? 'LIVE').toUpperCase();
    if (mode !== 'LIVE' && mode !== 'ACCEPTANCE' && mode !== 'TEST')
      return errorAnswer(
        400,
        'invalid',
        `P_mode must be LIVE, ACCEPTANCE or TEST, not ${JSON.stringify(mode)}`,
      );
    const context = (queryValue(exchange.query, 'P_context') ?? 'web').toLowerCase();
    if (!isInterfaceContext(context) || !wi.contexts.includes(context))
      return errorAnswer(404, 'not-found', `The web interface has no ${JSON.stringify(context)} context.`);
    const refusal = await this.refusal(accountId, caller.user, wi, mode);
    if (refusal) return refusal;
    const template = (await this.platform.webInterfaceTemplates.get(accountId, wi.id)) ?? '';
    const { clock, random, randomBytes } = this.options;
    const ctx = await contextFor({
      platform: this.platform,
      account: accountId,
      user: caller.user.id,
      mode,
      surface: 'web-interface',
      project: wi.projectId,
      designed: true,
      limits: this.limits,
      ...(clock ? { clock } : {}),
      ...(random ? { random } : {}),
      ...(randomBytes ? { randomBytes } : {}),
    });
    ctx.requestStrings = requestStrings(exchange.query);
    const language = languageParameter(queryValue(exchange.query, 'P_language'));
    if (language.P_language) ctx.language = language.P_language;
    try {
      const html = await renderIn(ctx, template, {
        name: `web interface ${wi.id}`,
        data: {},
        parameters: {
          P_context: context,
          P_query: markRequestInput(exchange.query),
          P_webinterface: { id: wi.id, title: wi.title },
          // Opened with ?P_language=xx (the links real scripts build pass it on): that language,
          // also the default of i18n and get_i18n
          ...language,
        },
      });
      return {
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        },
        body: html,
      };
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      const busy = busyAnswer(e);
      if (busy) return busy;
      const error = stepError(e);
      await this.platform.logs.write(accountId, {
        requestId: null,
        projectId: wi.projectId,
        userId: caller.user.id,
        mode,
        level: 'SEVERE',
        message: `web interface ${wi.id}, line ${error.line}, column ${error.column}: ${loggedMessage(e, error)}`,
      });
      if (mode !== 'LIVE' || caller.user.isAdmin)
        return errorAnswer(500, 'script-error', error.message, { line: error.line, column: error.column });
      return errorAnswer(500, 'script-error', "The web interface's script failed (see the account's log).");
    }
  }

  /** Why the caller may not open the interface in this mode, if they may not. */
  private async refusal(
    accountId: string,
    user: { id: number; isAdmin: boolean },
    wi: { projectId: number; lanes: number[] },
    mode: Mode,
  ): Promise<Answer | undefined> {
    if (mode === 'TEST') {
      if (!user.isAdmin)
        return errorAnswer(403, 'forbidden', 'Only an administrator may open a web interface in TEST mode.');
    } else {
      const projects = this.platform.projects;
      const version =
        (await projects.currentVersion(accountId, wi.projectId, 'LIVE')) ??
        (mode === 'ACCEPTANCE'
          ? await projects.currentVersion(accountId, wi.projectId, 'ACCEPTANCE')
          : undefined);
      if (!version)
        return errorAnswer(404, 'not-found', `The web interface is not published in ${mode} mode.`);
    }
    if (wi.lanes.length > 0 && !user.isAdmin) {
      const inLane = await this.platform.directory.lanes.isInAnyLane(
        accountId,
        user.id,
        wi.lanes,
        laneModeFor(mode),
      );
      if (!inLane)
        return errorAnswer(403, 'forbidden', 'Only the users of its lanes may open this web interface.');
    }
    return undefined;
  }
}

/** P_language from a web interface's URL, when it names a language (two or three letters). */
function languageParameter(text: string | undefined): { P_language?: string } {
  return text !== undefined && /^[A-Za-z]{2,3}$/.test(text) ? { P_language: text.toLowerCase() } : {};
}
