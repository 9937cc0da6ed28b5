/**
 * The web console: a one-page app over the JSON API and the client library. The hash picks the
 * view by its first segment (#/playground, #/collections, #/projects, #/files, #/processes,
 * #/requests, #/requests/<id>, #/users, #/organisation, #/tokens, #/composite-apis,
 * #/web-interfaces), the rest selects an item of it (route.ts); an unknown page says so; without
 * a session, the login view.
 */
import { errorText } from './api.js';
import { fill, h } from './dom.js';
import { renderCollections } from './collections.js';
import { renderCompositeApis } from './composite-apis.js';
import { renderFiles } from './files.js';
import { renderLogin } from './login.js';
import { renderOrganisation } from './organisation.js';
import { renderPlayground } from './playground.js';
import { renderProcesses } from './processes.js';
import { renderProjects } from './projects.js';
import { renderRequests } from './requests.js';
import { renderWebInterfaces } from './web-interfaces.js';
import { segments, type Navigate } from './route.js';
import { identity, logOut, resume } from './session.js';
import { renderTokens } from './tokens.js';
import { renderUsers } from './users.js';

interface View {
  path: string;
  title: string;
  /** Builds the page for the address's segments after the page's; may return its Navigate. */
  render(main: HTMLElement, rest: string[]): void | Navigate | Promise<void | Navigate>;
}

const VIEWS: View[] = [
  { path: 'playground', title: 'Playground', render: renderPlayground },
  { path: 'collections', title: 'Collections', render: renderCollections },
  { path: 'projects', title: 'Projects', render: renderProjects },
  { path: 'files', title: 'Files', render: renderFiles },
  { path: 'processes', title: 'Processes', render: renderProcesses },
  { path: 'requests', title: 'Requests and logs', render: renderRequests },
  { path: 'users', title: 'Users', render: renderUsers },
  { path: 'organisation', title: 'Lanes and pools', render: renderOrganisation },
  { path: 'tokens', title: 'API tokens', render: renderTokens },
  { path: 'composite-apis', title: 'Composite APIs', render: renderCompositeApis },
  { path: 'web-interfaces', title: 'Web interfaces', render: renderWebInterfaces },
];

const root = document.getElementById('app')!;
/** The page shown and how it follows a change of address within it. */
let shown: { view: View | undefined; user: number; navigate: Navigate | undefined } | undefined;

/** The `?return=` of the console's address when it is a task of this server (`/live/<account>/task/…`). */
function returnAddress(): string | undefined {
  const back = new URLSearchParams(location.search).get('return');
  return back !== null && /^\/live\/[^/\\]+\/task\/[^\\]*$/.test(back) ? back : undefined;
}

async function show(): Promise<void> {
  const who = identity();
  const back = returnAddress();
  if (who && back !== undefined) return location.replace(back); // logged in already
  if (!who) {
    shown = undefined; // the login view replaces the page: the next one is built anew
    document.title = 'Log in · flowmark console';
    renderLogin(root, () => {
      // a task page sent the visitor here to log in: back to the task
      if (back !== undefined) return location.replace(back);
      if (location.hash === '' || location.hash === '#/login') location.hash = '#/playground';
      void show();
    });
    return;
  }
  const [page = 'playground', ...rest] = segments();
  const view = VIEWS.find((v) => v.path === page);
  if (shown && shown.view === view && shown.user === who.user.id && shown.navigate) {
    try {
      await shown.navigate(rest);
    } catch (e) {
      report(e);
    }
    return;
  }
  shown = { view, user: who.user.id, navigate: undefined };
  document.title = `${view?.title ?? 'Page not found'} · flowmark console`;
  const main = h('main', { id: 'main', tabindex: -1 });
  fill(
    root,
    h(
      'a',
      { class: 'skip', href: '#main', onclick: (e: Event) => (e.preventDefault(), main.focus()) },
      'Skip to content',
    ),
    h(
      'header',
      { class: 'top' },
      h('span', { class: 'brand' }, 'flowmark'),
      h(
        'nav',
        { 'aria-label': 'Console' },
        h(
          'ul',
          null,
          VIEWS.map((v) =>
            h(
              'li',
              null,
              h('a', { href: `#/${v.path}`, 'aria-current': v === view ? 'page' : null }, v.title),
            ),
          ),
        ),
      ),
      h(
        'span',
        { class: 'who' },
        `${who.user.login}@${who.account.id}${who.user.isAdmin ? ' (administrator)' : ''} `,
        h(
          'button',
          {
            type: 'button',
            class: 'link',
            onclick: () => void logOut().then(() => ((shown = undefined), show()), report),
          },
          'Log out',
        ),
      ),
    ),
    main,
  );
  if (!view) {
    main.append(
      h('h1', null, 'Page not found'),
      h(
        'p',
        { class: 'message error', role: 'alert' },
        `The console has no page ${JSON.stringify(page)} (address ${location.hash}). Choose a page above, or `,
        h('a', { href: '#/playground' }, 'open the playground'),
        '.',
      ),
    );
    return;
  }
  main.append(h('h1', null, view.title));
  const current = shown;
  // The page shows once it has loaded and opened its address: a control used before then would be
  // undone by the load (a new definition's form emptied when the address opens nothing). Hidden,
  // not detached, so what measures its container (the diagram) is built in place.
  main.setAttribute('aria-busy', 'true');
  main.classList.add('loading');
  const loading = h('p', { class: 'meta loading-note', role: 'status' }, `Loading ${view.title}…`);
  main.before(loading);
  try {
    const navigate = await view.render(main, rest);
    if (navigate) current.navigate = navigate;
  } catch (e) {
    report(e);
  } finally {
    loading.remove();
    main.classList.remove('loading');
    main.removeAttribute('aria-busy');
  }
}

function report(e: unknown): void {
  root.append(h('p', { class: 'message error', role: 'alert' }, errorText(e)));
}

window.addEventListener('hashchange', () => void show());
resume().then(show, (e: unknown) => {
  fill(root, h('p', { class: 'message error', role: 'alert' }, `The server did not answer: ${errorText(e)}`));
});
