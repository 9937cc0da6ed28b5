/**
 * Process definitions (administrators, as the REST routes): the account's definitions; one shown
 * and edited as a diagram (process-diagram.ts) or as JSON (the editor shows the server's validation error at its path: the line marked, a button
 * that moves the caret there), created, deleted; and a request started from one with a mode and
 * input data (JSON), which then opens on the request's page (#/requests/<id>).
 */
import { historySection } from './history.js';
import { api, ClientError, errorText } from './api.js';
import { field, fill, h, messageArea, parseJsonField, table, uid, when } from './dom.js';
import { createEditor, type Editor } from './editor.js';
import { diagramEditor } from './process-diagram.js';
import { locate, position, splitDefinitionError } from './json-path.js';
import { href, openById, record, startOpening, type Navigate } from './route.js';
import { identity } from './session.js';

interface StoredDefinition {
  id: number;
  name: string;
  definition: { name: string; project?: number | null; steps: unknown[] };
  createdAt: number;
  updatedAt: number;
}

const EXAMPLE = `{
  "name": "Approval",
  "steps": [
    { "id": 1, "name": "Price", "input": { "total": "\${(amount * 2)?c}" } },
    { "id": 2, "type": "manual", "name": "Approve", "fields": ["decision", "comment"],
      "input": { "summary": "Order of \${amount}: \${total}" },
      "output": { "approved": "\${(P_result.decision == \\"yes\\")?c}" } }
  ]
}
`;

export async function renderProcesses(main: HTMLElement, rest: string[]): Promise<Navigate | void> {
  const message = messageArea();
  const list = h('div', { class: 'list' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });

  if (!identity()!.user.isAdmin) {
    main.append(
      h('p', null, 'Process definitions are managed by administrators. Start a stored process by its name:'),
      startForm(null),
    );
    return;
  }

  async function refresh(): Promise<void> {
    try {
      const { items } = await api<{ items: StoredDefinition[] }>('GET', '/processes');
      fill(
        list,
        h(
          'p',
          { class: 'meta', role: 'status' },
          `${items.length} process definition${items.length === 1 ? '' : 's'}`,
        ),
        table(
          'Process definitions',
          ['Name', 'Id', 'Steps', 'Updated', ''],
          items.map((d) => [
            h('button', { type: 'button', class: 'link', onclick: () => show(d) }, d.name),
            String(d.id),
            String(d.definition.steps.length),
            when(d.updatedAt),
            h(
              'button',
              {
                type: 'button',
                class: 'link danger',
                'aria-label': `Delete ${d.name}`,
                onclick: () => void remove(d),
              },
              'Delete',
            ),
          ]),
        ),
      );
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  async function remove(d: StoredDefinition): Promise<void> {
    if (!window.confirm(`Delete the process definition ${d.name}? Requests already started keep theirs.`))
      return;
    try {
      await api('DELETE', `/processes/${d.id}`);
      fill(detail);
      record(href('processes'));
      await refresh();
      message.show(`Deleted ${d.name}.`);
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  /** A stored definition in the editor, at its address (#/processes/<id>). */
  function show(stored: StoredDefinition): void {
    startOpening(detail);
    edit(stored);
    record(href('processes', stored.id));
  }

  /** The tab shown (kept from one definition to the next). */
  let tab: 'Diagram' | 'JSON' = 'Diagram';

  /** A stored definition, or a new one (null): its diagram and JSON tabs, and the start form. */
  function edit(stored: StoredDefinition | null): void {
    const heading = h('h2', null, stored ? `Process ${stored.name}` : 'New process definition');
    const meta = h(
      'p',
      { class: 'meta' },
      stored ? `Id ${stored.id} · updated ${when(stored.updatedAt)}` : '',
    );
    const panels = {
      Diagram: h('div', { role: 'tabpanel', id: uid('panel'), 'aria-label': 'Diagram' }),
      JSON: h('div', { role: 'tabpanel', id: uid('panel'), 'aria-label': 'JSON' }),
    };
    const start = h('div', null, stored ? startForm(stored) : null);
    /** A diagram save: the list, the address, the JSON tab and the start form follow it. */
    const diagramSaved = async (saved: StoredDefinition) => {
      await refresh();
      record(href('processes', saved.id));
      heading.textContent = `Process ${saved.name}`;
      meta.textContent = `Id ${saved.id} · updated ${when(saved.updatedAt)}`;
      fill(panels.JSON, jsonForm(saved));
      fill(start, startForm(saved));
    };
    const tabs = (['Diagram', 'JSON'] as const).map((name) =>
      h(
        'button',
        {
          type: 'button',
          role: 'tab',
          'aria-controls': panels[name].id,
          onclick: () => select(name),
        },
        name,
      ),
    );
    function select(name: 'Diagram' | 'JSON'): void {
      tab = name;
      tabs.forEach((t) => t.setAttribute('aria-selected', String(t.textContent === name)));
      panels.Diagram.hidden = name !== 'Diagram';
      panels.JSON.hidden = name !== 'JSON';
      // The modeler measures its container: it is built once its tab shows.
      if (name === 'Diagram' && !panels.Diagram.firstChild)
        fill(panels.Diagram, diagramEditor(stored, diagramSaved));
    }
    fill(panels.JSON, jsonForm(stored));
    fill(
      detail,
      heading,
      meta,
      h('div', { role: 'tablist', class: 'tabs', 'aria-label': 'Definition views' }, tabs),
      panels.Diagram,
      panels.JSON,
      start,
      stored
        ? historySection({
            base: `/processes/${stored.id}`,
            restored: async (saved: StoredDefinition) => {
              await refresh();
              show(saved);
              message.show(`Restored ${saved.name} (id ${saved.id}).`);
            },
          })
        : null,
    );
    select(tab);
  }

  /** The JSON editor of a stored definition, or of a new one (null). */
  function jsonForm(stored: StoredDefinition | null): HTMLElement {
    const editor = createEditor({
      id: 'definition-json',
      label: 'Definition (JSON)',
      initial: stored ? `${JSON.stringify(stored.definition, null, 2)}\n` : EXAMPLE,
    });
    const errors = h('div', { class: 'eval-error', role: 'alert' });
    const save = h('button', { type: 'submit', class: 'primary' }, stored ? 'Save' : 'Create');
    const form = h(
      'form',
      {
        'aria-label': stored ? `Edit ${stored.name}` : 'New process definition',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void submit();
        },
      },
      h('label', { for: 'definition-json', class: 'pane-title' }, 'Definition (JSON)'),
      editor.element,
      errors,
      h('div', { class: 'row' }, save),
    );

    async function submit(): Promise<void> {
      editor.markError(null);
      fill(errors);
      const text = editor.value();
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        const offset = jsonErrorOffset(text, e as Error);
        const at = offset === undefined ? undefined : position(text, offset);
        showErrors(editor, errors, [{ text: (e as Error).message, at }]);
        return;
      }
      save.disabled = true;
      try {
        const saved = stored
          ? await api<StoredDefinition>('PUT', `/processes/${stored.id}`, value)
          : await api<StoredDefinition>('POST', '/processes', value);
        message.show(`Saved ${saved.name} (id ${saved.id}).`);
        await refresh();
        show(saved);
      } catch (e) {
        if (e instanceof ClientError && e.status === 400)
          showErrors(
            editor,
            errors,
            e.message.split('\n').map((line) => {
              const split = splitDefinitionError(line);
              return { ...split, at: split.path ? locate(text, split.path) : undefined };
            }),
          );
        else fill(errors, errorText(e));
      } finally {
        save.disabled = false;
      }
    }

    return form;
  }

  const create = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: () => {
        record(href('processes'));
        startOpening(detail);
        edit(null);
      },
    },
    'New definition',
  );
  main.append(message, h('div', { class: 'row' }, create), list, detail);
  await refresh();
  const navigate = openById<StoredDefinition>(detail, '/processes', edit, 'Process definition');
  await navigate(rest);
  return navigate;
}

