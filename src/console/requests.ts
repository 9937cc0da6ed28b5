/**
 * Requests and logs: the process requests the user may see (administrators: all), with the process
 * each runs, filtered by process (administrators: the stored definitions), status (the platform's
 * statuses) and project, with their total, in pages of 20 (the API's keyset `before=`), read again
 * every 2 s while one of them runs; a request opens on its page
 * (request.ts, #/requests/<id>); administrators also see the account's log (account-log.ts).
 */
import { api, errorText, query } from './api.js';
import { field, fill, h, keysetPager, messageArea, table, when } from './dom.js';
import {
  renderRequest,
  requestLink,
  requestStatuses,
  statusLabel,
  type RequestSummaryInfo,
  type Status,
} from './request.js';
import { identity } from './session.js';
import { accountLog } from './account-log.js';

const PAGE_SIZE = 20;
/** While a listed request runs (101 ACTIVE), the list is read again this often. */
const REFRESH_MS = 2000;

/** A request of the list: its summary and the process it runs. */
type ListedRequest = RequestSummaryInfo & { process: string | null; processId: number | null };

export async function renderRequests(main: HTMLElement): Promise<void> {
  const id = location.hash.replace(/^#\/?requests\/?/, '');
  if (id !== '') return renderRequest(main, decodeURIComponent(id));
  const isAdmin = identity()!.user.isAdmin;
  const message = messageArea();
  const list = h('div', { class: 'list' });
  const projectId = h('input', { type: 'number', min: 1, inputmode: 'numeric' });
  const status = h('select', null, h('option', { value: '' }, 'Any'));
  const process = h('select', null, h('option', { value: '' }, 'Any'));
  let statuses: Status[] = [];
  try {
    statuses = await requestStatuses();
    status.append(
      ...statuses.map((s) => h('option', { value: s.code, title: s.meaning }, `${s.code} ${s.name}`)),
    );
  } catch (e) {
    message.show(errorText(e), 'error');
  }
  if (isAdmin)
    try {
      const { items } = await api<{ items: { id: number; name: string }[] }>('GET', '/processes');
      process.append(...items.map((d) => h('option', { value: d.id }, d.name)));
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const filters = h(
    'form',
    {
      class: 'inline',
      role: 'search',
      'aria-label': 'Filter requests',
      onsubmit: (e: Event) => {
        e.preventDefault();
        pager.reset();
        void refresh();
      },
    },
    isAdmin ? field('Process', process) : null,
    field('Status', status),
    field('Project id', projectId),
    h('button', { type: 'submit' }, 'Show'),
  );
  const pager = keysetPager<string>('Newer', 'Older', () => void refresh());
  const live = h('span', { class: 'meta' });

  async function refresh(): Promise<void> {
    clearTimeout(timer);
    try {
      const page = await api<{ items: ListedRequest[]; total: number; next?: string }>(
        'GET',
        `/requests${query({
          projectId: projectId.value,
          status: status.value,
          processId: isAdmin ? process.value : undefined,
          before: pager.before,
          nb: PAGE_SIZE,
        })}`,
      );
      const { items, total } = page;
      pager.show(page.next);
      const from = pager.depth * PAGE_SIZE;
      fill(
        list,
        h(
          'p',
          { class: 'meta', role: 'status' },
          `${total} request${total === 1 ? '' : 's'}${
            total > items.length && items.length > 0 ? `, ${from + 1}–${from + items.length} shown` : ''
          }`,
        ),
        table(
          'Requests',
          ['Request', 'Process', 'Project', 'Mode', 'Status', 'Created', 'Updated'],
          items.map((r) => [
            requestLink(r.id),
            r.process ?? '',
            r.projectId === null ? '' : String(r.projectId),
            r.mode,
            statusLabel(statuses, r.status),
            when(r.createdAt),
            when(r.updatedAt),
          ]),
        ),
        total === 0
          ? h(
              'p',
              { class: 'meta' },
              isAdmin
                ? 'No request here: start one from a process definition on the Processes page.'
                : 'No request here: start a process on the Processes page.',
            )
          : null,
        h('div', { class: 'row pager' }, pager.newer, pager.older, live),
      );
      message.clear();
      // Requests still running change under the list: read it again until none runs.
      const running = items.filter((r) => r.status === STATUS_ACTIVE).length;
      live.textContent = running ? `${running} running: refreshed every ${REFRESH_MS / 1000} s` : '';
      if (running)
        timer = setTimeout(() => {
          if (list.isConnected) void refresh();
        }, REFRESH_MS);
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  main.append(message, filters, list);
  if (isAdmin) main.append(accountLog());
  await refresh();
}

/** A request that runs its steps now (its list row changes by itself). */
const STATUS_ACTIVE = 101;
