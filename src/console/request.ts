/**
 * A process request's page (#/requests/<id>): its status, process, parent and children; its
 * process's diagram with each task's status (request-diagram.ts); its steps (status, lane,
 * duration, result or error); its open manual tasks, each with a form rendered from
 * the task's fields and submitted through the task's URL; resume (a paused request) and cancel
 * (a running or waiting one) through the REST routes; its data document and log.
 */
import { requestJson } from '../client/http.js';
import { api, ClientError, errorText } from './api.js';
import { field, fill, h, messageArea, pretty, table, when } from './dom.js';
import { showRequestDiagram } from './request-diagram.js';

export interface Status {
  code: number;
  name: string;
  meaning: string;
}

/** A request as `GET /requests/:id` answers it (the list: RequestSummaryInfo). */
export interface RequestInfo {
  id: string;
  projectId: number | null;
  mode: string;
  status: number;
  data: Record<string, unknown>;
  locks: unknown[];
  message: string;
  initiatorId: number | null;
  parentId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A request as the requests list answers it: no data document, no P_locks. */
export type RequestSummaryInfo = Omit<RequestInfo, 'data' | 'locks'>;

interface StepInfo {
  id: number;
  stepId: number;
  iteration: number;
  type: string;
  status: string;
  laneId: number | null;
  userId: number | null;
  taskId: string | null;
  childRequestId: string | null;
  result: unknown;
  error: { message: string; line?: number; column?: number; template?: string } | null;
  startedAt: number;
  endedAt: number | null;
}

interface TaskInfo {
  id: string;
  stepId: number;
  iteration: number;
  name: string;
  status: 'OPEN' | 'SUBMITTED' | 'CANCELLED';
  laneId: number | null;
  fields: string[] | null;
  data: Record<string, unknown>;
  result: Record<string, unknown> | null;
  url: string;
  submittedAt: number | null;
}

interface Run {
  request: RequestInfo;
  process: string;
  steps: StepInfo[];
  tasks: TaskInfo[];
}

interface LogLine {
  createdAt: number;
  level: string;
  message: string;
}

const FINAL = new Set([201, 301, 302, 400, 401]);

let statuses: Promise<Status[]> | undefined;
/** The platform's request statuses (GET /api/v1/request-statuses), asked once. */
export function requestStatuses(): Promise<Status[]> {
  statuses ??= api<{ items: Status[] }>('GET', '/request-statuses').then(
    (r) => r.items,
    (e: unknown) => {
      statuses = undefined;
      throw e;
    },
  );
  return statuses;
}

export function statusLabel(all: Status[], code: number): string {
  const known = all.find((s) => s.code === code);
  return known ? `${code} ${known.name}` : String(code);
}

export function requestLink(id: string): HTMLAnchorElement {
  return h('a', { href: `#/requests/${encodeURIComponent(id)}` }, id);
}

export async function renderRequest(main: HTMLElement, id: string): Promise<void> {
  const message = messageArea();
  const body = h('section', { class: 'detail' });
  main.append(h('p', null, h('a', { href: '#/requests' }, '← All requests')), message, body);
  const all = await requestStatuses().catch(() => [] as Status[]);

  async function load(): Promise<void> {
    const run = await describe(id);
    const r = run.request;
    const children = run.steps.filter((s) => s.childRequestId !== null);
    const open = run.tasks.filter((t) => t.status === 'OPEN');
    const logs = h('div');
    const diagram = h('div', { class: 'request-diagram' });
    const stepError = h('div', { class: 'eval-error', role: 'alert' });
    const stepsTable = table(
      `Steps of ${r.id}`,
      ['Step', 'Type', 'Status', 'Lane', 'Started', 'Duration', 'Result or error'],
      run.steps.map((s) => [
        `${s.stepId}${s.iteration > 0 ? ` #${s.iteration}` : ''}`,
        s.type,
        h('span', { class: `step-${s.status}` }, s.status),
        s.laneId === null ? '' : String(s.laneId),
        when(s.startedAt),
        s.endedAt === null ? '' : duration(s.endedAt - s.startedAt),
        s.error
          ? h('span', { class: 'message error' }, errorLine(s.error))
          : s.childRequestId
            ? ['child ', requestLink(s.childRequestId)]
            : s.result === null || s.result === undefined
              ? ''
              : h('code', null, clip(JSON.stringify(s.result))),
      ]),
    );
    /** A failed task's badge: its error under the diagram, its row marked. */
    const showError = (step: StepInfo) => {
      const rows = Array.from(stepsTable.tBodies[0]!.rows);
      rows.forEach((row) => row.classList.remove('highlighted'));
      const row = rows[run.steps.indexOf(step)];
      row?.classList.add('highlighted');
      row?.scrollIntoView({ block: 'center' });
      fill(
        stepError,
        `Step ${step.stepId}${step.iteration > 0 ? ` #${step.iteration}` : ''} failed: ${errorLine(step.error!)}`,
      );
    };
    fill(
      body,
      h('h2', null, `Request ${r.id}`),
      h(
        'dl',
        { class: 'facts' },
        h('dt', null, 'Process'),
        h('dd', null, run.process || '—'),
        h('dt', null, 'Status'),
        h('dd', { class: `status status-${r.status}` }, statusLabel(all, r.status)),
        h('dt', null, 'Mode'),
        h('dd', null, r.mode),
        r.message ? [h('dt', null, 'P_message'), h('dd', null, r.message)] : null,
        h('dt', null, 'Started'),
        h('dd', null, when(r.createdAt)),
        h('dt', null, 'Updated'),
        h('dd', null, when(r.updatedAt)),
        r.parentId ? [h('dt', null, 'Parent request'), h('dd', null, requestLink(r.parentId))] : null,
        children.length > 0
          ? [
              h('dt', null, 'Child requests'),
              h(
                'dd',
                null,
                children.map((s, i) => [i > 0 ? ', ' : null, requestLink(s.childRequestId!)]),
              ),
            ]
          : null,
      ),
      actions(r, r.status === 102 && !run.steps.some((s) => s.status === 'waiting')),
      diagram,
      stepError,
      h('h3', null, 'Steps'),
      stepsTable,
      open.map((t) => taskForm(t)),
      run.tasks.filter((t) => t.status !== 'OPEN').length > 0
        ? [
            h('h3', null, 'Tasks'),
            table(
              `Tasks of ${r.id}`,
              ['Task', 'Status', 'Submitted', 'Fields sent'],
              run.tasks
                .filter((t) => t.status !== 'OPEN')
                .map((t) => [
                  `${t.name || `Step ${t.stepId}`} (${t.stepId}.${t.iteration})`,
                  t.status,
                  when(t.submittedAt),
                  t.result ? h('code', null, clip(JSON.stringify(t.result))) : '',
                ]),
            ),
          ]
        : null,
      h(
        'details',
        { open: true },
        h('summary', null, 'Data document'),
        h('pre', { class: 'output small' }, pretty(r.data)),
      ),
      h('details', null, h('summary', null, 'P_locks'), h('pre', { class: 'output small' }, pretty(r.locks))),
      h('h3', null, 'Log'),
      logs,
    );
    if (run.process)
      showRequestDiagram(diagram, run.process, run.steps, FINAL.has(r.status), showError).then(
        (shown) => shown && diagram.prepend(h('h3', null, 'Diagram')),
        (e: unknown) => fill(diagram, h('p', { class: 'message error', role: 'alert' }, errorText(e))),
      );
    api<{ items: LogLine[] }>('GET', `/requests/${encodeURIComponent(r.id)}/logs?limit=200`).then(
      ({ items }) =>
        fill(
          logs,
          table(
            `Log of ${r.id}`,
            ['When', 'Level', 'Message'],
            items.map((l) => [
              when(l.createdAt),
              h('span', { class: `level-${l.level.toLowerCase()}` }, l.level),
              l.message,
            ]),
          ),
        ),
      (e: unknown) => fill(logs, h('p', { class: 'message error', role: 'alert' }, errorText(e))),
    );
  }

  /** Paused: waiting (102) for a resume, not for a manual task or a sub-process (a step waiting). */
  function actions(r: RequestInfo, paused: boolean): HTMLElement {
    const act = (label: string, path: string, done: string, danger = false) =>
      h(
        'button',
        {
          type: 'button',
          class: danger ? 'danger' : null,
          onclick: async (e: Event) => {
            const button = e.currentTarget as HTMLButtonElement;
            if (danger && !window.confirm(`${label} request ${r.id}?`)) return;
            button.disabled = true;
            try {
              await api('POST', `/requests/${encodeURIComponent(r.id)}/${path}`);
              await load();
              message.show(done);
            } catch (error) {
              message.show(errorText(error), 'error');
              button.disabled = false;
            }
          },
        },
        label,
      );
    return h(
      'div',
      { class: 'row' },
      h(
        'button',
        { type: 'button', onclick: () => void load().then(() => message.clear(), fail) },
        'Refresh',
      ),
      paused ? act('Resume', 'resume', 'Resumed.') : null,
      FINAL.has(r.status) ? null : act('Cancel', 'cancel', 'Cancelled.', true),
    );
  }

  /** An open task's form: one text box per field (any field: the data's variables), sent as JSON. */
  function taskForm(task: TaskInfo): HTMLElement {
    const names = task.fields ?? Object.keys(task.data);
    const inputs = names.map((name) => {
      const input = h('input', { type: 'text', name });
      const value = task.data[name];
      if (value !== undefined && value !== null)
        input.value = typeof value === 'string' ? value : JSON.stringify(value);
      return input;
    });
    const status = messageArea();
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Submit');
    const path = new URL(task.url, location.href);
    return h(
      'form',
      {
        class: 'task sub',
        'aria-label': `Task ${task.name || task.stepId}`,
        onsubmit: async (e: Event) => {
          e.preventDefault();
          submit.disabled = true;
          const fields = Object.fromEntries(inputs.map((i) => [i.name, i.value]));
          try {
            await requestJson('POST', path.pathname + path.search, fields);
            await load();
            message.show(`Submitted the task ${task.name || task.stepId}.`);
          } catch (error) {
            status.show(errorText(error), 'error');
            submit.disabled = false;
          }
        },
      },
      h('h3', null, `Task: ${task.name || `step ${task.stepId}`}`),
      h(
        'p',
        { class: 'meta' },
        `Step ${task.stepId}, iteration ${task.iteration}${task.laneId === null ? '' : ` · lane ${task.laneId}`} · `,
        h('a', { href: path.pathname + path.search, target: '_blank', rel: 'noopener' }, 'its page'),
      ),
      Object.keys(task.data).length > 0
        ? h('pre', { class: 'output small', 'aria-label': 'Task data' }, pretty(task.data))
        : null,
      h(
        'div',
        { class: 'row' },
        inputs.map((input, i) => field(names[i]!, input)),
      ),
      names.length === 0
        ? h('p', null, 'This task has no field: submitting it lets the request go on.')
        : null,
      h('div', { class: 'row' }, submit),
      status,
    );
  }

  function fail(e: unknown): void {
    message.show(errorText(e), 'error');
  }

  try {
    await load();
  } catch (e) {
    fail(e);
  }
}

/** The request with its steps and tasks; on a server without a process host, the request alone. */
async function describe(id: string): Promise<Run> {
  const path = `/requests/${encodeURIComponent(id)}`;
  try {
    return await api<Run>('GET', `${path}/run`);
  } catch (e) {
    if (!(e instanceof ClientError) || e.status !== 501) throw e;
    return { request: await api<RequestInfo>('GET', path), process: '', steps: [], tasks: [] };
  }
}

function errorLine(error: NonNullable<StepInfo['error']>): string {
  return error.line !== undefined
    ? `${error.template ?? ''} line ${error.line}, column ${error.column ?? 0}: ${error.message}`
    : error.message;
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function clip(text: string | undefined): string {
  const t = text ?? '';
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
}
