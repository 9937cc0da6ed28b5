/**
 * Function autocompletion in the editor, from the registry (GET /api/v1/functions): typing two
 * letters of a name (or Ctrl+Space) lists the functions starting so; ↑/↓ choose, Enter or Tab
 * insert `name(`, Escape closes. The textarea is the list's combobox (aria-activedescendant),
 * and the chosen function is shown in the reference panel.
 */
import type { FunctionDescription } from '../functions/docs.js';
import { h, uid } from './dom.js';
import type { Editor } from './editor.js';

/** A function as GET /api/v1/functions describes it (the registry's description; a type only). */
export type FunctionInfo = FunctionDescription;

const MAX_OPTIONS = 12;

/** The functions whose name or an alias starts with `prefix` (any case), names first. */
export function matchFunctions(
  functions: readonly FunctionInfo[],
  prefix: string,
): Array<{ name: string; info: FunctionInfo }> {
  const p = prefix.toLowerCase();
  const found: Array<{ name: string; info: FunctionInfo }> = [];
  for (const info of functions) {
    if (info.name.toLowerCase().startsWith(p)) found.push({ name: info.name, info });
    for (const alias of info.aliases)
      if (alias.toLowerCase().startsWith(p)) found.push({ name: alias, info });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name)).slice(0, MAX_OPTIONS);
}

export function attachCompletion(
  editor: Editor,
  functions: readonly FunctionInfo[],
  onActive: (info: FunctionInfo) => void,
): void {
  const textarea = editor.textarea;
  const list = h('ul', {
    id: uid('completion'),
    role: 'listbox',
    class: 'completion',
    'aria-label': 'Functions',
    hidden: true,
  });
  editor.overlay.append(list);
  textarea.setAttribute('role', 'combobox');
  textarea.setAttribute('aria-autocomplete', 'list');
  textarea.setAttribute('aria-controls', list.id);
  textarea.setAttribute('aria-expanded', 'false');

  let options: Array<{ name: string; info: FunctionInfo }> = [];
  let active = 0;
  let prefixStart = 0;

  function prefixAtCaret(): { start: number; text: string } | null {
    const caret = textarea.selectionStart;
    if (caret !== textarea.selectionEnd) return null;
    const before = textarea.value.slice(0, caret);
    const m = /[A-Za-z_][A-Za-z0-9_]*$/.exec(before);
    const text = m ? m[0] : '';
    const start = caret - text.length;
    const previous = before[start - 1];
    // Not after ?, . or a letter-like character: built-ins and members are not functions.
    if (previous !== undefined && /[?.\w$]/.test(previous)) return null;
    return { start, text };
  }

  function open(force: boolean): void {
    const prefix = prefixAtCaret();
    if (!prefix || (!force && prefix.text.length < 2)) return close();
    options = matchFunctions(functions, prefix.text);
    if (options.length === 0) return close();
    prefixStart = prefix.start;
    active = 0;
    list.replaceChildren(
      ...options.map((o, i) =>
        h(
          'li',
          {
            id: `${list.id}-${i}`,
            role: 'option',
            'aria-selected': String(i === active),
            onmousedown: (e: MouseEvent) => {
              e.preventDefault();
              active = i;
              accept();
            },
          },
          h('span', { class: 'completion-name' }, o.name),
          h('span', { class: 'completion-group' }, o.info.group),
        ),
      ),
    );
    const at = editor.caretPosition();
    list.style.top = `${at.top + 2}px`;
    list.style.left = `${Math.max(0, at.left)}px`;
    list.hidden = false;
    textarea.setAttribute('aria-expanded', 'true');
    highlight();
  }

  function close(): void {
    if (list.hidden) return;
    list.hidden = true;
    options = [];
    textarea.setAttribute('aria-expanded', 'false');
    textarea.removeAttribute('aria-activedescendant');
  }

  function highlight(): void {
    Array.from(list.children).forEach((li, i) => li.setAttribute('aria-selected', String(i === active)));
    const current = list.children[active] as HTMLElement | undefined;
    if (current) {
      textarea.setAttribute('aria-activedescendant', current.id);
      current.scrollIntoView({ block: 'nearest' });
      onActive(options[active]!.info);
    }
  }

  function accept(): void {
    const chosen = options[active];
    if (!chosen) return close();
    textarea.focus();
    textarea.setSelectionRange(prefixStart, textarea.selectionStart);
    // execCommand keeps the change in the textarea's undo history (and fires input).
    if (!document.execCommand('insertText', false, `${chosen.name}(`)) {
      textarea.setRangeText(`${chosen.name}(`, prefixStart, textarea.selectionEnd, 'end');
      textarea.dispatchEvent(new Event('input'));
    }
    close();
  }

  textarea.addEventListener('input', () => open(false));
  textarea.addEventListener('blur', close);
  textarea.addEventListener('click', close);
  textarea.addEventListener(
    'keydown',
    (event) => {
      if (event.key === ' ' && event.ctrlKey) {
        event.preventDefault();
        open(true);
        return;
      }
      if (list.hidden) return;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        active = (active + (event.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length;
        highlight();
      } else if (event.key === 'Enter' || event.key === 'Tab') {
        event.preventDefault();
        accept();
      } else if (event.key === 'Escape') {
        event.preventDefault();
        close();
      }
    },
    true,
  ); // capture: before the editor's own Tab handling
}
