/**
 * Collections: the account's collections with their document counts; create one; in a collection,
 * find documents with a MongoDB query and sort, insert documents, and list, create and delete its
 * indexes; delete a collection or a document after a confirmation. A collection's address is
 * #/collections/<name>.
 */
import type { Static } from 'typebox';
import type { CollectionInfo as CollectionSchema, IndexDescriptor } from '../server/schemas.js';
import { api, bytesText, errorText, query, uploadStreamed } from './api.js';
import { confirmButton, field, fill, h, messageArea, parseJsonField, pretty, table, when } from './dom.js';
import { go, href, startOpening, type Navigate } from './route.js';

// The JSON API's bodies, as types of its schemas (nothing of the server is loaded).
type CollectionInfo = Static<typeof CollectionSchema>;
type IndexInfo = Static<typeof IndexDescriptor>;

export async function renderCollections(main: HTMLElement, rest: string[]): Promise<Navigate> {
  const list = h('div', { class: 'list' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });
  const message = messageArea();

  const name = h('input', { required: true, pattern: '[A-Za-z0-9_.\\-]+', autocomplete: 'off' });
  const isPublic = h('input', { type: 'checkbox' });
  const isReadonly = h('input', { type: 'checkbox' });
  const create = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Create a collection',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          await api('POST', '/collections', {
            name: name.value,
            isPublic: isPublic.checked,
            isReadonly: isReadonly.checked,
          });
          message.show(`Collection ${name.value} created.`);
          const created = name.value;
          name.value = '';
          await refresh();
          select(created);
        } catch (e) {
          message.show(errorText(e), 'error');
        }
      },
    },
    field('New collection', name),
    h('div', { class: 'field checkbox' }, h('label', null, isPublic, ' Public')),
    h('div', { class: 'field checkbox' }, h('label', null, isReadonly, ' Read-only')),
    h('button', { type: 'submit' }, 'Create'),
  );

  const select = (collection: string) => go(href('collections', collection), () => open(collection));

  async function refresh(): Promise<void> {
    const { items } = await api<{ items: CollectionInfo[] }>('GET', '/collections');
    fill(
      list,
      table(
        'Collections',
        ['Name', 'Documents', 'Public', 'Read-only', 'Created', ''],
        items.map((c) => [
          h('button', { type: 'button', class: 'link', onclick: () => select(c.name) }, c.name),
          String(c.documents ?? ''),
          c.isPublic ? 'yes' : 'no',
          c.isReadonly ? 'yes' : 'no',
          when(c.createdAt),
          confirmButton(
            'Delete',
            `Delete collection ${c.name}`,
            `Delete the collection ${c.name} with its ${c.documents ?? ''} documents and its indexes? This cannot be undone.`,
            async () => {
              await api('DELETE', `/collections/${encodeURIComponent(c.name)}`);
              await refresh();
              if (location.hash === href('collections', c.name)) go(href('collections'));
              message.show(`Collection ${c.name} deleted.`);
            },
            (e) => message.show(errorText(e), 'error'),
          ),
        ]),
      ),
      items.length === 0
        ? h('p', { class: 'meta' }, 'No collection yet: create one above, then insert or import documents.')
        : null,
    );
  }

  async function open(collection: string): Promise<void> {
    const latest = startOpening(detail);
    const path = `/collections/${encodeURIComponent(collection)}`;
    try {
      await api('GET', path);
    } catch (e) {
      if (latest()) fill(detail, h('p', { class: 'message error', role: 'alert' }, errorText(e)));
      return;
    }
    if (!latest()) return;
    const queryText = h('textarea', { class: 'json', rows: 3, spellcheck: 'false' });
    queryText.value = '{}';
    const sortText = h('textarea', { class: 'json', rows: 1, spellcheck: 'false' });
    const first = h('input', { type: 'number', min: 0, value: 0 });
    const nb = h('input', { type: 'number', min: 1, max: 1000, value: 20 });
    const results = h('div', { class: 'results' });
    const found = messageArea();
    const documents = h('textarea', { class: 'json', rows: 3, spellcheck: 'false' });
    const inserted = messageArea();
    const indexes = h('div');
    const indexName = h('input', { required: true, autocomplete: 'off' });
    const indexKeys = h('input', { required: true, autocomplete: 'off', placeholder: 'ref, customer.id' });
    const unique = h('input', { type: 'checkbox' });
    const indexMessage = messageArea();

    async function find(): Promise<void> {
      try {
        const q = parseJsonField(queryText.value, 'Query') ?? {};
        const sort = parseJsonField(sortText.value, 'Sort');
        const page = await api<{ items: unknown[] }>(
          'GET',
          `${path}/documents${query({
            query: JSON.stringify(q),
            sort: sort === undefined ? undefined : JSON.stringify(sort),
            first: first.value,
            nb: nb.value,
          })}`,
        );
        found.show(`${page.items.length} document${page.items.length === 1 ? '' : 's'}.`);
        fill(
          results,
          page.items.map((d) => {
            const id = (d as { _id?: unknown })._id;
            return h(
              'div',
              { class: 'document-row' },
              h('pre', { class: 'document' }, pretty(d)),
              typeof id === 'string'
                ? confirmButton(
                    'Delete',
                    `Delete document ${id}`,
                    `Delete the document ${id} of ${collection}? This cannot be undone.`,
                    async () => {
                      await api('DELETE', `${path}/documents/${encodeURIComponent(id)}`);
                      await Promise.all([find(), refresh()]);
                      found.show(`Document ${id} deleted.`);
                    },
                    (e) => found.show(errorText(e), 'error'),
                  )
                : null,
            );
          }),
        );
      } catch (e) {
        found.show(errorText(e), 'error');
        fill(results);
      }
    }

    async function listIndexes(): Promise<void> {
      const { items } = await api<{ items: IndexInfo[] }>('GET', `${path}/indexes`);
      fill(
        indexes,
        table(
          `Indexes of ${collection}`,
          ['Name', 'Keys', 'Unique', 'Ascending', ''],
          items.map((i) => [
            i.name,
            i.keys.join(', '),
            i.unique ? 'yes' : 'no',
            i.ascending ? 'yes' : 'no',
            i.name === '_id_'
              ? ''
              : h(
                  'button',
                  {
                    type: 'button',
                    class: 'link danger',
                    'aria-label': `Delete index ${i.name}`,
                    onclick: async () => {
                      try {
                        await api('DELETE', `${path}/indexes/${encodeURIComponent(i.name)}`);
                        await listIndexes();
                        indexMessage.show(`Index ${i.name} deleted.`);
                      } catch (e) {
                        indexMessage.show(errorText(e), 'error');
                      }
                    },
                  },
                  'Delete',
                ),
          ]),
        ),
      );
    }

    fill(
      detail,
      h('h2', null, `Collection ${collection}`),
      h(
        'form',
        {
          'aria-label': 'Find documents',
          onsubmit: (e: Event) => {
            e.preventDefault();
            void find();
          },
        },
        h('h3', null, 'Find'),
        field('Query (MongoDB syntax)', queryText, 'For example {"status": "open", "total": {"$gt": 10}}'),
        h(
          'div',
          { class: 'row' },
          field('Sort', sortText, '{"total": -1}'),
          field('First', first),
          field('Number', nb),
          h('button', { type: 'submit', class: 'primary' }, 'Find'),
        ),
        found,
        results,
      ),
      h(
        'form',
        {
          'aria-label': 'Insert documents',
          onsubmit: async (e: Event) => {
            e.preventDefault();
            try {
              const docs = parseJsonField(documents.value, 'Documents');
              if (docs === undefined) throw new Error('Documents: a JSON object or array is expected');
              const { items } = await api<{ items: unknown[] }>('POST', `${path}/documents`, docs);
              documents.value = '';
              await Promise.all([find(), refresh()]);
              inserted.show(`${items.length} document${items.length === 1 ? '' : 's'} saved.`);
            } catch (err) {
              inserted.show(errorText(err), 'error');
            }
          },
        },
        h('h3', null, 'Insert'),
        field('Documents (an object or an array)', documents),
        h('button', { type: 'submit' }, 'Save documents'),
        inserted,
      ),
      importForm(path, () => Promise.all([find(), refresh()]).then(() => undefined)),
      h(
        'section',
        { 'aria-label': 'Indexes' },
        h('h3', null, 'Indexes'),
        indexes,
        h(
          'form',
          {
            class: 'inline',
            'aria-label': 'Create an index',
            onsubmit: async (e: Event) => {
              e.preventDefault();
              try {
                const keys = indexKeys.value
                  .split(',')
                  .map((k) => k.trim())
                  .filter(Boolean);
                const created = indexName.value;
                await api('POST', `${path}/indexes`, { name: created, keys, unique: unique.checked });
                indexName.value = '';
                indexKeys.value = '';
                // The list first, then the message: what the message announces is on the page.
                await listIndexes();
                indexMessage.show(`Index ${created} created.`);
              } catch (err) {
                indexMessage.show(errorText(err), 'error');
              }
            },
          },
          field('Index name', indexName),
          field('Keys (comma-separated)', indexKeys),
          h('div', { class: 'field checkbox' }, h('label', null, unique, ' Unique')),
          h('button', { type: 'submit' }, 'Create index'),
        ),
        indexMessage,
      ),
    );
    await Promise.all([find(), listIndexes()]);
  }

  main.append(message, create, list, detail);
  await refresh();
  const navigate: Navigate = ([name]) =>
    name === undefined ? (startOpening(detail), fill(detail)) : open(name);
  await navigate(rest);
  return navigate;
}

