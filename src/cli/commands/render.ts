import { readFile } from 'node:fs/promises';
import { cannotRead } from '../file-errors.js';
import { basename, dirname, resolve, sep } from 'node:path';
import { parseJson } from '../../template/builtins/json.js';
import { convert } from '../../template/data.js';
import {
  compile,
  optionsFromSettings,
  TemplateError,
  type CompileOptions,
  type RenderOptions,
  type Scope,
  type TemplateLoader,
} from '../../template/index.js';
import { createExecutionContext, type ExecutionContext } from '../../functions/context.js';
import { internalParameters } from '../../functions/request/evaluation.js';
import { Budget, evaluationLimitsFromEnv } from '../../limits/index.js';
import { evaluationScope, PLATFORM_SETTINGS } from '../../hosts/evaluate.js';
import {
  checkContextArgs,
  CONTEXT_OPTIONS,
  CONTEXT_USAGE,
  noStoreHint,
  openRenderContext,
  type ContextArgs,
} from './render-context.js';
import type { CliIo, Command } from '../main.js';
import { errorMessage } from '../../template/errors.js';

/** The one rule of the locale and time zone, for the template's formatting and the functions alike. */
export const LOCALE_RULE =
  'The locale and time zone (of ${n}, ?string, date_format …) are --locale and\n' +
  "--time-zone, else --setting locale=/time_zone=, else the account's (in a store: its locale and\n" +
  'time zone), else en_US and UTC;';

const USAGE =
  'flowmark render TEMPLATE|- [--data FILE|JSON|-] [--locale L] [--time-zone Z] [--strict]\n' +
  '                [--setting NAME=VALUE]… [--name NAME]\n' +
  '                [--account ID [--user LOGIN] [--project ID] [--request ID]] [--mode MODE]\n\n' +
  'Renders a template (a file, or - for stdin) and prints its output; on an error prints the\n' +
  'message on stderr and exits 1. --data is a JSON file, inline JSON starting with "{", or - for\n' +
  'stdin; null means missing, {"$date"|"$time"|"$datetime": ISO} are dates (without an offset the\n' +
  '--time-zone applies).\n' +
  LOCALE_RULE +
  '\n' +
  "--strict keeps FreeMarker's errors for ${hash}/${sequence} (printed as compact JSON otherwise)\n" +
  'and for ${boolean} (otherwise the platform\'s boolean_format "c": true/false);\n' +
  '--setting sets any FreeMarker setting (number_format=0.##, output_format=HTML, tag_syntax=…).\n' +
  '#include/#import of a template file resolve next to TEMPLATE.\n' +
  CONTEXT_USAGE;

/** What one render needs, shared by `render` and `render-batch`. */
export interface RenderRequest {
  template: string;
  /** Data in the oracle's JSON convention, as text (exact numbers, dates). */
  dataJson?: string;
  name?: string;
  locale?: string;
  timeZone?: string;
  strict?: boolean;
  settings?: Record<string, string>;
  loader?: TemplateLoader;
  /** The platform context to run in (render-context.ts); locale and time zone default to its. */
  context?: ExecutionContext;
}

/**
 * The variables a CLI render sees: the data, then the function library bound through
 * src/hosts/evaluate.ts to `ctx` (by default account "default", mode TEST, surface eval, en_US, UTC).
 */
export function buildScope(
  data: Map<string, unknown>,
  ctx: ExecutionContext = createExecutionContext(),
  internal?: Scope,
): Scope {
  return evaluationScope(ctx, data, internal);
}

