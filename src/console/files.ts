/**
 * Files: upload (multipart), the files the user may read, download links, and a file's rights
 * (READ/WRITE for users and lanes) with a form to grant or withdraw them (at #/files/<id>); delete
 * a file after a confirmation.
 */
import { api, bytesText, errorText, query, uploadWithProgress } from './api.js';
import { confirmButton, field, fill, h, messageArea, table, when } from './dom.js';
import { go, href, openById, type Navigate } from './route.js';

interface FileInfo {
  id: string;
  name: string;
  contentType: string;
  size: number;
  visibility: 'PRIVATE' | 'PUBLIC';
  updatedAt: number;
  ownerId: number | null;
}

interface Rights {
  user: { READ: number[]; WRITE: number[] };
  lane: { READ: number[]; WRITE: number[] };
}

const PAGE = 100;

export async function renderFiles(main: HTMLElement, rest: string[]): Promise<Navigate> {
  const message = messageArea();
  const list = h('div', { class: 'list' });
  const detail = h('section', { class: 'detail', 'aria-live': 'polite' });
  const chooser = h('input', { type: 'file', required: true });
  const visibility = h(
    'select',
    null,
    h('option', { value: 'PRIVATE' }, 'Private'),
    h('option', { value: 'PUBLIC' }, 'Public (the whole account reads it)'),
  );
  const send = h('button', { type: 'submit', class: 'primary' }, 'Upload');
  const bar = h('progress', { id: 'upload-progress', max: 1, value: 0 });
  const progress = h(
    'div',
    { class: 'progress', hidden: true },
    h('label', { for: 'upload-progress' }, 'Upload progress'),
    bar,
  );

  const form = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Upload a file',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const file = chooser.files?.[0];
        if (!file) return message.show('Choose a file first.', 'error');
        const data = new FormData();
        data.append('visibility', visibility.value);
        data.append('file', file, file.name);
        send.disabled = true;
        message.show(`Uploading ${file.name}…`);
        bar.max = file.size || 1;
        bar.value = 0;
        progress.hidden = false;
        try {
          const stored = await uploadWithProgress<FileInfo>('/files', data, (sent, total) => {
            bar.max = total;
            bar.value = sent;
            message.show(`Uploading ${file.name}: ${bytesText(sent, total)}`);
          });
          chooser.value = '';
          await refresh();
          select(stored);
          message.show(`Uploaded ${stored.name} (${stored.size} bytes).`);
        } catch (e) {
          message.show(errorText(e), 'error');
        } finally {
          send.disabled = false;
          progress.hidden = true;
        }
      },
    },
    field('File', chooser),
    field('Visibility', visibility),
    send,
    progress,
  );

  const select = (file: FileInfo) => go(href('files', file.id), () => openRights(file));

  async function refresh(): Promise<void> {
    const { items } = await api<{ items: FileInfo[] }>('GET', `/files${query({ nb: PAGE })}`);
    fill(
      list,
      h(
        'p',
        { class: 'meta', role: 'status' },
        `${items.length} file${items.length === 1 ? '' : 's'}${items.length === PAGE ? ` (the first ${PAGE})` : ''}`,
      ),
      table(
        'Files',
        ['Name', 'Type', 'Size', 'Visibility', 'Updated', '', ''],
        items.map((f) => [
          h('a', { href: `/api/v1/files/${encodeURIComponent(f.id)}/content`, download: f.name }, f.name),
          f.contentType,
          `${f.size} B`,
          f.visibility,
          when(f.updatedAt),
          h('button', { type: 'button', class: 'link', onclick: () => select(f) }, 'Rights'),
          confirmButton(
            'Delete',
            `Delete file ${f.name}`,
            `Delete the file ${f.name} (${f.size} bytes)? This cannot be undone.`,
            async () => {
              await api('DELETE', `/files/${encodeURIComponent(f.id)}`);
              await refresh();
              if (location.hash === href('files', f.id)) go(href('files'));
              message.show(`File ${f.name} deleted.`);
            },
            (e) => message.show(errorText(e), 'error'),
          ),
        ]),
      ),
      items.length === 0 ? h('p', { class: 'meta' }, 'No file yet: upload one above.') : null,
    );
  }

  async function openRights(file: FileInfo): Promise<void> {
    const path = `/files/${encodeURIComponent(file.id)}/rights`;
    const status = messageArea();
    const grid = h('div');
    const op = h(
      'select',
      null,
      h('option', { value: 'add' }, 'Grant'),
      h('option', { value: 'remove' }, 'Withdraw'),
    );
    const access = h(
      'select',
      null,
      h('option', { value: 'READ' }, 'READ'),
      h('option', { value: 'WRITE' }, 'WRITE'),
    );
    const kind = h(
      'select',
      null,
      h('option', { value: 'user' }, 'users'),
      h('option', { value: 'lane' }, 'lanes'),
    );
    const principals = h('input', { required: true, autocomplete: 'off', placeholder: 'ann, 12' });

    const show = (rights: Rights) =>
      fill(
        grid,
        table(
          `Rights on ${file.name}`,
          ['', 'READ', 'WRITE'],
          [
            ['Users', rights.user.READ.join(', ') || '—', rights.user.WRITE.join(', ') || '—'],
            ['Lanes', rights.lane.READ.join(', ') || '—', rights.lane.WRITE.join(', ') || '—'],
          ],
        ),
      );

    fill(
      detail,
      h('h2', null, `Rights on ${file.name}`),
      h(
        'p',
        { class: 'meta' },
        `File ${file.id} · ${file.visibility} · the owner and administrators always have every right.`,
      ),
      grid,
      h(
        'form',
        {
          class: 'inline',
          'aria-label': 'Change rights',
          onsubmit: async (event: Event) => {
            event.preventDefault();
            const names = principals.value
              .split(',')
              .map((p) => p.trim())
              .filter(Boolean)
              .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
            try {
              show(
                await api<Rights>('POST', path, {
                  op: op.value,
                  kind: kind.value,
                  access: access.value,
                  principals: names,
                }),
              );
              status.show('Rights changed.');
              principals.value = '';
            } catch (e) {
              status.show(errorText(e), 'error');
            }
          },
        },
        field('Change', op),
        field('Right', access),
        field('To', kind),
        field('Users or lanes (logins or ids)', principals),
        h('button', { type: 'submit' }, 'Apply'),
      ),
      status,
    );
    try {
      show(await api<Rights>('GET', path));
    } catch (e) {
      status.show(errorText(e), 'error');
    }
  }

  main.append(message, form, list, detail);
  await refresh();
  const navigate = openById<FileInfo>(detail, '/files', openRights);
  await navigate(rest);
  return navigate;
}
