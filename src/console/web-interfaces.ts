/**
 * Web interfaces: the account's, a page at a time with their total, each with links that open it
 * live (/live/<account>/webinterface/<id>, in each mode and context it has); administrators also
 * create one in a project, edit its HTML/JS template in the playground's editor, and delete it
 * (after a confirmation).
 */
import { api, errorText, query } from './api.js';
import { confirmButton, field, fill, h, messageArea, pager, table, when } from './dom.js';
import { href, openById, record, startOpening, type Navigate } from './route.js';
import { identity } from './session.js';
import { createTemplateEditor } from './template-editor.js';
import { historySection } from './history.js';

interface WebInterface {
  id: number;
  projectId: number;
  title: string;
  description: string;
  tags: string[];
  contexts: string[];
  lanes: number[];
  createdAt: number;
}

const PAGE = 20;
const CONTEXTS = ['web', 'mobile', 'tablet'];
const SAMPLE = `<#-- Rendered on the server with the web-interface functions (spec 2.1); P_query holds the query. -->
<!doctype html>
<title>\${P_webinterface.title?html}</title>
<h1>\${P_webinterface.title?html}</h1>
<p>Mode \${P_mode}, context \${P_context}.</p>
`;

export async function renderWebInterfaces(main: HTMLElement, rest: string[]): Promise<Navigate> {
  const who = identity()!;
  const isAdmin = who.user.isAdmin;
  const message = messageArea();
  const list = h('div', { class: 'list' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });
  const paging = pager(PAGE, () => void refresh(), true);

  async function refresh(): Promise<void> {
    let page: { items: WebInterface[]; total: number };
    try {
      page = await api('GET', `/web-interfaces${query({ first: paging.first, nb: PAGE })}`);
    } catch (e) {
      message.show(errorText(e), 'error');
      return;
    }
    fill(
      list,
      table(
        'Web interfaces',
        ['Id', 'Title', 'Project', 'Contexts', 'Tags', 'Open live', ''],
        page.items.map((w) => [
          String(w.id),
          isAdmin
            ? h('button', { type: 'button', class: 'link', onclick: () => void show(w) }, w.title)
            : w.title,
          String(w.projectId),
          w.contexts.join(', '),
          w.tags.join(', '),
          liveLink(who.account.id, w, 'LIVE', w.contexts[0] ?? 'web'),
          isAdmin ? deleteButton(w) : '',
        ]),
      ),
    );
    paging.show(page.items.length, page.total, 'No web interfaces');
  }

  function deleteButton(w: WebInterface): HTMLElement {
    return confirmButton(
      'Delete',
      `Delete web interface ${w.title}`,
      `Delete the web interface ${w.title} (${w.id}) and its template?`,
      async () => {
        await api('DELETE', `/web-interfaces/${w.id}`);
        if (detail.dataset.interfaceId === String(w.id)) {
          fill(detail);
          record(href('web-interfaces'));
          delete detail.dataset.interfaceId;
        }
        await refresh();
        message.show(`Web interface ${w.title} deleted.`);
      },
      (e) => message.show(errorText(e), 'error'),
    );
  }

  /** A web interface in the editor, at its address (#/web-interfaces/<id>). */
  async function show(w: WebInterface): Promise<void> {
    record(href('web-interfaces', w.id));
    await open(w);
  }

  async function open(w: WebInterface): Promise<void> {
    const latest = startOpening(detail);
    message.clear();
    const status = messageArea();
    let template: string;
    try {
      template = (await api<{ template: string }>('GET', `/web-interfaces/${w.id}/template`)).template;
    } catch (e) {
      if (latest()) fill(detail, h('p', { class: 'message error', role: 'alert' }, errorText(e)));
      return;
    }
    if (!latest()) return;
    const { editor, element } = await createTemplateEditor('Template', template === '' ? SAMPLE : template);
    if (!latest()) return;
    detail.dataset.interfaceId = String(w.id);
    fill(
      detail,
      h('h2', null, `Web interface ${w.title}`),
      h(
        'p',
        { class: 'meta' },
        `Id ${w.id} · project ${w.projectId} · contexts ${w.contexts.join(', ')}`,
        w.tags.length ? ` · tags ${w.tags.join(', ')}` : '',
        ` · created ${when(w.createdAt)}`,
      ),
      h(
        'nav',
        { 'aria-label': `Open ${w.title} live`, class: 'row' },
        'Open live: ',
        ['LIVE', 'ACCEPTANCE', 'TEST'].flatMap((mode) =>
          w.contexts.map((context) =>
            liveLink(who.account.id, w, mode, context, `${mode}${context === 'web' ? '' : ` (${context})`}`),
          ),
        ),
      ),
      h(
        'p',
        { class: 'hint' },
        'LIVE needs a LIVE version of the project, ACCEPTANCE a LIVE or ACCEPTANCE one; TEST is for administrators.',
      ),
      h(
        'form',
        {
          'aria-label': `Template of ${w.title}`,
          onsubmit: async (event: Event) => {
            event.preventDefault();
            status.show('Saving…');
            try {
              await api('PUT', `/web-interfaces/${w.id}/template`, { template: editor.value() });
              status.show(`Template saved (${editor.value().length} characters).`);
            } catch (e) {
              status.show(errorText(e), 'error');
            }
          },
        },
        h('label', { for: editor.textarea.id, class: 'pane-title' }, 'Template'),
        element,
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'submit', class: 'primary' }, 'Save template'),
          deleteButton(w),
        ),
        status,
      ),
      historySection({
        base: `/web-interfaces/${w.id}/template`,
        restored: (restored: { template: string }) => {
          editor.textarea.value = restored.template;
          editor.textarea.dispatchEvent(new Event('input'));
          status.show(`Template restored (${restored.template.length} characters).`);
        },
      }),
    );
  }

  const create = isAdmin ? await createForm() : null;

  async function createForm(): Promise<HTMLElement> {
    const project = h('select', { required: true });
    const title = h('input', { required: true, autocomplete: 'off', maxlength: 255 });
    const tags = h('input', { autocomplete: 'off', placeholder: 'sales, orders' });
    const contexts = CONTEXTS.map((c) => h('input', { type: 'checkbox', value: c, checked: c === 'web' }));
    try {
      const { items } = await api<{ items: Array<{ id: number; title: string }> }>(
        'GET',
        `/projects${query({ nb: 1000, orderby: 'title' })}`,
      );
      fill(
        project,
        items.map((p) => h('option', { value: p.id }, `${p.title} (${p.id})`)),
      );
    } catch (e) {
      message.show(errorText(e), 'error');
    }
    return h(
      'form',
      {
        class: 'inline',
        'aria-label': 'Create a web interface',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          const chosen = contexts.filter((c) => c.checked).map((c) => c.value);
          try {
            const made = await api<WebInterface>('POST', `/projects/${project.value}/web-interfaces`, {
              title: title.value,
              tags: tags.value
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean),
              ...(chosen.length ? { contexts: chosen } : {}),
            });
            // Stored with the sample at once: it opens live as it is shown in the editor.
            await api('PUT', `/web-interfaces/${made.id}/template`, { template: SAMPLE });
            title.value = '';
            tags.value = '';
            for (const c of contexts) c.checked = c.value === 'web';
            await refresh();
            await show(made);
            message.show(
              `Web interface ${made.title} created (id ${made.id}) with the sample template, saved.`,
            );
          } catch (e) {
            message.show(errorText(e), 'error');
          }
        },
      },
      field('Project', project),
      field('New web interface title', title),
      field('Tags', tags, 'Separated by commas.'),
      h(
        'fieldset',
        { class: 'contexts' },
        h('legend', null, 'Contexts'),
        contexts.map((c) => h('label', null, c, ` ${c.value} `)),
      ),
      h('button', { type: 'submit' }, 'Create'),
    );
  }

  main.append(
    message,
    create ?? '',
    h('div', { class: 'row' }, paging.previous, paging.next, paging.info),
    list,
    detail,
  );
  await refresh();
  const navigate = openById<WebInterface>(detail, '/web-interfaces', open, 'Web interface');
  await navigate(rest);
  return navigate;
}

/** Where the web interface is served (this server's /live/), in a mode and context. */
function liveLink(
  account: string,
  w: WebInterface,
  mode: string,
  context: string,
  text = 'Open',
): HTMLElement {
  const params = new URLSearchParams();
  if (mode !== 'LIVE') params.set('P_mode', mode);
  if (context !== 'web') params.set('P_context', context);
  const q = params.toString();
  return h(
    'a',
    {
      href: `/live/${encodeURIComponent(account)}/webinterface/${w.id}${q ? `?${q}` : ''}`,
      target: '_blank',
      rel: 'noopener',
      'aria-label': text === 'Open' ? `Open ${w.title} live` : `Open ${w.title} in ${text}`,
    },
    text,
  );
}
