/**
 * A tiny DOM builder for the console: elements with attributes, listeners and children. Text is
 * always set as text (never parsed as HTML), so values from the server cannot inject markup.
 */
export type Child = Node | string | number | null | undefined | false | Child[];
type AttrValue = string | number | boolean | null | undefined | ((event: never) => void);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, AttrValue> | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function')
      element.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    else if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let ids = 0;
/** A document-unique id for label/control pairs and ARIA references. */
export function uid(prefix: string): string {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** A labelled form control. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  control.id ||= uid('field');
  const hintId = hint ? uid('hint') : undefined;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: control.id }, label),
    control,
    hint ? h('small', { id: hintId, class: 'hint' }, hint) : null,
  );
}

/** A table of rows (cells are children), with a caption for screen readers. */
export function table(caption: string, headers: string[], rows: Child[][]): HTMLTableElement {
  return h(
    'table',
    null,
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        headers.map((text) => h('th', { scope: 'col' }, text)),
      ),
    ),
    h(
      'tbody',
      null,
      rows.length === 0
        ? h('tr', null, h('td', { colspan: headers.length, class: 'empty' }, 'Nothing yet.'))
        : rows.map((cells) =>
            h(
              'tr',
              null,
              cells.map((cell) => h('td', null, cell)),
            ),
          ),
    ),
  );
}

/** A live region: status for progress and results, alert for errors. */
export function messageArea(): HTMLElement & {
  show(text: string, kind?: 'ok' | 'error'): void;
  clear(): void;
} {
  const status = h('p', { class: 'message', role: 'status' });
  const area = Object.assign(status, {
    show(text: string, kind: 'ok' | 'error' = 'ok') {
      status.setAttribute('role', kind === 'error' ? 'alert' : 'status');
      status.className = `message ${kind}`;
      status.textContent = text;
    },
    clear() {
      status.className = 'message';
      status.textContent = '';
    },
  });
  return area;
}

export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export function when(epochMs: number | Date | null | undefined): string {
  if (epochMs === null || epochMs === undefined) return '';
  const date = epochMs instanceof Date ? epochMs : new Date(epochMs);
  return date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

/** Parses JSON typed by the user; the error names the field. */
export function parseJsonField(text: string, name: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}: ${(e as Error).message}`, { cause: e });
  }
}
