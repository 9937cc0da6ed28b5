import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config/index.js';
import { ProcessHost, type ProcessEvent, type RequestView } from '../../hosts/index.js';
import {
  accountUrls,
  createPlatform,
  PlatformError,
  REQUEST_STATUSES,
  type Platform,
} from '../../platform/index.js';
import { looksLikeXml, readBpmn } from '../../platform/processes/bpmn/index.js';
import {
  describeTimer,
  graphOf,
  parseDefinition,
  taskToken,
  taskUrl,
  type ManualTask,
} from '../../platform/processes/index.js';
import { ensureFirstAccount } from '../../server/bootstrap.js';
import { openStore } from '../../store/index.js';
import type { CliIo, Command } from '../main.js';
import { evaluationLimits } from './limits.js';
import { noSuchUser } from './render-context.js';
import { cannotRead, commandErrors } from '../command-errors.js';
import { errorMessage } from '../../errors/index.js';

const USAGE =
  'flowmark run PROCESS.json|PROCESS.bpmn [--data JSON|@FILE] [--user LOGIN] [--mode LIVE|ACCEPTANCE|TEST]\n' +
  '             [--account ID] [--task JSON|@FILE]... [--data-document-limit SIZE] [--quiet]\n\n' +
  'Runs a process definition (docs/hosts.md: JSON, or a BPMN 2.0 document) as a new request, printing\n' +
  "each step as it ends, then the request's final status and data document. --data is the initial data\n" +
  'document; --user the initiator (the steps run as them); --mode default TEST. A manual task makes the\n' +
  'request wait: each --task, in order, submits the next open task (as --user, with the rights of the\n' +
  'operator; without --user, anonymously through its public URL). A task left open is printed with its\n' +
  'URL (for a user of its lane) and its public URL (whoever holds it). The account defaults to "default" or\n' +
  'the only account of the store (a store without accounts gets "default", without users: `flowmark\n' +
  'serve` then creates its administrator and prints the password). Same store as `flowmark serve`\n' +
  "(FLOWMARK_DATA / DATABASE_URL). --data-document-limit is the data document's maximum size, in bytes\n" +
  'or with KiB or MiB (default FLOWMARK_DATA_DOCUMENT_LIMIT, else 5MiB). Exit code: 0 when the request\n' +
  'completed (201) or waits (102), 1 when it ended otherwise, 2 on a usage error.';

const MODES = ['LIVE', 'ACCEPTANCE', 'TEST'] as const;

export const run: Command = {
  name: 'run',
  usage: USAGE,
  async run(args, io) {
    const parsed = parse(io, args, {
      data: { type: 'string' },
      user: { type: 'string' },
      mode: { type: 'string', default: 'TEST' },
      account: { type: 'string' },
      task: { type: 'string', multiple: true, default: [] },
      quiet: { type: 'boolean', default: false },
      'data-document-limit': { type: 'string' },
    });
    if (typeof parsed === 'number') return parsed;
    const { values, positionals } = parsed;
    if (positionals.length !== 1) return usageError(io, 'one PROCESS.json file is expected');
    const mode = values.mode!.toUpperCase();
    if (!(MODES as readonly string[]).includes(mode))
      return usageError(io, '--mode: LIVE, ACCEPTANCE or TEST');
    let limits;
    try {
      limits = evaluationLimits(values['data-document-limit']);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      return usageError(io, e.message);
    }
    let definition: unknown;
    let bpmn: string | undefined;
    let data: Record<string, unknown>;
    let answers: Record<string, unknown>[];
    try {
      ({ definition, bpmn } = await readDefinition(positionals[0]!));
      data = objectOf(values.data === undefined ? {} : readJson(values.data, '--data'), '--data');
      answers = values.task!.map((t, i) => objectOf(readJson(t, `--task ${i + 1}`), `--task ${i + 1}`));
      const note = triggerNote(definition);
      if (note) io.stderr.write(`flowmark run: ${note}\n`);
    } catch (e) {
      return failure(io, errorMessage(e));
    }

    const store = await openStore();
    try {
      const platform = createPlatform(store);
      const accountId = values.account ?? (await ensureFirstAccount(platform));
      if (accountId === undefined)
        return failure(io, 'the store has several accounts and none is "default": choose one with --account');
      if (values.user !== undefined && !(await platform.directory.users.find(accountId, values.user)))
        return failure(io, await noSuchUser(platform, accountId, values.user));
      // Read again with the account's lanes, which the model's BPMN lanes name.
      if (bpmn !== undefined)
        definition = await readBpmn(bpmn, await platform.directory.lanes.listLanes(accountId));
      const host = new ProcessHost(platform, { observer: values.quiet ? undefined : printer(io), limits });
      let view = await host.start(accountId, {
        definition,
        data,
        user: values.user ?? null,
        mode: mode as (typeof MODES)[number],
      });
      const topId = view.request.id;
      const user =
        values.user === undefined ? null : await platform.directory.users.require(accountId, values.user);
      for (const [i, fields] of answers.entries()) {
        const [open] = await openTasks(platform, accountId, topId);
        if (!open) {
          io.stderr.write(`flowmark run: --task ${i + 1}: no task is open any more\n`);
          break;
        }
        const run = await platform.processes.runs.require(accountId, open.requestId);
        await host.submitTask(accountId, open, {
          fields,
          ...(user
            ? { actor: { id: user.id, isAdmin: true } }
            : { actor: null, token: taskToken(run.secret, open) }),
        });
      }
      view = await host.view(accountId, topId);
      const live = accountUrls(await platform.accounts.require(accountId)).live;
      const open: OpenTaskUrls[] = [];
      for (const task of await openTasks(platform, accountId, topId)) {
        const { secret } = await platform.processes.runs.require(accountId, task.requestId);
        open.push({
          url: taskUrl(live, task),
          publicUrl: taskUrl(live, task, { token: taskToken(secret, task) }),
        });
      }
      report(io, view, open);
      return view.request.status === 201 || view.request.status === 102 ? 0 : 1;
    } catch (e) {
      if (e instanceof PlatformError) return failure(io, e.message);
      throw e;
    } finally {
      await store.close();
    }
  },
};

