/**
 * Composite APIs (administrators): the account's routes, a page at a time with their total;
 * create or edit one — method, path pattern, mode, public flag, project, description and its
 * template in the playground's editor; delete one (after a confirmation); and a "try it" panel
 * that calls the saved route at /live/<account>/composite/<path> with path parameters, a query,
 * headers and a body, and shows the status, headers and body it answers.
 */
import { isRecord } from '../safety/narrow.js';
import { api, errorText, query } from './api.js';
import { confirmButton, field, fill, h, messageArea, pager, pretty, table, when } from './dom.js';
import { href, openById, record, startOpening, type Navigate } from './route.js';
import { identity } from './session.js';
import type { Editor } from './editor.js';
import { createTemplateEditor } from './template-editor.js';
import { historySection } from './history.js';

interface CompositeApi {
  id: number;
  projectId: number | null;
  method: string;
  path: string;
  template: string;
  mode: string;
  isPublic: boolean;
  description: string;
  createdAt: number;
  updatedAt: number;
}

const PAGE = 20;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'ANY'];
const CALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const MODES = ['LIVE', 'ACCEPTANCE', 'TEST'];
/** The longest response body the panel shows (the rest is cut, and said so). */
const SHOWN_BODY_CHARS = 200_000;
const SAMPLE = `<#-- P_params: the path's :parameters; P_query, P_body, P_user; set_status and P_custom_header shape the answer. -->
\${P_custom_header("Content-Type", "application/json")}
{"hello": "\${(P_params.name!"world")?json_string}"}
`;

