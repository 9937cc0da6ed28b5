/**
 * Requests and logs: the process requests the user may see (administrators: all), filtered by
 * project and status (the platform's statuses), with their total; a request opens on its page
 * (request.ts, #/requests/<id>); administrators also see the account's log.
 */
import { api, errorText, query } from './api.js';
import { field, fill, h, messageArea, table, when } from './dom.js';
import {
  renderRequest,
  requestLink,
  requestStatuses,
  statusLabel,
  type RequestSummaryInfo,
  type Status,
} from './request.js';
import { identity } from './session.js';

interface LogLine {
  id: number;
  requestId: string | null;
  level: string;
  message: string;
  mode: string;
  createdAt: number;
}

export async function renderRequests(main: HTMLElement): Promise<void> {
  const id = location.hash.replace(/^#\/?requests\/?/, '');
  if (id !== '') return renderRequest(main, decodeURIComponent(id));
  const isAdmin = identity()!.user.isAdmin;
  const message = messageArea();
  const list = h('div', { class: 'list' });
  const projectId = h('input', { type: 'number', min: 1, inputmode: 'numeric' });
  const status = h('select', null, h('option', { value: '' }, 'Any'));
  let statuses: Status[] = [];
  try {
    statuses = await requestStatuses();
    status.append(
      ...statuses.map((s) => h('option', { value: s.code, title: s.meaning }, `${s.code} ${s.name}`)),
    );
  } catch (e) {
    message.show(errorText(e), 'error');
  }
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
      const { items, total } = await api<{ items: RequestSummaryInfo[]; total: number }>(
        'GET',
        `/requests${query({ projectId: projectId.value, status: status.value, nb: 100 })}`,
      );
      fill(
        list,
        h(
          'p',
          { class: 'meta', role: 'status' },
          `${total} request${total === 1 ? '' : 's'}${total > items.length ? `, the ${items.length} newest shown` : ''}`,
        ),
        table(
          'Requests',
          ['Request', 'Project', 'Mode', 'Status', 'Created', 'Updated'],
          items.map((r) => [
            requestLink(r.id),
            r.projectId === null ? '' : String(r.projectId),
            r.mode,
            statusLabel(statuses, r.status),
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

  main.append(message, filters, list);
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
