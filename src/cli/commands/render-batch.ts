import { createInterface } from 'node:readline';
import type { ExecutionContext } from '../../functions/context.js';
import { shareEvaluationState } from '../../functions/request/evaluation.js';
import { TemplateError } from '../../template/index.js';
import type { CliIo, Command } from '../main.js';
import { addSetting, renderRequest, storeHintFor, type RenderRequest } from './render.js';
import {
  checkContextArgs,
  CONTEXT_OPTIONS,
  CONTEXT_USAGE,
  openRenderContext,
  type ContextArgs,
} from './render-context.js';
import { errorMessage } from '../../errors/index.js';

const USAGE =
  'flowmark render-batch [--locale L] [--time-zone Z] [--strict] [--setting NAME=VALUE]…\n' +
  '                      [--account ID [--user LOGIN] [--project ID] [--request ID]] [--mode MODE]\n\n' +
  'Reads JSON lines {"id", "template", "data"} on stdin and writes one line per request, in order:\n' +
  '{"id", "ok": true, "output"} or {"id", "ok": false, "error", "errorType", "line", "column"}.\n' +
  'Optional per line: "name" (template name), "templates" ({name: source} for #include/#import),\n' +
  '"settings" ({name: value}, on top of --setting), "locale", "timeZone", "strict". Data follows the\n' +
  'render command\'s convention (null = missing, {"$date"|"$time"|"$datetime": ISO}), and so do the\n' +
  'locale and time zone (a line\'s "locale"/"timeZone" over --locale/--time-zone, see render --help).\n' +
  CONTEXT_USAGE;

interface BatchLine {
  id?: unknown;
  template?: unknown;
  name?: unknown;
  templates?: unknown;
  settings?: unknown;
  locale?: unknown;
  timeZone?: unknown;
  strict?: unknown;
}

function optString(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new Error(`"${field}" must be a string`);
  return v;
}

function stringMap(v: unknown, field: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`"${field}" must be an object`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = String(x);
  return out;
}

export async function handleLine(
  line: string,
  defaults: Omit<RenderRequest, 'template'>,
): Promise<Record<string, unknown>> {
  let id: unknown = null;
  let req: RenderRequest;
  try {
    const msg = JSON.parse(line) as BatchLine;
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
      throw new Error('a line must be a JSON object');
    id = msg.id ?? null;
    const template = optString(msg.template, 'template');
    if (template === undefined) throw new Error('"template" is required');
    const templates = stringMap(msg.templates, 'templates');
    req = {
      ...defaults,
      template,
      dataJson: exactData(line),
      name: optString(msg.name, 'name') ?? defaults.name,
      locale: optString(msg.locale, 'locale') ?? defaults.locale,
      timeZone: optString(msg.timeZone, 'timeZone') ?? defaults.timeZone,
      strict: msg.strict === undefined ? defaults.strict : msg.strict === true,
      settings: { ...defaults.settings, ...stringMap(msg.settings, 'settings') },
      loader: {
        load: (n) => (Object.prototype.hasOwnProperty.call(templates, n) ? templates[n] : undefined),
      },
    };
  } catch (e) {
    return { id, ok: false, errorType: 'BadRequest', error: `bad request: ${errorMessage(e)}` };
  }
  if (defaults.context) {
    // each line its own evaluation state (P_locks, P_message) over the shared context
    const ctx = Object.create(defaults.context) as ExecutionContext;
    await shareEvaluationState(defaults.context, ctx);
    req.context = ctx;
  }
  try {
    return { id, ok: true, output: await renderRequest(req) };
  } catch (e) {
    if (e instanceof TemplateError) {
      const error = e.message + storeHintFor(e.message, defaults.context);
      return { id, ok: false, error, errorType: e.kind, line: e.line, column: e.column };
    }
    return { id, ok: false, errorType: 'BadRequest', error: `bad request: ${errorMessage(e)}` };
  }
}

/**
 * The "data" member as JSON text cut out of the line, so its numbers stay exactly as written
 * (JSON.parse would round 0.1-style decimals and big integers); the render parses it exactly.
 */
function exactData(line: string): string | undefined {
  const span = memberSpan(line, 'data');
  return span ? line.slice(span[0], span[1]) : undefined;
}

/** Start and end offsets of the value of top-level member `name` in a JSON object text. */
function memberSpan(text: string, name: string): [number, number] | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const skip = (): void => {
    ws();
    const c = text[i];
    if (c === '"') {
      str();
      return;
    }
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < text.length) {
        const d = text[i];
        if (d === '"') {
          str();
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) {
            i++;
            return;
          }
        }
        i++;
      }
      return;
    }
    while (i < text.length && !/[,}\]\s]/.test(text[i]!)) i++;
  };
  ws();
  if (text[i] !== '{') return undefined;
  i++;
  for (;;) {
    ws();
    if (text[i] !== '"') return undefined;
    const key = str();
    ws();
    if (text[i] !== ':') return undefined;
    i++;
    ws();
    const start = i;
    skip();
    if (key === name) return [start, i];
    ws();
    if (text[i] !== ',') return undefined;
    i++;
  }
}

function fail(io: CliIo, message: string): number {
  io.stderr.write(`flowmark render-batch: ${message}\nusage: ${USAGE}\n`);
  return 2;
}

export const renderBatch: Command = {
  name: 'render-batch',
  usage: USAGE,
  async run(args, io) {
    const defaults: Omit<RenderRequest, 'template'> = { settings: {} };
    const contextArgs: ContextArgs = {};
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (Object.hasOwn(CONTEXT_OPTIONS, a)) contextArgs[CONTEXT_OPTIONS[a]!] = args[++i];
      else if (a === '--locale') defaults.locale = args[++i];
      else if (a === '--time-zone') defaults.timeZone = args[++i];
      else if (a === '--strict') defaults.strict = true;
      else if (a === '--setting') {
        const err = addSetting(defaults.settings!, args[++i]);
        if (err) return fail(io, err);
      } else return fail(io, `unknown argument ${a}`);
    }
    const contextError = checkContextArgs(contextArgs);
    if (contextError) return fail(io, contextError);
    let context: Awaited<ReturnType<typeof openRenderContext>>;
    try {
      context = await openRenderContext(contextArgs);
    } catch (e) {
      io.stderr.write(`flowmark render-batch: ${errorMessage(e)}\n`);
      return 1;
    }
    defaults.context = context?.ctx;
    try {
      const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
      for await (const line of lines) {
        if (line.trim() === '') continue;
        io.stdout.write(`${JSON.stringify(await handleLine(line, defaults))}\n`);
      }
      return 0;
    } finally {
      await context?.close();
    }
  },
};