export async function renderCompositeApis(main: HTMLElement, rest: string[]): Promise<Navigate | void> {
  const account = identity()!.account.id;
  const message = messageArea();
  const list = h('div', { class: 'list' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });
  const paging = pager(PAGE, () => void refresh(), true);
  const search = h('input', {
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'orders',
  });
  let sequence = 0;

  async function refresh(): Promise<void> {
    const mine = ++sequence;
    let page: { items: CompositeApi[]; total: number };
    try {
      const words = search.value.trim();
      page = await api(
        'GET',
        `/composite-apis${query({
          first: paging.first,
          nb: PAGE,
          ...(words && !/\s/.test(words) ? { filter: 'path', operator: 'CONTAINS', value: words } : {}),
        })}`,
      );
    } catch (e) {
      if (mine === sequence) message.show(errorText(e), 'error');
      return;
    }
    if (mine !== sequence) return; // a later refresh is under way
    fill(
      list,
      table(
        'Composite APIs',
        ['Method', 'Path', 'Public', 'Mode', 'Project', 'Updated', ''],
        page.items.map((a) => [
          a.method,
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              onclick: () => {
                record(href('composite-apis', a.id));
                void open(a);
              },
            },
            h('code', null, a.path),
          ),
          a.isPublic ? 'yes' : 'no',
          a.mode,
          a.projectId === null ? '' : String(a.projectId),
          when(a.updatedAt),
          deleteButton(a),
        ]),
      ),
    );
    paging.show(page.items.length, page.total, 'No composite APIs');
  }

  function deleteButton(a: CompositeApi): HTMLElement {
    const name = `${a.method} ${a.path}`;
    return confirmButton(
      'Delete',
      `Delete ${name}`,
      `Delete the composite API ${name}?`,
      async () => {
        await api('DELETE', `/composite-apis/${a.id}`);
        if (detail.dataset.apiId === String(a.id)) {
          fill(detail);
          record(href('composite-apis'));
          delete detail.dataset.apiId;
        }
        await refresh();
        message.show(`Composite API ${name} deleted.`);
      },
      (e) => message.show(errorText(e), 'error'),
    );
  }

  /** The form for a new route (no argument) or an existing one, with its "try it" panel. */
  async function open(existing?: CompositeApi): Promise<void> {
    const latest = startOpening(detail);
    message.clear();
    const status = messageArea();
    const method = h(
      'select',
      null,
      METHODS.map((m) => h('option', { value: m, selected: (existing?.method ?? 'GET') === m }, m)),
    );
    const path = h('input', {
      required: true,
      autocomplete: 'off',
      spellcheck: 'false',
      maxlength: 255,
      value: existing?.path ?? 'hello/:name',
    });
    const mode = h(
      'select',
      null,
      MODES.map((m) => h('option', { value: m, selected: (existing?.mode ?? 'LIVE') === m }, m)),
    );
    const isPublic = h('input', { type: 'checkbox', checked: existing?.isPublic ?? false });
    const projectId = h('input', {
      type: 'number',
      min: 1,
      inputmode: 'numeric',
      value: existing?.projectId ?? '',
    });
    const description = h('input', {
      autocomplete: 'off',
      maxlength: 4096,
      value: existing?.description ?? '',
    });
    const { editor, element } = await createTemplateEditor('Template', existing?.template ?? SAMPLE);
    if (!latest()) return;
    const address = h('code', null);
    const showAddress = () => (address.textContent = liveBase(account) + path.value.replace(/^\/+/, ''));
    path.addEventListener('input', showAddress);
    showAddress();

    let saved = existing;
    const tryIt = h('div');
    const remove = h('div');
    const history = h('div');
    const heading = h('h2');
    let tried = '';
    const title = () => {
      heading.textContent = saved ? `Composite API ${saved.method} ${saved.path}` : 'New composite API';
      detail.dataset.apiId = saved ? String(saved.id) : '';
      fill(remove, saved ? deleteButton(saved) : null);
      const id = saved?.id;
      if (id !== undefined && history.dataset.apiId !== String(id)) {
        history.dataset.apiId = String(id);
        fill(
          history,
          historySection({
            base: `/composite-apis/${id}`,
            restored: async (restored: CompositeApi) => {
              // the form shows the route as restored (the page and its history stay)
              method.value = restored.method;
              path.value = restored.path;
              mode.value = restored.mode;
              isPublic.checked = restored.isPublic;
              projectId.value = restored.projectId === null ? '' : String(restored.projectId);
              description.value = restored.description;
              editor.textarea.value = restored.template;
              editor.textarea.dispatchEvent(new Event('input'));
              showAddress();
              saved = restored;
              title();
              await refresh();
            },
          }),
        );
      }
      // The panel keeps what was typed in it while the route's method and path stay the same.
      const route = saved ? `${saved.method} ${saved.path}` : '';
      if (route !== tried || !saved) {
        tried = route;
        fill(
          tryIt,
          saved ? tryPanel(account, saved, editor) : h('p', { class: 'meta' }, 'Save the API to try it.'),
        );
      }
    };

    const form = h(
      'form',
      {
        'aria-label': 'Composite API',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          const body: Record<string, unknown> = {
            method: method.value,
            path: path.value,
            template: editor.value(),
            mode: mode.value,
            isPublic: isPublic.checked,
            description: description.value,
            projectId: projectId.value === '' ? null : Number(projectId.value),
          };
          status.show('Saving…');
          try {
            saved = saved
              ? await api<CompositeApi>('PUT', `/composite-apis/${saved.id}`, body)
              : await api<CompositeApi>('POST', '/composite-apis', body);
            title();
            record(href('composite-apis', saved.id));
            await refresh();
            status.show(`Saved at ${when(saved.updatedAt)}.`);
          } catch (e) {
            status.show(errorText(e), 'error');
          }
        },
      },
      h(
        'div',
        { class: 'row' },
        field('Method', method),
        field('Path', path, 'Segments are literal or :name, e.g. orders/:id.'),
        field('Mode', mode),
        field('Project id', projectId),
        h('div', { class: 'field checkbox' }, h('label', null, isPublic, ' Public (no credentials needed)')),
      ),
      field('Description', description),
      h('p', { class: 'meta' }, 'Served at ', address),
      h('label', { for: editor.textarea.id, class: 'pane-title' }, 'Template'),
      element,
      h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, 'Save'), remove),
      status,
    );

    fill(
      detail,
      heading,
      h(
        'div',
        { class: 'playground' },
        h('section', { class: 'pane', 'aria-label': 'Definition' }, form),
        h(
          'section',
          { class: 'pane', 'aria-label': 'Try it' },
          h('h3', { class: 'pane-title' }, 'Try it'),
          tryIt,
        ),
      ),
      history,
    );
    title();
  }

  search.addEventListener('input', () => ((paging.first = 0), void refresh()));

  if (!identity()!.user.isAdmin) {
    // The routes are the administrators' (the API says so): no controls, only its answer.
    main.append(message);
    await refresh();
    return;
  }
  main.append(
    message,
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        {
          type: 'button',
          class: 'primary',
          onclick: () => {
            record(href('composite-apis'));
            void open();
          },
        },
        'New composite API',
      ),
      field('Filter by path', search),
      paging.previous,
      paging.next,
      paging.info,
    ),
    list,
    detail,
  );
  await refresh();
  const navigate = openById<CompositeApi>(detail, '/composite-apis', open, 'Composite API');
  await navigate(rest);
  return navigate;
}

