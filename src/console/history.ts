/**
 * The History view of a designed artefact (docs/console.md): its saved versions newest first, a
 * page at a time (who, when); a line diff between a version and the current one; and Restore,
 * which saves that version again as a new one (POST …/versions/N/restore: the caller's own save).
 */
import { api, errorText, query } from './api.js';
import { fill, h, messageArea, table, when } from './dom.js';
import { lineDiff } from './line-diff.js';

interface Summary {
  version: number;
  author: { id: number | null; login: string };
  createdAt: number;
}

interface Version extends Summary {
  body: unknown;
}

const PAGE = 20;

export interface HistoryOptions<T> {
  /** The artefact's API path below /api/v1: `/composite-apis/3`, `/web-interfaces/4/template`. */
  base: string;
  /** What a restore answered (the artefact as saved again): the page shows it. */
  restored: (answer: T) => void | Promise<void>;
}

/** The text of a version that the diff compares: a BPMN document, a template with its fields, else JSON. */
export function versionText(body: unknown): string {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const entries: Array<[string, unknown]> = Object.entries(body);
    const value = (key: string) => entries.find(([k]) => k === key)?.[1];
    const bpmn = value('bpmn');
    if (typeof bpmn === 'string') return bpmn;
    const template = value('template');
    if (typeof template === 'string') {
      const fields = entries.filter(([k]) => k !== 'template').map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
      return [...fields, ...(fields.length ? [''] : []), template].join('\n');
    }
  }
  return JSON.stringify(body, null, 2);
}

/** A section with a "History" button that opens the artefact's versions. */
export function historySection<T>(options: HistoryOptions<T>): HTMLElement {
  const section = h('section', { class: 'history', 'aria-label': 'History' });
  const message = messageArea();
  const list = h('div');
  const diff = h('div');
  const older = h('button', { type: 'button', hidden: true }, 'Older versions');
  let before: number | undefined;
  let latest: Version | undefined;

  async function load(more: boolean): Promise<void> {
    message.clear();
    try {
      const page = await api<{ items: Summary[]; next?: number }>(
        'GET',
        `${options.base}/versions${query({ limit: PAGE, before: more ? before : undefined })}`,
      );
      if (!more) {
        fill(list);
        fill(diff);
        latest =
          page.items[0] && (await api<Version>('GET', `${options.base}/versions/${page.items[0].version}`));
      }
      before = page.next;
      older.hidden = page.next === undefined;
      const rows = page.items.map((v) => [
        String(v.version),
        v.author.login,
        when(v.createdAt),
        v.version === latest?.version
          ? 'current'
          : h(
              'span',
              null,
              h(
                'button',
                { type: 'button', class: 'link', onclick: () => void show(v.version) },
                `Diff ${v.version}`,
              ),
              ' ',
              h(
                'button',
                { type: 'button', class: 'link', onclick: () => void restore(v.version) },
                `Restore ${v.version}`,
              ),
            ),
      ]);
      const shown = list.querySelector('tbody');
      if (more && shown) {
        const extra = table('Versions', ['Version', 'Saved by', 'Saved at', ''], rows).querySelector(
          'tbody',
        )!;
        shown.append(...Array.from(extra.children));
      } else fill(list, table('Versions', ['Version', 'Saved by', 'Saved at', ''], rows));
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  async function show(version: number): Promise<void> {
    try {
      const chosen = await api<Version>('GET', `${options.base}/versions/${version}`);
      const lines = lineDiff(versionText(chosen.body), versionText(latest?.body ?? null));
      const changed = lines.filter((l) => l.kind !== 'same').length;
      fill(
        diff,
        h('h4', null, `Version ${version} → current (version ${latest?.version})`),
        h('p', { class: 'meta' }, changed === 0 ? 'No difference.' : `${changed} lines differ.`),
        h(
          'pre',
          { class: 'diff', 'aria-label': `Diff of version ${version}` },
          lines.map((l) =>
            h(
              'span',
              { class: `diff-${l.kind}` },
              `${l.kind === 'removed' ? '-' : l.kind === 'added' ? '+' : ' '} ${l.text}\n`,
            ),
          ),
        ),
      );
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  async function restore(version: number): Promise<void> {
    if (!window.confirm(`Restore version ${version}? It is saved again as a new version.`)) return;
    try {
      const answer = await api<T>('POST', `${options.base}/versions/${version}/restore`);
      await options.restored(answer);
      await load(false);
      message.show(`Version ${version} restored as version ${latest?.version}.`);
    } catch (e) {
      message.show(errorText(e), 'error');
    }
  }

  older.addEventListener('click', () => void load(true));
  const open = h(
    'button',
    {
      type: 'button',
      onclick: () => {
        open.hidden = true;
        void load(false);
      },
    },
    'History',
  );
  section.append(h('h3', { class: 'pane-title' }, 'History'), open, message, list, older, diff);
  return section;
}
