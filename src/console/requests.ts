/**
 * Requests and logs: the process requests the user may see (administrators: all), a request's
 * data document, P_locks, P_message and log; administrators also see the account's log.
 */
import { api, errorText, query } from './api.js';
import { field, fill, h, messageArea, pretty, table, when } from './dom.js';
import { identity } from './session.js';

interface RequestInfo {
  id: string;
  projectId: number | null;
  mode: string;
  status: number;
  data: Record<string, unknown>;
  locks: unknown[];
  message: string;
  initiatorId: number | null;
  createdAt: number;
  updatedAt: number;
}

interface LogLine {
  id: number;
  requestId: string | null;
  level: string;
  message: string;
  mode: string;
  createdAt: number;
}

export async function renderRequests(main: HTMLElement): Promise<void> {
  const isAdmin = identity()!.user.isAdmin;
  const message = messageArea();
  const list = h('div', { class: 'list' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });
  const projectId = h('input', { type: 'number', min: 1, inputmode: 'numeric' });
  const status = h('input', { type: 'number', inputmode: 'numeric' });
  const filters = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Filter requests',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void refresh();
      },
    },
    field('Project id', projectId),
    field('Status', status),
    h('button', { type: 'submit' }, 'Show'),
  );

  async function refresh(): Promise<void> {
    try {
      const { items } = await api<{ items: RequestInfo[] }>(
        'GET',
        `/requests${query({ projectId: projectId.value, status: status.value, nb: 100 })}`,
      );
      fill(
        list,
        table(
          'Requests',
          ['Request', 'Project', 'Mode', 'Status', 'Created', 'Updated'],
          items.map((r) => [
            h('button', { type: 'button', class: 'link', onclick: () => void open(r) }, r.id),
            r.projectId === null ? '' : String(r.projectId),
            r.mode,
            String(r.status),
            when(r.createdAt),
            when(r.updatedAt),
          ]),
        ),
      );
      message.clear();
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  async function open(request: RequestInfo): Promise<void> {
    const logs = h('div');
    fill(
      detail,
      h('h2', null, `Request ${request.id}`),
      h(
        'p',
        { class: 'meta' },
        `${request.mode} · status ${request.status}${request.message ? ` · P_message: ${request.message}` : ''}`,
      ),
      h(
        'details',
        { open: true },
        h('summary', null, 'Data document'),
        h('pre', { class: 'output small' }, pretty(request.data)),
      ),
      h(
        'details',
        null,
        h('summary', null, 'P_locks'),
        h('pre', { class: 'output small' }, pretty(request.locks)),
      ),
      h('h3', null, 'Log'),
      logs,
    );
    try {
      const { items } = await api<{ items: LogLine[] }>(
        'GET',
        `/requests/${encodeURIComponent(request.id)}/logs`,
      );
      fill(logs, logTable(`Log of ${request.id}`, items));
    } catch (e) {
      fill(logs, h('p', { class: 'message error', role: 'alert' }, errorText(e)));
    }
  }

  main.append(message, filters, list, detail);
  if (isAdmin) {
    const accountLog = h('div');
    main.append(h('section', { class: 'sub' }, h('h2', null, 'Account log'), accountLog));
    api<{ items: LogLine[] }>('GET', '/logs?limit=100').then(
      ({ items }) => fill(accountLog, logTable('Account log', items)),
      (e: unknown) => fill(accountLog, h('p', { class: 'message error', role: 'alert' }, errorText(e))),
    );
  }
  await refresh();
}

function logTable(caption: string, items: LogLine[]): HTMLElement {
  return table(
    caption,
    ['When', 'Level', 'Request', 'Message'],
    items.map((l) => [
      when(l.createdAt),
      h('span', { class: `level level-${l.level.toLowerCase()}` }, l.level),
      l.requestId ?? '',
      l.message,
    ]),
  );
}
