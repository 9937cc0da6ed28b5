/**
 * The `--account`, `--user`, `--mode`, `--project` and `--request` options of `flowmark render`:
 * the platform context a render runs in (docs/platform.md). With `--account`, the context comes
 * from the configured store (FLOWMARK_DATA or DATABASE_URL), the user resolved and the internal
 * parameters prepared; `--mode` alone only sets the mode of the default, store-less context.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../config/index.js';
import { createExecutionContext, MODES, type ExecutionContext, type Mode } from '../../functions/context.js';
import { contextFor } from '../../functions/request/evaluation.js';
import type { Platform } from '../../platform/index.js';
import type { Store } from '../../store/index.js';
import { evaluationLimits } from './limits.js';

export const CONTEXT_USAGE =
  'The render runs in an account of the configured store (FLOWMARK_DATA, default ./data, or\n' +
  'DATABASE_URL): by default "default" or the only account, --account ID chooses another; as\n' +
  '--user LOGIN (login, email or id), in --mode LIVE|ACCEPTANCE|TEST (default TEST), in\n' +
  '--project ID or inside --request ID: the Collections, Files, User and Request functions and\n' +
  'the internal parameters (P_user, P_mode …) act on it. Without a store (npx flowmark serve or\n' +
  'npx flowmark seed --demo makes one) only the functions that need no platform are available.';

/** Appended to a "… is not available in this context" error of a render without a store. */
export function noStoreHint(): string {
  return (
    `(flowmark render found no store in ${loadConfig().dataDir}: \`npx flowmark serve\` or ` +
    '`npx flowmark seed --demo` creates one; FLOWMARK_DATA or DATABASE_URL chooses another, ' +
    '--account ID an account)'
  );
}

/** True when the configured store exists: DATABASE_URL is set, or FLOWMARK_DATA holds the database. */
export function storeExists(): boolean {
  const config = loadConfig();
  return config.databaseUrl !== undefined || existsSync(join(config.dataDir, 'flowmark.db'));
}

export interface ContextArgs {
  account?: string;
  user?: string;
  mode?: string;
  project?: string;
  request?: string;
}

export const CONTEXT_OPTIONS: Readonly<Record<string, keyof ContextArgs>> = {
  '--account': 'account',
  '--user': 'user',
  '--mode': 'mode',
  '--project': 'project',
  '--request': 'request',
};

/** A usage error in the context options, or undefined when they are consistent. */
export function checkContextArgs(args: ContextArgs): string | undefined {
  for (const [option, key] of Object.entries(CONTEXT_OPTIONS))
    if (key in args && (args[key] === undefined || args[key] === '')) return `${option} needs a value`;
  if (args.mode !== undefined && !MODES.includes(args.mode.toUpperCase() as Mode))
    return `--mode must be LIVE, ACCEPTANCE or TEST, got ${JSON.stringify(args.mode)}`;
  if (args.project !== undefined && !/^\d+$/.test(args.project))
    return `--project must be a project id (a number)`;
  return undefined;
}

/**
 * The context of a render and what closes its store: in --account, else in the store's default
 * account ("default" or the only one) when the configured store exists; undefined (the store-less
 * context) when it does not and no option asks for one. Platform errors (unknown account, user,
 * project or request; a blocked user) are thrown, and so is a store whose default is ambiguous.
 */
export async function openRenderContext(
  args: ContextArgs,
): Promise<{ ctx: ExecutionContext; close(): Promise<void> } | undefined> {
  const mode = args.mode?.toUpperCase() as Mode | undefined;
  if (args.account === undefined && !storeExists()) {
    for (const option of ['user', 'project', 'request'] as const)
      if (args[option] !== undefined) throw new Error(`--${option} needs a store: ${noStoreHint()}`);
    if (mode === undefined) return undefined;
    return { ctx: createExecutionContext({ mode }), close: async () => {} };
  }
  const limits = evaluationLimits(undefined); // FLOWMARK_DATA_DOCUMENT_LIMIT (inject_objects in --request)
  // The store, the platform and the migrations load only for a render that has a store.
  const [{ openStore }, { createPlatform }, { defaultAccount }] = await Promise.all([
    import('../../store/index.js'),
    import('../../platform/index.js'),
    import('../../server/bootstrap.js'),
  ]);
  const store: Store = await openStore();
  try {
    const platform = createPlatform(store);
    let account = args.account;
    if (account === undefined) {
      account = await defaultAccount(platform);
      if (account === undefined) {
        const count = (await platform.accounts.list()).length;
        throw new Error(
          count === 0
            ? 'the store has no account yet: `npx flowmark serve` or `npx flowmark seed --demo` creates one'
            : 'the store has several accounts and none is "default": choose one with --account',
        );
      }
    }
    if (args.user !== undefined && !(await platform.directory.users.find(account, args.user)))
      throw new Error(await noSuchUser(platform, account, args.user));
    const ctx = await contextFor({
      platform,
      account,
      ...(args.user !== undefined ? { user: args.user } : {}),
      ...(mode !== undefined ? { mode } : {}),
      ...(args.project !== undefined ? { project: Number(args.project) } : {}),
      ...(args.request !== undefined ? { request: args.request } : {}),
      limits,
    });
    return { ctx, close: () => store.close() };
  } catch (e) {
    await store.close();
    throw e;
  }
}

/** "no user X in account A", and which other accounts have one (`--user ann` without `--account demo`). */
export async function noSuchUser(platform: Platform, accountId: string, login: string): Promise<string> {
  const elsewhere: string[] = [];
  for (const account of await platform.accounts.list())
    if (account.id !== accountId && (await platform.directory.users.find(account.id, login)))
      elsewhere.push(account.id);
  const message = `no user ${login} in account ${accountId}`;
  if (elsewhere.length === 0) return message;
  return `${message}; account ${elsewhere.join(', account ')} has one: choose it with --account ${elsewhere[0]!}`;
}