function liveBase(account: string): string {
  return `${location.origin}/live/${encodeURIComponent(account)}/composite/`;
}

/**
 * The "try it" panel of a saved route: builds the call, sends it, shows the answer. A script
 * error (500 script-error with its line and column, as administrators see it) is marked in the
 * editor, with a button that puts the caret there, as in the playground.
 */
function tryPanel(account: string, saved: CompositeApi, editor: Editor): HTMLElement {
  const method = h(
    'select',
    null,
    CALL_METHODS.map((m) =>
      h('option', { value: m, selected: m === (saved.method === 'ANY' ? 'GET' : saved.method) }, m),
    ),
  );
  const segments = saved.path.split('/');
  const params = new Map(
    segments
      .filter((s) => s.startsWith(':'))
      .map((s) => [s, h('input', { autocomplete: 'off', spellcheck: 'false', required: true })]),
  );
  const search = h('input', { autocomplete: 'off', spellcheck: 'false', placeholder: 'q=tea&page=2' });
  const headers = h('textarea', {
    class: 'json',
    rows: 3,
    spellcheck: 'false',
    placeholder: 'X-Order: 42',
  });
  const body = h('textarea', { class: 'json', rows: 4, spellcheck: 'false', placeholder: '{"item": "pen"}' });
  const asMe = h('input', { type: 'checkbox', checked: true });
  const status = messageArea();
  const answer = h('div');

  const url = (): string => {
    const path = segments
      .map((s) => (s.startsWith(':') ? encodeURIComponent(params.get(s)!.value) : s))
      .join('/');
    const q = search.value.trim().replace(/^\?/, '');
    return liveBase(account) + path + (q ? `?${q}` : '');
  };

  async function send(event: Event): Promise<void> {
    event.preventDefault();
    let sent: Headers;
    try {
      sent = parseHeaders(headers.value);
    } catch (e) {
      status.show(errorText(e), 'error');
      return;
    }
    const withBody = method.value !== 'GET' && body.value !== '';
    if (withBody && !sent.has('content-type'))
      sent.set('content-type', looksLikeJson(body.value) ? 'application/json' : 'text/plain; charset=utf-8');
    const target = url();
    status.show(`Calling ${method.value} ${target}…`);
    const started = performance.now();
    try {
      const response = await fetch(target, {
        method: method.value,
        headers: sent,
        body: withBody ? body.value : null,
        credentials: asMe.checked ? 'same-origin' : 'omit',
        redirect: 'manual',
      });
      const ms = Math.round(performance.now() - started);
      if (response.type === 'opaqueredirect') {
        // The browser hides a redirect's status and Location from scripts; it is not followed.
        status.show(`Answered a redirect in ${ms} ms (not followed; the browser hides its target).`);
        fill(answer);
        return;
      }
      const text = await response.text();
      status.show(`Answered ${response.status} in ${ms} ms.`);
      showAnswer(response, text);
    } catch (e) {
      status.show(`The call failed: ${errorText(e)}`, 'error');
    }
  }

  function showAnswer(response: Response, text: string): void {
    const type = response.headers.get('content-type') ?? '';
    let shown = text;
    let parsed: unknown;
    if (/json/i.test(type))
      try {
        parsed = JSON.parse(text);
        shown = pretty(parsed);
      } catch {
        // not JSON after all: shown as sent
      }
    const failure = scriptError(response.status, parsed);
    editor.markError(failure ? failure.line : null);
    const cut = shown.length > SHOWN_BODY_CHARS;
    fill(
      answer,
      h('p', { class: 'call-status' }, h('strong', null, `${response.status} ${response.statusText}`.trim())),
      failure
        ? h(
            'div',
            { class: 'eval-error', role: 'alert' },
            h(
              'button',
              {
                type: 'button',
                class: 'error-position',
                onclick: () => editor.moveTo(failure.line, failure.column),
              },
              `Line ${failure.line}, column ${failure.column}`,
            ),
            h('span', { class: 'error-message' }, ` of the saved template: ${failure.message}`),
          )
        : null,
      table('Response headers', ['Header', 'Value'], headerRows(response.headers)),
      h(
        'pre',
        { class: 'output small', 'aria-label': 'Response body', tabindex: 0 },
        cut ? shown.slice(0, SHOWN_BODY_CHARS) : shown,
      ),
      cut
        ? h('p', { class: 'meta' }, `The body is cut at ${SHOWN_BODY_CHARS} of ${shown.length} characters.`)
        : null,
    );
  }

  const address = h('code', null);
  const showAddress = () => (address.textContent = url());
  for (const input of [search, ...params.values()]) input.addEventListener('input', showAddress);
  showAddress();

  return h(
    'form',
    { 'aria-label': 'Try it', onsubmit: (e: Event) => void send(e) },
    h(
      'div',
      { class: 'row' },
      field('Call method', method),
      [...params].map(([name, input]) => field(`Path parameter ${name.slice(1)}`, input)),
    ),
    field('Query', search, 'name=value pairs joined by &.'),
    field('Headers', headers, 'One "Name: value" a line.'),
    field(
      'Body',
      body,
      'Sent as JSON when it parses as JSON, else as text (unless Headers give a Content-Type).',
    ),
    h(
      'div',
      { class: 'field checkbox' },
      h('label', null, asMe, ' Send my session (untick to call as anonymous)'),
    ),
    h('p', { class: 'meta' }, 'Calls ', address),
    h('button', { type: 'submit', class: 'primary' }, 'Send'),
    status,
    answer,
  );
}

/** Headers typed one a line ("Name: value"); the error names the line. */
export function parseHeaders(text: string): Headers {
  const headers = new Headers();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new Error(`Headers: line ${i + 1} is not "Name: value"`);
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch (e) {
      throw new Error(`Headers: line ${i + 1}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  });
  return headers;
}

/** The script error a composite API answered (500 script-error with a line), if it is one. */
function scriptError(
  status: number,
  body: unknown,
): { line: number; column: number; message: string } | undefined {
  if (status !== 500 || !isRecord(body)) return undefined;
  const { code, line, column, message } = body;
  if (code !== 'script-error' || !isPosition(line)) return undefined;
  return { line, column: isPosition(column) ? column : 1, message: String(message ?? '') };
}

/** A response's headers as table rows, by name (the order Headers iterates in). */
function headerRows(headers: Headers): string[][] {
  const rows: string[][] = [];
  headers.forEach((value, name) => rows.push([name, value]));
  return rows;
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A line or column number: a whole number from 1. */
function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}
