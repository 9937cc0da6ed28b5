/**
 * Users: search the account's users (login, name or email; by status), in pages with the total; a
 * user's details and lanes (LIVE or ACCEPTANCE) at #/users/<id>; administrators create users,
 * reset a password (a new one, generated here and shown once) and block and unblock users (not
 * themselves: the server refuses it too).
 */
import type { Static } from 'typebox';
import type { Lane, Pool, User } from '../server/schemas.js';
import { api, errorText, query } from './api.js';
import { field, fill, h, messageArea, table, when } from './dom.js';
import { go, href, startOpening, type Navigate } from './route.js';
import { identity } from './session.js';

// The JSON API's bodies, as types of its schemas (nothing of the server is loaded).
export type UserInfo = Static<typeof User>;
export type PoolInfo = Static<typeof Pool>;
export type LaneInfo = Static<typeof Lane>;

export interface ListAnswer<T> {
  items: T[];
  total: number;
  first: number;
  nb: number;
}

const PAGE_SIZE = 20;

export async function renderUsers(main: HTMLElement, rest: string[]): Promise<Navigate> {
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
  /** What the next user page opened says (a creation's result). */
  let pending: ((area: ReturnType<typeof messageArea>) => void) | undefined;

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
            h(
              'button',
              { type: 'button', class: 'link', onclick: () => go(href('users', u.id), () => open(u.id)) },
              u.login,
            ),
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

  async function open(id: number | string, note?: string): Promise<void> {
    const latest = startOpening(detail);
    let user: UserInfo;
    try {
      user = await api<UserInfo>('GET', `/users/${encodeURIComponent(id)}`);
    } catch (e) {
      if (!latest()) return;
      fill(detail);
      message.show(`User ${id}: ${errorText(e)}`, 'error');
      return;
    }
    if (!latest()) return;
    message.clear();
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

    async function resetPassword(): Promise<void> {
      const password = newPassword();
      try {
        await api('PATCH', `/users/${user.id}`, { password });
        showPassword(actionMessage, user.login, password, 'New password');
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
            h(
              'button',
              {
                type: 'button',
                onclick: () => {
                  if (window.confirm(`Give ${user.login} a new password? The current one stops working.`))
                    void resetPassword();
                },
              },
              'Reset password',
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
    const after = pending;
    pending = undefined;
    after?.(actionMessage);
    await showLanes();
  }

  const navigate: Navigate = ([id]) =>
    id === undefined ? (startOpening(detail), fill(detail), message.clear()) : open(id);
  const created = async (user: UserInfo, generated: string | undefined): Promise<void> => {
    await refresh();
    // The user's page opens with the message: the password is shown there, once.
    pending = (area) =>
      generated === undefined
        ? area.show(`User ${user.login} created with the password typed.`)
        : showPassword(area, user.login, generated, `User ${user.login} created. Password`);
    go(href('users', user.id), () => open(user.id));
  };
  main.append(message, ...(me.isAdmin ? [createForm(message, created)] : []), form, list, detail);
  try {
    const { items } = await api<ListAnswer<PoolInfo>>('GET', '/pools?nb=1000');
    pools = new Map(items.map((p) => [p.id, p]));
  } catch (e) {
    message.show(errorText(e), 'error');
  }
  await refresh();
  await navigate(rest);
  return navigate;
}

/** Administrators: a new user; without a password typed, one is generated and shown once. */
function createForm(
  message: ReturnType<typeof messageArea>,
  created: (user: UserInfo, generated: string | undefined) => Promise<void>,
): HTMLElement {
  const login = h('input', { name: 'login', required: true, maxlength: 255, autocomplete: 'off' });
  const name = h('input', { name: 'name', maxlength: 255, autocomplete: 'off' });
  const email = h('input', { name: 'email', type: 'email', maxlength: 255, autocomplete: 'off' });
  const password = h('input', {
    name: 'new-password',
    type: 'password',
    minlength: 8,
    maxlength: 1024,
    autocomplete: 'new-password',
  });
  const isAdmin = h('input', { type: 'checkbox', name: 'is-admin' });
  return h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Create a user',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const typed = password.value;
        const secret = typed === '' ? newPassword() : typed;
        try {
          const user = await api<UserInfo>('POST', '/users', {
            login: login.value.trim(),
            ...(name.value.trim() ? { name: name.value.trim() } : {}),
            ...(email.value.trim() ? { email: email.value.trim() } : {}),
            isAdmin: isAdmin.checked,
            password: secret,
          });
          (e.target as HTMLFormElement).reset();
          await created(user, typed === '' ? secret : undefined);
        } catch (err) {
          message.show(errorText(err), 'error');
        }
      },
    },
    field('New user login', login),
    field('Name', name),
    field('Email', email),
    field('Password', password, 'Empty: the console makes one and shows it once.'),
    h('div', { class: 'field checkbox' }, h('label', null, isAdmin, ' Administrator')),
    h('button', { type: 'submit', class: 'primary' }, 'Create user'),
  );
}

/** A password of 16 characters from 62 (about 95 bits), from the browser's random source. */
export function newPassword(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const out: string[] = [];
  const bytes = new Uint8Array(64);
  while (out.length < 16) {
    crypto.getRandomValues(bytes);
    // 248 = 4 × 62: drop the bytes above it, so every character is as likely.
    for (const b of bytes) if (b < 248 && out.length < 16) out.push(alphabet[b % 62]!);
  }
  return out.join('');
}

/** Shows a password once: the server keeps only its hash, the console forgets it with the page. */
function showPassword(
  area: ReturnType<typeof messageArea>,
  login: string,
  password: string,
  lead: string,
): void {
  area.show(`${lead} for ${login}: `);
  area.append(
    h('code', { class: 'secret', 'data-password': '' }, password),
    ` — shown once: give it to ${login}, who logs in with it (and may change it).`,
  );
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
