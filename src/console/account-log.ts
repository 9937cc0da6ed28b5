/**
 * The account's log (administrators): filtered by minimum level, message text and a time range
 * (the browser's local time, sent as epoch milliseconds), in pages the API's keyset `before=` and
 * `next` walk with Newer / Older.
 */
import { api, errorText, query } from './api.js';
import { field, fill, h, keysetPager, messageArea, table, when } from './dom.js';

interface LogLine {
  id: number;
  requestId: string | null;
  level: string;
  message: string;
  mode: string;
  createdAt: number;
}

const LEVELS = ['SEVERE', 'WARNING', 'INFO', 'CONFIG', 'FINE', 'FINER', 'FINEST'];
const PAGE_SIZE = 100;

export function accountLog(): HTMLElement {
  const message = messageArea();
  const list = h('div');
  const level = h(
    'select',
    null,
    h('option', { value: '' }, 'Any'),
    ...LEVELS.map((l) => h('option', { value: l }, `${l} and above`)),
  );
  const text = h('input', { type: 'search', maxlength: 1000 });
  const since = h('input', { type: 'datetime-local' });
  const until = h('input', { type: 'datetime-local' });
  const pager = keysetPager<number>('Later entries', 'Earlier entries', () => void refresh());

  const filters = h(
    'form',
    {
      class: 'inline',
      role: 'search',
      'aria-label': 'Filter the account log',
      onsubmit: (e: Event) => {
        e.preventDefault();
        pager.reset();
        void refresh();
      },
    },
    field('Level', level),
    field('Text', text),
    field('Since', since),
    field('Until', until),
    h('button', { type: 'submit' }, 'Filter log'),
  );

  async function refresh(): Promise<void> {
    try {
      const page = await api<{ items: LogLine[]; next: number | null }>(
        'GET',
        `/logs${query({
          level: level.value,
          text: text.value,
          since: epoch(since.value),
          until: epoch(until.value),
          before: pager.before,
          limit: PAGE_SIZE,
        })}`,
      );
      pager.show(page.next ?? undefined);
      fill(
        list,
        logTable(page.items),
        page.items.length === 0
          ? h('p', { class: 'meta' }, 'No log entry matches: widen the filters.')
          : null,
        h('div', { class: 'row pager' }, pager.newer, pager.older),
      );
      message.clear();
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  void refresh();
  return h('section', { class: 'sub' }, h('h2', null, 'Account log'), message, filters, list);
}

/** A datetime-local value (the browser's time zone) as epoch milliseconds; '' stays unset. */
function epoch(value: string): number | undefined {
  if (value === '') return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

function logTable(items: LogLine[]): HTMLElement {
  return table(
    'Account log',
    ['When', 'Level', 'Request', 'Message'],
    items.map((l) => [
      when(l.createdAt),
      h('span', { class: `level level-${l.level.toLowerCase()}` }, l.level),
      l.requestId ?? '',
      l.message,
    ]),
  );
}