/** The open tasks of a request and of its sub-processes, oldest first. */
async function openTasks(platform: Platform, accountId: string, requestId: string): Promise<ManualTask[]> {
  const { steps, tasks } = platform.processes;
  const found: ManualTask[] = [];
  const queue = [requestId];
  while (queue.length > 0) {
    const id = queue.shift()!;
    found.push(...(await tasks.list(accountId, id)).filter((t) => t.status === 'OPEN'));
    for (const step of await steps.list(accountId, id))
      if (step.childRequestId) queue.push(step.childRequestId);
  }
  return found;
}

function printer(io: CliIo): (event: ProcessEvent) => void {
  return (event) => {
    const who = event.requestId.slice(0, 8);
    switch (event.type) {
      case 'started':
        io.stdout.write(
          `[${who}] started ${JSON.stringify(event.name)}${event.parentId ? ` (sub-process of ${event.parentId.slice(0, 8)})` : ''}\n`,
        );
        break;
      case 'step': {
        const label = `step ${event.stepId}${event.name ? ` (${event.name})` : ''}${event.iteration > 0 ? ` #${event.iteration}` : ''}`;
        const detail =
          event.status === 'done'
            ? ` → ${short(JSON.stringify(event.result))}`
            : event.error
              ? `: ${event.error.message}`
              : '';
        io.stdout.write(`[${who}] ${label} ${event.status}${detail}\n`);
        break;
      }
      case 'waiting':
        io.stdout.write(
          `[${who}] waits: ${
            event.reason === 'task'
              ? `manual task of step ${event.stepId} at ${event.url}`
              : event.reason === 'child'
                ? `sub-process ${event.child!.slice(0, 8)} of step ${event.stepId}`
                : `a resume (P_set_request_status(102) in step ${event.stepId})`
          }\n`,
        );
        break;
      case 'ended':
        io.stdout.write(
          `[${who}] ended ${statusText(event.status)}${event.message ? `: ${event.message}` : ''}\n`,
        );
        break;
    }
  };
}

/** An open task's private URL (a user of its lane) and public one (its token is the only right it needs). */
interface OpenTaskUrls {
  url: string;
  publicUrl: string;
}

function report(io: CliIo, view: RequestView, openTasks: OpenTaskUrls[]): void {
  const { request } = view;
  io.stdout.write(`request ${request.id}: ${statusText(request.status)}\n`);
  if (request.message) io.stdout.write(`P_message: ${request.message}\n`);
  for (const { url, publicUrl } of openTasks)
    io.stdout.write(`open task: ${url}\n  public URL (no login needed): ${publicUrl}\n`);
  io.stdout.write(`${JSON.stringify(request.data, null, 2)}\n`);
}

function statusText(status: number): string {
  const known = REQUEST_STATUSES[status as keyof typeof REQUEST_STATUSES];
  return known ? `${status} ${known.name}` : String(status);
}

function short(text: string | undefined): string {
  const t = text ?? 'null';
  return t.length > 120 ? `${t.slice(0, 117)}...` : t;
}

/**
 * What `run` says of a start event that starts requests by itself (docs/hosts.md, "Triggers"):
 * the file runs once, at once, as if its timer had fired or its message (`--data`) had come.
 */
function triggerNote(value: unknown): string | undefined {
  const definition = parseDefinition(value);
  const start = graphOf(definition).nodes.find((n) => n.kind === 'start');
  if (start?.kind !== 'start') return undefined;
  if (start.timer)
    return `start event ${JSON.stringify(start.id)} (${describeTimer(start.timer)}) fired once, now; stored with POST /api/v1/processes, its timer starts requests by itself`;
  if (start.message !== undefined)
    return `start event ${JSON.stringify(start.id)} (message ${JSON.stringify(start.message)}) received --data as the message, once; stored with POST /api/v1/processes, POST /api/v1/messages/${encodeURIComponent(start.message)} starts it`;
  return undefined;
}

/** A definition file: a BPMN document (XML, also given as `bpmn`) or JSON. */
async function readDefinition(file: string): Promise<{ definition: unknown; bpmn?: string }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${file.endsWith('.bpmn') ? 'PROCESS.bpmn' : 'PROCESS.json'}: ${cannotRead(file, e)}`, {
      cause: e,
    });
  }
  if (!looksLikeXml(text)) return { definition: readJson(text, 'PROCESS.json') };
  try {
    return { definition: await readBpmn(text), bpmn: text };
  } catch (e) {
    throw new Error(`PROCESS.bpmn: ${errorMessage(e)}`, { cause: e });
  }
}

/** JSON text, or `@FILE` for a file's. */
function readJson(value: string, what: string): unknown {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (e) {
      throw new Error(`${what}: ${cannotRead(value.slice(1), e)}`, { cause: e });
    }
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what}: not JSON (${errorMessage(e)})`, { cause: e });
  }
}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${what}: a JSON object is expected`);
  return value as Record<string, unknown>;
}

const { parse, usageError, failure } = commandErrors('run', USAGE);
