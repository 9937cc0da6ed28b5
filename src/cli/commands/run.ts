import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config/index.js';
import {
  nextTimerEvent,
  ProcessHost,
  type PendingTimerEvent,
  type ProcessEvent,
  type RequestView,
} from '../../hosts/index.js';
import {
  accountUrls,
  createPlatform,
  isFinalStatus,
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
  'URL (for a user of its lane) and its public URL (whoever holds it). A timer event the request waits\n' +
  'for (intermediate timer catch event, timer boundary event) is waited for on the real clock and fired\n' +
  'here; a wait of 10 s or more is told on stderr, and Ctrl-C during it stops waiting, prints the request\n' +
  'as it stands and exits 130 (the request stays waiting in the store: `flowmark serve` fires the timer).\n' +
  'A manual task\'s deadline and reminder are left to `flowmark serve`. The account defaults to "default" or\n' +
  'the only account of the store (a store without accounts gets "default", without users: `flowmark\n' +
  'serve` then creates its administrator and prints the password). Same store as `flowmark serve`\n' +
  "(FLOWMARK_DATA / DATABASE_URL). --data-document-limit is the data document's maximum size, in bytes\n" +
  'or with KiB or MiB (default FLOWMARK_DATA_DOCUMENT_LIMIT, else 5MiB). Exit code: 0 when the request\n' +
  'completed (201) or waits (102), 1 when it ended otherwise, 2 on a usage error, 130 when interrupted.';

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
      let interrupted = false;
      const user =
        values.user === undefined ? null : await platform.directory.users.require(accountId, values.user);
      // Each --task answers the next open task; a timer event the request waits for meanwhile is
      // waited for and fired here (in this process, on the real clock).
      let answered = 0;
      for (;;) {
        const ids = await requestTree(platform, accountId, topId);
        const [open] = await openTasks(platform, accountId, topId, ids);
        if (open && answered < answers.length) {
          const run = await platform.processes.runs.require(accountId, open.requestId);
          await host.submitTask(accountId, open, {
            fields: answers[answered++]!,
            ...(user
              ? { actor: { id: user.id, isAdmin: true } }
              : { actor: null, token: taskToken(run.secret, open) }),
          });
          continue;
        }
        const request = await platform.requests.require(accountId, topId);
        const next = isFinalStatus(request.status)
          ? undefined
          : await nextTimerEvent(platform, accountId, ids);
        if (next) {
          if ((await waitFor(io, next, topId)) === 'interrupted') {
            interrupted = true;
            break;
          }
          await host.runner.fireTimer(next.timer);
          for (const id of ids) await host.runner.settle(id);
          continue;
        }
        if (answered < answers.length)
          io.stderr.write(`flowmark run: --task ${answered + 1}: no task is open any more\n`);
        break;
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
      if (interrupted) return 130;
      return view.request.status === 201 || view.request.status === 102 ? 0 : 1;
    } catch (e) {
      if (e instanceof PlatformError) return failure(io, e.message);
      throw e;
    } finally {
      await store.close();
    }
  },
};

/** A request and its sub-processes (theirs too), the request first. */
async function requestTree(platform: Platform, accountId: string, requestId: string): Promise<string[]> {
  const ids = [requestId];
  for (let i = 0; i < ids.length; i++)
    for (const step of await platform.processes.steps.list(accountId, ids[i]!))
      if (step.childRequestId && !ids.includes(step.childRequestId)) ids.push(step.childRequestId);
  return ids;
}

/** The open tasks of a request and of its sub-processes (`ids`, else read), oldest first. */
async function openTasks(
  platform: Platform,
  accountId: string,
  requestId: string,
  ids?: readonly string[],
): Promise<ManualTask[]> {
  const found: ManualTask[] = [];
  for (const id of ids ?? (await requestTree(platform, accountId, requestId)))
    found.push(...(await platform.processes.tasks.list(accountId, id)).filter((t) => t.status === 'OPEN'));
  return found;
}

/** A wait this long or longer is told on stderr. */
const LONG_WAIT_MS = 10_000;

/**
 * Waits until a timer event is due ('due'), or until Ctrl-C ('interrupted': the request stays in
 * the store, waiting, and `flowmark serve` fires its timer when due).
 */
function waitFor(io: CliIo, next: PendingTimerEvent, topId: string): Promise<'due' | 'interrupted'> {
  const ms = Math.max(0, next.timer.dueAt - Date.now());
  // The listener goes in before the wait is told: whoever reads that line may press Ctrl-C at once,
  // and a SIGINT with no listener yet would kill the process instead of leaving the request waiting.
  const waited = new Promise<'due' | 'interrupted'>((resolve) => {
    const onInterrupt = () => {
      clearTimeout(timeout);
      io.stderr.write(
        `flowmark run: interrupted while waiting for ${next.label}: request ${topId} stays waiting in the store\n`,
      );
      resolve('interrupted');
    };
    const timeout = setTimeout(() => {
      process.removeListener('SIGINT', onInterrupt);
      resolve('due');
    }, ms);
    process.once('SIGINT', onInterrupt);
  });
  if (ms >= LONG_WAIT_MS)
    io.stderr.write(
      `flowmark run: waiting ${waitText(ms)} for ${next.label} (due at ${new Date(next.timer.dueAt).toISOString()}); ` +
        'Ctrl-C stops waiting and leaves the request waiting in the store, where `flowmark serve` fires the timer\n',
    );
  return waited;
}

/** `2h 5m 3s`, `45s`. */
function waitText(ms: number): string {
  const s = Math.ceil(ms / 1000);
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor(s / 3600) % 24, 'h'],
    [Math.floor(s / 60) % 60, 'm'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  return parts
    .slice(first < 0 ? 3 : first)
    .map(([n, unit]) => `${n}${unit}`)
    .join(' ');
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
