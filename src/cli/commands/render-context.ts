/**
 * The `--account`, `--user`, `--mode`, `--project` and `--request` options of `flowmark render`:
 * the platform context a render runs in (docs/platform.md). With `--account`, the context comes
 * from the configured store (FLOWMARK_DATA or DATABASE_URL), the user resolved and the internal
 * parameters prepared; `--mode` alone only sets the mode of the default, store-less context.
 */
import { createExecutionContext, MODES, type ExecutionContext, type Mode } from '../../functions/context.js';
import { contextFor } from '../../functions/request/index.js';
import { openStore, type Store } from '../../store/index.js';
import { evaluationLimits } from './limits.js';

export const CONTEXT_USAGE =
  '--account ID runs the render in an account of the configured store (FLOWMARK_DATA or\n' +
  'DATABASE_URL; flowmark seed --demo makes one), as --user LOGIN (login, email or id), in\n' +
  '--mode LIVE|ACCEPTANCE|TEST (default TEST), in --project ID or inside --request ID: the\n' +
  'User and Request functions and the internal parameters (P_user, P_mode …) act on it.';

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
  for (const option of ['user', 'project', 'request'] as const)
    if (args[option] !== undefined && args.account === undefined) return `--${option} needs --account`;
  return undefined;
}

/**
 * The context of a render (undefined when no option asks for one) and what closes its store.
 * Platform errors (unknown account, user, project or request; a blocked user) are thrown.
 */
export async function openRenderContext(
  args: ContextArgs,
): Promise<{ ctx: ExecutionContext; close(): Promise<void> } | undefined> {
  const mode = args.mode?.toUpperCase() as Mode | undefined;
  if (args.account === undefined) {
    if (mode === undefined) return undefined;
    return { ctx: createExecutionContext({ mode }), close: async () => {} };
  }
  const limits = evaluationLimits(undefined); // FLOWMARK_DATA_DOCUMENT_LIMIT (inject_objects in --request)
  const store: Store = await openStore();
  try {
    const ctx = await contextFor({
      store,
      account: args.account,
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
