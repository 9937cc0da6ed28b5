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

/** Previous / Next over a list served in pages of `size`, with its "a–b of n" text. */
export interface Pager {
  readonly previous: HTMLButtonElement;
  readonly next: HTMLButtonElement;
  readonly info: HTMLElement;
  /** The offset of the page shown (the API's `first`). */
  first: number;
  /** After a page of `shown` items out of `total` arrived: the text (`none` when empty) and the buttons. */
  show(shown: number, total: number, none: string): void;
}

/** A pager whose buttons move `first` and call `reload`; `announce` makes its text a status. */
export function pager(size: number, reload: () => void, announce = false): Pager {
  const state: Pager = {
    previous: h('button', { type: 'button' }, 'Previous'),
    next: h('button', { type: 'button' }, 'Next'),
    info: h('span', announce ? { class: 'page-info', role: 'status' } : { class: 'page-info' }),
    first: 0,
    show(shown, total, none) {
      state.info.textContent = total ? `${state.first + 1}–${state.first + shown} of ${total}` : none;
      state.previous.disabled = state.first === 0;
      state.next.disabled = state.first + size >= total;
    },
  };
  state.previous.addEventListener('click', () => ((state.first = Math.max(0, state.first - size)), reload()));
  state.next.addEventListener('click', () => ((state.first += size), reload()));
  return state;
}

/** Newer / Older over a list the API pages by keyset: `before=` the last item of a page, its `next`. */
export interface KeysetPager<K> {
  readonly newer: HTMLButtonElement;
  readonly older: HTMLButtonElement;
  /** The `before` of the page to read (undefined: the first page). */
  readonly before: K | undefined;
  /** How many pages come before the one shown. */
  readonly depth: number;
  /** Back to the first page (the filters changed). */
  reset(): void;
  /** After a page arrived: its `next` (undefined: no older page), and the buttons. */
  show(next: K | undefined): void;
}

/** A keyset pager whose buttons, labelled `newer` and `older`, move a page and call `reload`. */
export function keysetPager<K>(newerLabel: string, olderLabel: string, reload: () => void): KeysetPager<K> {
  const newer = h('button', { type: 'button', disabled: true }, newerLabel);
  const older = h('button', { type: 'button', disabled: true }, olderLabel);
  /** The `before` of each page before the one shown (undefined: the first page). */
  let pages: (K | undefined)[] = [];
  let before: K | undefined;
  let next: K | undefined;
  older.addEventListener('click', () => {
    if (next === undefined) return;
    pages.push(before);
    before = next;
    reload();
  });
  newer.addEventListener('click', () => {
    before = pages.pop();
    reload();
  });
  return {
    newer,
    older,
    get before() {
      return before;
    },
    get depth() {
      return pages.length;
    },
    reset() {
      pages = [];
      before = undefined;
    },
    show(given) {
      next = given;
      newer.disabled = pages.length === 0;
      older.disabled = next === undefined;
    },
  };
}

/** A destructive button: asks `question` first, then runs `action`; an error goes to `failed`. */
export function confirmButton(
  text: string,
  ariaLabel: string,
  question: string,
  action: () => Promise<void>,
  failed: (error: unknown) => void,
): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'link danger',
      'aria-label': ariaLabel,
      onclick: async () => {
        if (!window.confirm(question)) return;
        try {
          await action();
        } catch (e) {
          failed(e);
        }
      },
    },
    text,
  );
}
