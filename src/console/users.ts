/**
 * Users: search the account's users (login, name or email; by status), in pages with the total; a
 * user's details and lanes (LIVE or ACCEPTANCE); administrators block and unblock users (not
 * themselves: the server refuses it too).
 */
import { api, errorText, query } from './api.js';
import { field, fill, h, messageArea, table, when } from './dom.js';
import { identity } from './session.js';

export interface UserInfo {
  id: number;
  login: string;
  email: string | null;
  name: string;
  profile: string;
  status: 'active' | 'blocked';
  isAdmin: boolean;
  language: string;
  createdAt: number;
  updatedAt: number;
}

export interface PoolInfo {
  id: number;
  name: string;
  isOrganization: boolean;
}

export interface LaneInfo {
  id: number;
  poolId: number;
  name: string;
  parentId: number | null;
  managerId: number | null;
  rule: Record<string, unknown> | null;
  runtime: boolean;
  createdAt: number;
}

export interface ListAnswer<T> {
  items: T[];
  total: number;
  first: number;
  nb: number;
}

const PAGE_SIZE = 20;

export async function renderUsers(main: HTMLElement): Promise<void> {
  const me = identity()!.user;
  const message = messageArea();
  const search = h('input', { type: 'search', name: 'search', maxlength: 255, autocomplete: 'off' });
  const status = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'Any'),
    h('option', { value: 'active' }, 'Active'),
    h('option', { value: 'blocked' }, 'Blocked'),
  );
  const list = h('div', { class: 'list' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });
  let first = 0;
  let pools = new Map<number, PoolInfo>();

  const form = h(
    'form',
    {
      class: 'inline',
      role: 'search',
      'aria-label': 'Find users',
      onsubmit: (e: Event) => {
        e.preventDefault();
        first = 0;
        void refresh();
      },
    },
    field('Search users', search, 'In login, name or email.'),
    field('Status', status),
    h('button', { type: 'submit', class: 'primary' }, 'Search'),
  );

  async function refresh(): Promise<void> {
    try {
      const filter = status.value ? { filter: 'status', operator: 'EE', value: status.value } : {};
      const page = await api<ListAnswer<UserInfo>>(
        'GET',
        `/users${query({ search: search.value.trim(), ...filter, orderby: 'login', first, nb: PAGE_SIZE })}`,
      );
      const last = Math.min(page.first + page.items.length, page.total);
      fill(
        list,
        table(
          'Users',
          ['Login', 'Name', 'Email', 'Profile', 'Status', 'Updated'],
          page.items.map((u) => [
            h('button', { type: 'button', class: 'link', onclick: () => void open(u.id) }, u.login),
            u.name,
            u.email ?? '',
            `${u.profile}${u.isAdmin ? ' (administrator)' : ''}`,
            statusTag(u.status),
            when(u.updatedAt),
          ]),
        ),
        h(
          'div',
          { class: 'row pager' },
          h(
            'button',
            {
              type: 'button',
              disabled: page.first === 0,
              onclick: () => {
                first = Math.max(0, first - PAGE_SIZE);
                void refresh();
              },
            },
            'Previous',
          ),
          h(
            'span',
            { class: 'page-info', role: 'status' },
            page.total === 0 ? 'No user found.' : `Users ${page.first + 1}–${last} of ${page.total}`,
          ),
          h(
            'button',
            {
              type: 'button',
              disabled: last >= page.total,
              onclick: () => {
                first += PAGE_SIZE;
                void refresh();
              },
            },
            'Next',
          ),
        ),
      );
      message.clear();
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  async function open(id: number, note?: string): Promise<void> {
    let user: UserInfo;
    try {
      user = await api<UserInfo>('GET', `/users/${id}`);
    } catch (e) {
      message.show(errorText(e), 'error');
      return;
    }
    const actionMessage = messageArea();
    const lanes = h('div');
    const mode = h(
      'select',
      { onchange: () => void showLanes() },
      h('option', { value: 'LIVE' }, 'LIVE'),
      h('option', { value: 'ACCEPTANCE' }, 'ACCEPTANCE'),
    );
    const canBlock = me.isAdmin && user.id !== me.id;
    const blocked = user.status === 'blocked';

    async function change(): Promise<void> {
      try {
        if (blocked) await api('POST', `/users/${user.id}/unblock`);
        else await api('PATCH', `/users/${user.id}`, { status: 'blocked' });
        await refresh();
        await open(
          user.id,
          blocked
            ? `${user.login} is unblocked.`
            : `${user.login} is blocked: their sessions and API tokens stop working.`,
        );
      } catch (e) {
        actionMessage.show(errorText(e), 'error');
      }
    }

    async function showLanes(): Promise<void> {
      try {
        const { items } = await api<{ items: LaneInfo[] }>(
          'GET',
          `/users/${user.id}/lanes${query({ mode: mode.value })}`,
        );
        fill(
          lanes,
          table(
            `Lanes of ${user.login}`,
            ['Lane', 'Pool', 'Kind'],
            items.map((l) => [l.name, pools.get(l.poolId)?.name ?? `pool ${l.poolId}`, laneKind(l)]),
          ),
        );
      } catch (e) {
        fill(lanes, h('p', { class: 'message error', role: 'alert' }, errorText(e)));
      }
    }

    fill(
      detail,
      h('h2', null, `User ${user.login} (id ${user.id})`),
      h(
        'dl',
        { class: 'facts' },
        fact('Name', user.name),
        fact('Email', user.email ?? '—'),
        fact('Profile', `${user.profile}${user.isAdmin ? ' (administrator)' : ''}`),
        fact('Status', statusTag(user.status)),
        fact('Language', user.language),
        fact('Created', when(user.createdAt)),
        fact('Updated', when(user.updatedAt)),
      ),
      canBlock
        ? h(
            'div',
            { class: 'row' },
            h(
              'button',
              { type: 'button', class: blocked ? 'primary' : 'danger', onclick: () => void change() },
              blocked ? 'Unblock user' : 'Block user',
            ),
          )
        : h(
            'p',
            { class: 'meta' },
            me.isAdmin
              ? 'You cannot block yourself.'
              : 'Only an administrator of the account may block or unblock users.',
          ),
      actionMessage,
      h('h3', null, 'Lanes'),
      h('div', { class: 'row' }, field('Lane mode', mode)),
      lanes,
    );
    if (note) actionMessage.show(note);
    await showLanes();
  }

  main.append(message, form, list, detail);
  try {
    const { items } = await api<ListAnswer<PoolInfo>>('GET', '/pools?nb=1000');
    pools = new Map(items.map((p) => [p.id, p]));
  } catch (e) {
    message.show(errorText(e), 'error');
  }
  await refresh();
}

export function statusTag(status: string): HTMLElement {
  return h('span', { class: `tag status-${status}` }, status);
}

export function laneKind(lane: LaneInfo): string {
  if (lane.runtime) return 'runtime';
  return lane.rule ? 'rule' : 'manual';
}

export function fact(term: string, value: Node | string): HTMLElement[] {
  return [h('dt', null, term), h('dd', null, value)];
}
