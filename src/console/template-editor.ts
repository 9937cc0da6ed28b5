/**
 * The playground's editor for the pages that store a template (composite APIs, web interfaces):
 * the same highlighting, line numbers and function completion (editor.ts, completion.ts), with
 * the chosen function's signature shown under it instead of the full reference.
 */
import { api } from './api.js';
import { attachCompletion, type FunctionInfo } from './completion.js';
import { h, uid } from './dom.js';
import { createEditor, type Editor } from './editor.js';

let registry: Promise<FunctionInfo[]> | undefined;

/** The library's functions (GET /api/v1/functions), fetched once per page load. */
function functions(): Promise<FunctionInfo[]> {
  registry ??= api<{ items: FunctionInfo[] }>('GET', '/functions').then(
    (r) => r.items,
    (e: unknown) => {
      registry = undefined; // a later page may try again
      throw e;
    },
  );
  return registry;
}

export interface TemplateEditor {
  editor: Editor;
  /** The editor and the line naming the function chosen in the completion list. */
  element: HTMLElement;
}

export async function createTemplateEditor(label: string, initial: string): Promise<TemplateEditor> {
  const editor = createEditor({ id: uid('template'), label, initial });
  const hint = h('p', { class: 'hint', 'aria-live': 'polite' });
  const all = await functions();
  editor.setFunctions(new Set(all.flatMap((f) => [f.name, ...f.aliases])));
  attachCompletion(editor, all, (info) => {
    hint.textContent = `${info.forms.map((f) => f.signature).join(' | ')} — ${info.doc.split('\n')[0]}`;
  });
  return { editor, element: h('div', { class: 'template-editor' }, editor.element, hint) };
}