/**
 * Imports a CSV or JSON file like import_objects (POST …/import, all or nothing), with the
 * upload's progress, then the documents imported so far as the server streams them.
 */
function importForm(path: string, after: () => Promise<void>): HTMLElement {
  const chooser = h('input', {
    type: 'file',
    required: true,
    accept: '.csv,.json,.txt,text/csv,application/json',
  });
  const options = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const bar = h('progress', { id: 'import-progress', max: 1, value: 0 });
  const progress = h(
    'div',
    { class: 'progress', hidden: true },
    h('label', { for: 'import-progress' }, 'Import progress'),
    bar,
  );
  const status = messageArea();
  const send = h('button', { type: 'submit' }, 'Import');
  return h(
    'form',
    {
      'aria-label': 'Import a file',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const file = chooser.files?.[0];
        if (!file) return status.show('Choose a file first.', 'error');
        const data = new FormData();
        if (options.value.trim() !== '') data.append('options', options.value);
        data.append('file', file, file.name);
        send.disabled = true;
        progress.hidden = false;
        bar.max = file.size || 1;
        bar.value = 0;
        status.show(`Uploading ${file.name}…`);
        try {
          const { imported } = await uploadStreamed<{ imported: number }>(
            `${path}/import`,
            data,
            (sent, total) => {
              bar.max = total;
              bar.value = sent;
              status.show(
                sent < total
                  ? `Uploading ${file.name}: ${bytesText(sent, total)}`
                  : `Importing ${file.name}…`,
              );
            },
            (line) => {
              if (typeof line.documents === 'number')
                status.show(`Importing ${file.name}: ${line.documents} documents so far…`);
            },
          );
          chooser.value = '';
          await after();
          status.show(`${imported} document${imported === 1 ? '' : 's'} imported from ${file.name}.`);
        } catch (err) {
          status.show(errorText(err), 'error');
        } finally {
          send.disabled = false;
          progress.hidden = true;
        }
      },
    },
    h('h3', null, 'Import a file'),
    h(
      'div',
      { class: 'row' },
      field('CSV or JSON file', chooser),
      field(
        'Options (JSON)',
        options,
        '{"format": "JSON"} or {"separator": ";", "parse_numbers": ["price"]}',
      ),
      send,
    ),
    progress,
    status,
  );
}
