/**
 * The playground's template editor: a plain textarea (so editing, undo, selection and screen
 * readers work as usual) over a highlighted copy of its text, with line numbers and a marker on
 * the line of the last error.
 */
import { h } from './dom.js';
import { tokenize } from './highlight.js';

export interface Editor {
  readonly element: HTMLElement;
  readonly textarea: HTMLTextAreaElement;
  /** The area completion popups are placed in (positioned, scrolls with nothing). */
  readonly overlay: HTMLElement;
  value(): string;
  /** Marks a line (1-based) as the error's, or clears the mark (null). */
  markError(line: number | null): void;
  /** Puts the caret at a line and column (1-based) and scrolls it into view. */
  moveTo(line: number, column: number): void;
  /** Where the caret is drawn, in pixels from the overlay's top-left corner. */
  caretPosition(): { top: number; left: number };
  setFunctions(names: ReadonlySet<string>): void;
  onChange(listener: () => void): void;
}

export function createEditor(options: { id: string; label: string; initial: string }): Editor {
  let functions: ReadonlySet<string> = new Set();
  let errorLine: number | null = null;
  const listeners: Array<() => void> = [];

  const textarea = h('textarea', {
    id: options.id,
    class: 'editor-input',
    spellcheck: 'false',
    autocapitalize: 'off',
    autocomplete: 'off',
    wrap: 'off',
    'aria-label': options.label,
    'aria-multiline': 'true',
  });
  textarea.value = options.initial;
  const code = h('code', null);
  const marker = h('div', { class: 'error-line', hidden: true });
  const highlighted = h('pre', { class: 'editor-highlight', 'aria-hidden': 'true' }, marker, code);
  const gutter = h('pre', { class: 'editor-gutter', 'aria-hidden': 'true' });
  const overlay = h('div', { class: 'editor-overlay' });
  const element = h(
    'div',
    { class: 'editor' },
    gutter,
    h('div', { class: 'editor-body' }, highlighted, textarea),
    overlay,
  );

  function paint(): void {
    const text = textarea.value;
    code.replaceChildren(
      ...tokenize(text, functions).map((t) =>
        t.kind === 'text' ? document.createTextNode(t.text) : h('span', { class: `tok-${t.kind}` }, t.text),
      ),
      // A final newline keeps the last (empty) line as tall as the textarea's.
      document.createTextNode('\n'),
    );
    const lines = text.split('\n').length;
    gutter.replaceChildren(
      ...Array.from({ length: lines }, (_, i) =>
        h('span', { class: i + 1 === errorLine ? 'gutter-error' : null }, `${i + 1}\n`),
      ),
    );
    marker.hidden = errorLine === null || errorLine > lines;
    if (errorLine !== null)
      marker.style.top = `${metrics().padTop + (errorLine - 1) * metrics().lineHeight}px`;
    syncScroll();
  }

  function syncScroll(): void {
    highlighted.scrollTop = textarea.scrollTop;
    highlighted.scrollLeft = textarea.scrollLeft;
    gutter.scrollTop = textarea.scrollTop;
  }

  function metrics(): { lineHeight: number; charWidth: number; padTop: number; padLeft: number } {
    const style = getComputedStyle(textarea);
    const probe = h('span', { class: 'editor-probe' }, 'x'.repeat(100));
    highlighted.append(probe);
    const charWidth = probe.getBoundingClientRect().width / 100 || 8;
    probe.remove();
    return {
      lineHeight: parseFloat(style.lineHeight) || 20,
      charWidth,
      padTop: parseFloat(style.paddingTop) || 0,
      padLeft: parseFloat(style.paddingLeft) || 0,
    };
  }

  textarea.addEventListener('input', () => {
    paint();
    for (const listener of listeners) listener();
  });
  textarea.addEventListener('scroll', syncScroll);
  // Tab indents (Escape then Tab leaves the editor, as in other code editors).
  let escaped = false;
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') escaped = true;
    else if (event.key === 'Tab' && !event.shiftKey && !escaped && !event.defaultPrevented) {
      event.preventDefault();
      document.execCommand('insertText', false, '  ');
    } else escaped = false;
  });
  paint();

  return {
    element,
    textarea,
    overlay,
    value: () => textarea.value,
    markError(line) {
      errorLine = line;
      paint();
    },
    moveTo(line, column) {
      const lines = textarea.value.split('\n');
      let offset = 0;
      for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i]!.length + 1;
      offset += Math.max(0, column - 1);
      textarea.focus();
      textarea.setSelectionRange(offset, offset);
      const m = metrics();
      const top = (line - 1) * m.lineHeight;
      if (top < textarea.scrollTop || top > textarea.scrollTop + textarea.clientHeight - m.lineHeight)
        textarea.scrollTop = Math.max(0, top - textarea.clientHeight / 2);
      syncScroll();
    },
    caretPosition() {
      const before = textarea.value.slice(0, textarea.selectionStart);
      const line = before.split('\n').length - 1;
      const column = before.length - before.lastIndexOf('\n') - 1;
      const m = metrics();
      return {
        top: m.padTop + (line + 1) * m.lineHeight - textarea.scrollTop,
        left: gutter.offsetWidth + m.padLeft + column * m.charWidth - textarea.scrollLeft,
      };
    },
    setFunctions(names) {
      functions = names;
      paint();
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
