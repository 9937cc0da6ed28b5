/**
 * The template playground: write a template, choose the mode, the user (administrators) and the
 * request data, and see it rendered live through POST /api/v1/eval — the output, the variables
 * it set, what it logged and its response, or the error at its line and column.
 */
import { api, errorText } from './api.js';
import { attachCompletion, type FunctionInfo } from './completion.js';
import { field, h, messageArea, parseJsonField, pretty, uid } from './dom.js';
import { createEditor } from './editor.js';
import { createReference } from './reference.js';
import { identity } from './session.js';

interface EvalResult {
  output: string;
  variables: Record<string, unknown>;
  logs: Array<{ level: string; message: string }>;
  response: { status?: number; statusName?: string; description?: string; headers: Record<string, string> };
  error?: { message: string; kind?: string; line?: number; column?: number; templateName?: string };
}

const SAMPLE = `<#-- Type two letters of a function name for completion (Ctrl+Space lists them all). -->
<#assign total = 0>
<#list items as item>
  \${item.name}: \${item.price?string("0.00")}
  <#assign total = total + item.price>
</#list>
Total: \${total} (\${uuid()?length} characters of uuid)
`;
const SAMPLE_DATA = '{"items": [{"name": "Tea", "price": 3.5}, {"name": "Cake", "price": 4}]}';
/** Wait after the last keystroke before a live render, in ms. */
const LIVE_DELAY = 300;

export async function renderPlayground(main: HTMLElement): Promise<void> {
  const who = identity()!;
  const editor = createEditor({ id: uid('template'), label: 'Template', initial: SAMPLE });
  const mode = h(
    'select',
    null,
    ['TEST', 'ACCEPTANCE', 'LIVE'].map((m) => h('option', { value: m }, m)),
  );
  const user = h(
    'select',
    { disabled: !who.user.isAdmin },
    h('option', { value: who.user.login }, who.user.login),
  );
  const data = h('textarea', { class: 'json', rows: 5, spellcheck: 'false' });
  data.value = SAMPLE_DATA;
  const projectId = h('input', { type: 'number', min: 1, inputmode: 'numeric' });
  const live = h('input', { type: 'checkbox', checked: true });
  const render = h('button', { type: 'button', class: 'primary' }, 'Render');
  const status = messageArea();
  const errorBox = h('div', { class: 'eval-error', role: 'alert' });
  const output = h('pre', { class: 'output', 'aria-label': 'Output', tabindex: 0 });
  const variables = h('pre', { class: 'output small' });
  const logs = h('ul', { class: 'logs' });
  const response = h('pre', { class: 'output small' });

  main.append(
    h(
      'div',
      { class: 'playground' },
      h(
        'section',
        { class: 'pane', 'aria-label': 'Template and context' },
        h('label', { for: editor.textarea.id, class: 'pane-title' }, 'Template'),
        editor.element,
        h(
          'div',
          { class: 'row' },
          field('Mode', mode),
          field(
            'User',
            user,
            who.user.isAdmin ? 'Evaluate as another user.' : 'Administrators may choose another user.',
          ),
          field(
            'Project id',
            projectId,
            who.user.isAdmin ? undefined : 'Evaluating needs the design right: give a project you design.',
          ),
          h('div', { class: 'field checkbox' }, h('label', null, live, ' Live')),
          render,
        ),
        field('Request data (JSON)', data),
      ),
      h(
        'section',
        { class: 'pane', 'aria-label': 'Result' },
        h('h2', { class: 'pane-title' }, 'Output'),
        status,
        errorBox,
        output,
        h('details', null, h('summary', null, 'Variables'), variables),
        h('details', null, h('summary', null, 'Logs'), logs),
        h('details', null, h('summary', null, 'Response'), response),
      ),
    ),
  );

  let sequence = 0;
  async function run(): Promise<void> {
    const mine = ++sequence;
    let body: Record<string, unknown>;
    try {
      body = { template: editor.value(), mode: mode.value };
      const parsed = parseJsonField(data.value, 'Request data');
      if (parsed !== undefined) {
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          throw new Error('Request data: a JSON object is expected');
        body.data = parsed;
      }
      if (user.value !== who.user.login) body.user = user.value;
      if (projectId.value !== '') body.projectId = Number(projectId.value);
    } catch (e) {
      status.show(errorText(e), 'error');
      return;
    }
    status.show('Rendering…');
    try {
      const result = await api<EvalResult>('POST', '/eval', body);
      if (mine !== sequence) return; // a later render is under way
      show(result);
    } catch (e) {
      if (mine === sequence) status.show(errorText(e), 'error');
    }
  }

  function show(result: EvalResult): void {
    output.textContent = result.output;
    variables.textContent = pretty(result.variables);
    logs.replaceChildren(
      ...result.logs.map((l) => h('li', null, h('strong', null, l.level), ' ', l.message)),
    );
    response.textContent = pretty(result.response);
    const error = result.error;
    if (!error) {
      status.show(`Rendered: ${result.output.length} characters.`);
      errorBox.replaceChildren();
      editor.markError(null);
      return;
    }
    status.clear();
    editor.markError(error.line ?? null);
    const where = error.line !== undefined ? `Line ${error.line}, column ${error.column ?? 1}` : 'Error';
    errorBox.replaceChildren(
      h(
        'button',
        {
          type: 'button',
          class: 'error-position',
          onclick: () => error.line !== undefined && editor.moveTo(error.line, error.column ?? 1),
        },
        where,
      ),
      h('span', { class: 'error-message' }, `: ${error.message}`),
    );
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    if (!live.checked) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), LIVE_DELAY);
  };
  editor.onChange(schedule);
  for (const control of [mode, user, data, projectId]) control.addEventListener('input', schedule);
  render.addEventListener('click', () => void run());
  editor.textarea.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void run();
    }
  });

  const [functions] = await Promise.all([
    api<{ items: FunctionInfo[] }>('GET', '/functions').then((r) => r.items),
    who.user.isAdmin ? loadUsers(user, who.user.login) : Promise.resolve(),
  ]);
  const names = new Set(functions.flatMap((f) => [f.name, ...f.aliases]));
  editor.setFunctions(names);
  const reference = createReference(functions, (name) => {
    editor.textarea.focus();
    document.execCommand('insertText', false, `${name}(`);
  });
  attachCompletion(editor, functions, reference.show);
  main.querySelector('.playground')!.append(reference.element);
  await run();
}

async function loadUsers(select: HTMLSelectElement, self: string): Promise<void> {
  const page = await api<{ items: Array<{ login: string; name: string }> }>(
    'GET',
    '/users?nb=1000&orderby=login',
  );
  select.replaceChildren(
    ...page.items.map((u) =>
      h('option', { value: u.login, selected: u.login === self }, `${u.login} (${u.name})`),
    ),
  );
}
