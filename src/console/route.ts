/**
 * The console's addresses: `#/<page>/<segment>/…`, one per selected item, so a selection can be
 * bookmarked, reloaded and left with the browser's back button. A page that selects items returns
 * a `Navigate` from its render: a change of address within the page calls it instead of building
 * the page again (its search, filters and pages stay).
 */
import { api, errorText } from './api.js';
import { fill, h } from './dom.js';

export type Navigate = (segments: string[]) => void | Promise<void>;

const openings = new WeakMap<Element, number>();

/**
 * Starts opening an item into a page's detail, superseding any opening of it still waiting for its
 * answer. The check returned says, after each wait, whether this opening is still the latest: an
 * earlier address's slower answer must not replace what a later one (or a click) opened.
 */
export function startOpening(detail: Element): () => boolean {
  const mine = (openings.get(detail) ?? 0) + 1;
  openings.set(detail, mine);
  return () => openings.get(detail) === mine;
}

/**
 * The Navigate of a page whose address names one stored item (`#/<page>/<id>`): no id empties the
 * detail; else the item is read at `path/<id>` and opened, or its error takes the detail's place —
 * unless another opening began meanwhile (`startOpening`).
 */
export function openById<T>(
  detail: HTMLElement,
  path: string,
  open: (item: T) => unknown,
  label?: string,
): Navigate {
  return async ([id]) => {
    const latest = startOpening(detail);
    if (id === undefined) return fill(detail);
    const failed = (e: unknown) => {
      const text = label === undefined ? errorText(e) : `${label} ${id}: ${errorText(e)}`;
      fill(detail, h('p', { class: 'message error', role: 'alert' }, text));
    };
    let item: T;
    try {
      item = await api<T>('GET', `${path}/${encodeURIComponent(id)}`);
    } catch (e) {
      if (latest()) failed(e);
      return;
    }
    if (!latest()) return;
    try {
      await open(item);
    } catch (e) {
      failed(e); // even if the opening has started its own (items that also open from a click)
    }
  };
}

/** The segments of the current address after the page's (decoded). */
export function segments(): string[] {
  return location.hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

export function href(...parts: (string | number)[]): string {
  return `#/${parts.map((p) => encodeURIComponent(String(p))).join('/')}`;
}

/**
 * Goes to an address: the hash changes (a history entry, the page's Navigate does the rest), or,
 * when it is the current one already, `again` runs (a click on the item already selected).
 */
export function go(address: string, again?: () => void | Promise<void>): void {
  if (location.hash === address) void again?.();
  else location.hash = address;
}

/**
 * Records the address of what the page has just opened by itself (a history entry, without a
 * Navigate call): the back button then leaves it, and the address reopens it.
 */
export function record(address: string): void {
  if (location.hash !== address) history.pushState(null, '', address);
}