/** The offset JSON.parse names in its message ("… at position 12" or "(line 3 column 5)"). */
function jsonErrorOffset(text: string, error: Error): number | undefined {
  const at = /at position (\d+)/.exec(error.message);
  if (at) return Number(at[1]);
  const lc = /line (\d+) column (\d+)/.exec(error.message);
  if (!lc) return undefined;
  const lines = text.split('\n').slice(0, Number(lc[1]) - 1);
  return lines.reduce((n, l) => n + l.length + 1, 0) + Number(lc[2]) - 1;
}

interface ShownError {
  pathText?: string;
  text: string;
  at?: { line: number; column: number };
}

/** The errors under the editor, each with its place (a button moving the caret there); the first's line marked. */
function showErrors(editor: Editor, errors: HTMLElement, list: ShownError[]): void {
  editor.markError(list.find((e) => e.at)?.at?.line ?? null);
  fill(
    errors,
    h(
      'ul',
      { class: 'errors' },
      list.map((error) => {
        const where = error.at;
        return h(
          'li',
          null,
          where
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'error-position',
                  onclick: () => editor.moveTo(where.line, where.column),
                },
                `Line ${where.line}, column ${where.column}`,
              )
            : null,
          where ? ': ' : null,
          error.pathText ? h('code', { class: 'error-path' }, error.pathText) : null,
          error.pathText ? ': ' : null,
          h('span', { class: 'error-message' }, error.text),
        );
      }),
    ),
  );
}

/** Starts a request of a stored process (by id; by name for a user who cannot list them). */
function startForm(stored: StoredDefinition | null): HTMLElement {
  const message = messageArea();
  const name = h('input', { type: 'text', required: true, maxlength: 255 });
  const mode = h(
    'select',
    null,
    ['LIVE', 'ACCEPTANCE', 'TEST'].map((m) => h('option', { value: m }, m)),
  );
  const data = h('textarea', { class: 'json', rows: 4, spellcheck: 'false' });
  data.value = '{}';
  const start = h('button', { type: 'submit', class: 'primary' }, 'Start a request');
  return h(
    'form',
    {
      class: 'sub',
      'aria-label': 'Start a request',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        start.disabled = true;
        try {
          const input = parseJsonField(data.value, 'Input data') ?? {};
          const process = stored ? stored.id : name.value;
          const request = await api<{ id: string }>('POST', '/requests', {
            process,
            mode: mode.value,
            data: input,
          });
          location.hash = `#/requests/${encodeURIComponent(request.id)}`;
        } catch (error) {
          message.show(errorText(error), 'error');
        } finally {
          start.disabled = false;
        }
      },
    },
    h('h3', null, 'Start a request'),
    h('div', { class: 'row' }, stored ? null : field('Process name', name), field('Mode', mode)),
    field('Input data (JSON object)', data),
    h('div', { class: 'row' }, start),
    message,
  );
}
