/** The login view: account (optional when the server has a default one), login, password. */
import { errorText } from './api.js';
import { field, fill, h, messageArea } from './dom.js';
import { logIn } from './session.js';

export function renderLogin(root: HTMLElement, done: () => void): void {
  const account = h('input', { name: 'account', autocomplete: 'organization' });
  // a task page's login link names the task's account
  account.value = new URLSearchParams(location.search).get('account') ?? '';
  const login = h('input', { name: 'login', autocomplete: 'username', required: true });
  const password = h('input', {
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const message = messageArea();
  const submit = h('button', { type: 'submit' }, 'Log in');
  const form = h(
    'form',
    {
      class: 'login',
      'aria-labelledby': 'login-title',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        submit.disabled = true;
        message.show('Logging in…');
        try {
          await logIn(account.value, login.value, password.value);
          done();
        } catch (e) {
          message.show(errorText(e), 'error');
          password.select();
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h1', { id: 'login-title' }, 'flowmark console'),
    field('Account', account, 'Leave empty for the server’s default account.'),
    field('Login', login),
    field('Password', password),
    submit,
    message,
  );
  fill(root, h('main', { id: 'main', class: 'center' }, form));
  login.focus();
}
