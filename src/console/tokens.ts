/**
 * API tokens: create one (its secret is shown once, with a copy button: the server keeps only its
 * hash), list them (name, created, expiry, last use; never a secret) and revoke them.
 * Administrators may list and revoke every user's tokens of the account.
 */
import type { Static } from 'typebox';
import type { ApiTokenInfo } from '../server/schemas.js';
import { api, errorText, query } from './api.js';
import { append, field, fill, h, messageArea, table, when } from './dom.js';
import { identity } from './session.js';

/** An API token as GET /api/v1/tokens lists it: the type of its schema (nothing of the server is loaded). */
type TokenInfo = Static<typeof ApiTokenInfo>;

export async function renderTokens(main: HTMLElement): Promise<void> {
  const me = identity()!.user;
  const message = messageArea();
  const secret = h('section', { class: 'secret-panel', 'aria-live': 'polite' });
  const list = h('div', { class: 'list' });
  const name = h('input', { name: 'name', required: true, maxlength: 100, autocomplete: 'off' });
  const days = h('input', { name: 'expires', type: 'number', min: 1, max: 3650, inputmode: 'numeric' });
  const everyone = h('input', { type: 'checkbox', onchange: () => void refresh() });
  const logins = new Map<number, string>([[me.id, me.login]]);

  const create = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Create an API token',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        try {
          const body: { name: string; expiresInDays?: number } = { name: name.value };
          if (days.value !== '') body.expiresInDays = Number(days.value);
          const created = await api<{ token: string; info: TokenInfo }>('POST', '/tokens', body);
          name.value = '';
          days.value = '';
          await refresh();
          showSecret(created.token, created.info);
        } catch (err) {
          message.show(errorText(err), 'error');
        }
      },
    },
    field('Token name', name),
    field('Expires in days', days, 'Empty: never expires.'),
    h('button', { type: 'submit', class: 'primary' }, 'Create token'),
  );

  function showSecret(token: string, info: TokenInfo): void {
    const value = h('input', {
      class: 'token-value',
      readonly: true,
      value: token,
      spellcheck: 'false',
      autocomplete: 'off',
    });
    const copied = messageArea();
    fill(
      secret,
      h('h2', null, `Token ${info.name} created`),
      h(
        'p',
        { class: 'note' },
        'Copy it now: it is shown only this once. The server keeps only its hash, so it cannot be shown again; if it is lost, revoke it and create another. Send it as the header Authorization: Bearer <token>.',
      ),
      h(
        'div',
        { class: 'row' },
        field('New token', value),
        h(
          'button',
          {
            type: 'button',
            class: 'primary',
            onclick: async () => {
              value.select();
              try {
                await navigator.clipboard.writeText(token);
                copied.show('Copied to the clipboard.');
              } catch {
                // No clipboard permission: the token is selected for Ctrl+C.
                copied.show('Selected: press Ctrl+C to copy it.');
              }
            },
          },
          'Copy',
        ),
        h('button', { type: 'button', onclick: () => fill(secret) }, 'Done, hide it'),
      ),
      copied,
    );
    value.select();
  }

  async function revoke(token: TokenInfo): Promise<void> {
    try {
      await api('DELETE', `/tokens/${encodeURIComponent(token.id)}`);
      await refresh();
      message.show(`Token ${token.name} revoked: it no longer works.`);
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  /** Revoking cannot be undone: the first click asks, the second revokes. */
  function revokeButton(token: TokenInfo): HTMLButtonElement {
    let armed = false;
    const button = h(
      'button',
      {
        type: 'button',
        class: 'link danger',
        'aria-label': `Revoke ${token.name}`,
        onclick: () => {
          if (armed) return void revoke(token);
          armed = true;
          button.textContent = 'Confirm revoke';
          button.setAttribute('aria-label', `Confirm: revoke ${token.name}`);
          message.show(`Revoke ${token.name}? Programs using it will be refused. Click Confirm revoke.`);
        },
      },
      'Revoke',
    );
    return button;
  }

  async function refresh(): Promise<void> {
    try {
      const all = everyone.checked;
      const { items } = await api<{ items: TokenInfo[] }>(
        'GET',
        `/tokens${query({ all: all ? 'true' : '' })}`,
      );
      if (all) {
        const missing = [...new Set(items.map((t) => t.userId))].filter((id) => !logins.has(id));
        if (missing.length > 0) {
          const { items: users } = await api<{ items: { id: number; login: string }[] }>(
            'GET',
            `/users${query({ filter: 'id', operator: 'IN', value: missing.join('|'), nb: 1000 })}`,
          );
          for (const u of users) logins.set(u.id, u.login);
        }
      }
      const headers = ['Name', 'Id', 'Created', 'Expires', 'Last used'];
      fill(
        list,
        table(
          'API tokens',
          all ? [...headers, 'Owner', ''] : [...headers, ''],
          items.map((t) =>
            [
              t.name,
              h('code', null, t.id),
              when(t.createdAt),
              t.expiresAt === null ? 'never' : when(t.expiresAt),
              t.lastUsedAt === null ? 'never' : when(t.lastUsedAt),
              all ? (logins.get(t.userId) ?? `user ${t.userId}`) : null,
              revokeButton(t),
            ].filter((cell) => cell !== null),
          ),
        ),
      );
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  append(main, [
    h(
      'p',
      { class: 'meta' },
      'API tokens act as you, with your rights at the time of use, for scripts and tools calling the API.',
    ),
    create,
    secret,
    message,
    me.isAdmin
      ? h(
          'div',
          { class: 'row' },
          h('div', { class: 'field checkbox' }, h('label', null, everyone, " Every user's tokens")),
        )
      : null,
    list,
  ]);
  await refresh();
}
