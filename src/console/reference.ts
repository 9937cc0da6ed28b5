/**
 * The function reference of the playground: a searchable list of the library's functions by
 * group, and the details of one (forms, parameters, flags, documentation).
 */
import type { FunctionInfo } from './completion.js';
import { field, fill, h, uid } from './dom.js';

export interface Reference {
  element: HTMLElement;
  show(info: FunctionInfo): void;
}

export function createReference(
  functions: readonly FunctionInfo[],
  insert: (name: string) => void,
): Reference {
  const search = h('input', { type: 'search', placeholder: 'name or word', autocomplete: 'off' });
  const listId = uid('functions');
  const list = h('ul', { id: listId, class: 'function-list' });
  const details = h('section', {
    class: 'function-details',
    'aria-live': 'polite',
    'aria-label': 'Function details',
  });

  function renderList(): void {
    const words = search.value.trim().toLowerCase();
    const matching = functions.filter(
      (f) =>
        words === '' ||
        f.name.toLowerCase().includes(words) ||
        f.aliases.some((a) => a.toLowerCase().includes(words)) ||
        f.doc.toLowerCase().includes(words),
    );
    const groups = [...new Set(matching.map((f) => f.group))];
    list.replaceChildren(
      ...groups.map((group) =>
        h(
          'li',
          null,
          h('span', { class: 'group' }, group),
          h(
            'ul',
            null,
            matching
              .filter((f) => f.group === group)
              .map((f) =>
                h('li', null, h('button', { type: 'button', class: 'link', onclick: () => show(f) }, f.name)),
              ),
          ),
        ),
      ),
    );
    if (matching.length === 0) list.append(h('li', { class: 'empty' }, 'No function matches.'));
  }

  function show(info: FunctionInfo): void {
    fill(
      details,
      h('h3', null, info.name),
      info.aliases.length ? h('p', { class: 'aliases' }, `Also: ${info.aliases.join(', ')}`) : null,
      h(
        'p',
        { class: 'meta' },
        `${info.group} · returns ${info.returns}${info.flags.length ? ` · ${info.flags.join(', ')}` : ''}`,
      ),
      info.forms.map((form) =>
        h(
          'div',
          { class: 'form' },
          h('code', { class: 'signature' }, form.signature + (form.deprecated ? '  (deprecated)' : '')),
          form.params.length
            ? h(
                'dl',
                null,
                form.params.map((p) => [
                  h('dt', null, `${p.name}${p.optional ? '?' : ''}${p.variadic ? '…' : ''}: ${p.type}`),
                  h(
                    'dd',
                    null,
                    p.doc ?? '',
                    p.default !== undefined ? ` (default ${JSON.stringify(p.default)})` : '',
                  ),
                ]),
              )
            : null,
        ),
      ),
      h('p', { class: 'doc' }, info.doc),
      h('button', { type: 'button', onclick: () => insert(info.name) }, `Insert ${info.name}(`),
    );
  }

  search.addEventListener('input', renderList);
  renderList();
  details.append(h('p', { class: 'hint' }, 'Choose a function, or type its first letters in the editor.'));
  const element = h(
    'section',
    { class: 'reference', 'aria-labelledby': `${listId}-title` },
    h('h2', { id: `${listId}-title` }, 'Function reference'),
    field('Search functions', search),
    h('nav', { 'aria-label': 'Functions by group' }, list),
    details,
  );
  return { element, show };
}