/** Parses the data JSON (the oracle's convention); throws on anything but a JSON object. */
export function parseData(json: string | undefined, timeZone: string): Map<string, unknown> {
  if (json === undefined || json.trim() === '' || json.trim() === 'null') return new Map();
  let parsed: unknown;
  try {
    parsed = parseJson(json);
  } catch (e) {
    throw new Error(
      `the data is not valid JSON: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
      { cause: e },
    );
  }
  const data = convert(parsed, timeZone);
  if (!(data instanceof Map)) throw new Error('the data must be a JSON object');
  return data as Map<string, unknown>;
}

/** Compiles and renders one request; TemplateErrors propagate. */
export async function renderRequest(req: RenderRequest): Promise<string> {
  // --strict is FreeMarker's own configuration; otherwise the platform's (as the hosts render)
  const platform = req.strict ? {} : PLATFORM_SETTINGS;
  const fromSettings = optionsFromSettings({ ...platform, ...req.settings });
  const compileOptions: CompileOptions = {
    ...fromSettings.compile,
    name: req.name ?? 'template',
    strict: req.strict ?? false,
  };
  const timeZone = req.timeZone ?? fromSettings.render.timeZone ?? req.context?.timeZone ?? 'UTC';
  const locale = req.locale ?? fromSettings.render.locale ?? req.context?.locale ?? 'en_US';
  const options: RenderOptions = {
    ...fromSettings.render,
    locale,
    timeZone,
    loader: req.loader,
  };
  const data = parseData(req.dataJson, timeZone);
  const ctx = req.context ?? createExecutionContext({ locale, timeZone });
  // one locale and time zone for the template and the functions it calls (LOCALE_RULE)
  ctx.locale = locale;
  ctx.timeZone = timeZone;
  // one budget from the deployment's FLOWMARK_EVAL_* for the template and the functions it calls
  ctx.budget = options.budget = new Budget(evaluationLimitsFromEnv());
  const scope = buildScope(data, ctx, await internalParameters(ctx));
  return compile(req.template, compileOptions).render(scope, options);
}

/** A file's text, or an error naming it (and the option that named it). */
async function readNamed(path: string, option?: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(`${option ? `${option}: ` : ''}${cannotRead(path, e)}`, { cause: e });
  }
}

/** Loads included templates from `root`, refusing names that leave it (like FreeMarker's FileTemplateLoader). */
export function fileLoader(root: string): TemplateLoader {
  const base = resolve(root);
  return {
    async load(name) {
      const path = resolve(base, name);
      if (path !== base && !path.startsWith(base + sep)) return undefined;
      try {
        return await readFile(path, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses `--setting k=v` into the map; returns an error message or undefined. */
export function addSetting(settings: Record<string, string>, arg: string | undefined): string | undefined {
  const i = arg?.indexOf('=') ?? -1;
  if (!arg || i <= 0) return `--setting needs NAME=VALUE, got ${JSON.stringify(arg ?? '')}`;
  settings[arg.slice(0, i)] = arg.slice(i + 1);
  return undefined;
}

/**
 * What to add to an error of a render without a store when a function needed one (the Collections,
 * Files, User and Request functions): how to get one. Empty otherwise.
 */
export function storeHintFor(message: string, context: ExecutionContext | undefined): string {
  if (context?.platform || !/ is not available in this context/.test(message)) return '';
  return `\n${noStoreHint()}`;
}

function fail(io: CliIo, message: string): number {
  io.stderr.write(`flowmark render: ${message}\nusage: ${USAGE}\n`);
  return 2;
}

export const render: Command = {
  name: 'render',
  usage: USAGE,
  async run(args, io) {
    let templateArg: string | undefined;
    let dataArg: string | undefined;
    const req: Omit<RenderRequest, 'template'> = { settings: {} };
    const contextArgs: ContextArgs = {};
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      const value = (): string | undefined => args[++i];
      if (a === '--data') dataArg = value();
      else if (a === '--locale') req.locale = value();
      else if (a === '--time-zone') req.timeZone = value();
      else if (a === '--name') req.name = value();
      else if (a === '--strict') req.strict = true;
      else if (Object.hasOwn(CONTEXT_OPTIONS, a)) contextArgs[CONTEXT_OPTIONS[a]!] = value();
      else if (a === '--setting') {
        const err = addSetting(req.settings!, value());
        if (err) return fail(io, err);
      } else if (a.startsWith('-') && a !== '-') return fail(io, `unknown option ${a}`);
      else if (templateArg === undefined) templateArg = a;
      else return fail(io, `unexpected argument ${a}`);
    }
    if (templateArg === undefined) return fail(io, 'missing TEMPLATE (a file, or - for stdin)');
    if (dataArg === undefined && args.includes('--data')) return fail(io, '--data needs a value');
    if (templateArg === '-' && dataArg === '-')
      return fail(io, 'the template and the data cannot both be stdin');
    const contextError = checkContextArgs(contextArgs);
    if (contextError) return fail(io, contextError);

    let template: string;
    let dataJson: string | undefined;
    try {
      if (templateArg === '-') template = await readAll(io.stdin);
      else {
        template = await readNamed(templateArg);
        req.name ??= basename(templateArg);
        req.loader = fileLoader(dirname(templateArg));
      }
      if (dataArg === '-') dataJson = await readAll(io.stdin);
      else if (dataArg !== undefined && /^\s*[{[]/.test(dataArg)) dataJson = dataArg;
      else if (dataArg !== undefined) dataJson = await readNamed(dataArg, '--data');
    } catch (e) {
      io.stderr.write(`flowmark render: ${errorMessage(e)}\n`);
      return 1;
    }

    let context: Awaited<ReturnType<typeof openRenderContext>>;
    try {
      context = await openRenderContext(contextArgs);
    } catch (e) {
      io.stderr.write(`flowmark render: ${errorMessage(e)}\n`);
      return 1;
    }
    try {
      io.stdout.write(await renderRequest({ ...req, template, dataJson, context: context?.ctx }));
      return 0;
    } catch (e) {
      io.stderr.write(
        `${e instanceof TemplateError ? e.message + storeHintFor(e.message, context?.ctx) : `flowmark render: ${errorMessage(e)}`}\n`,
      );
      return 1;
    } finally {
      await context?.close();
    }
  },
};
