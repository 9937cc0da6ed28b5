/**
 * The console's addresses: `#/<page>/<segment>/…`, one per selected item, so a selection can be
 * bookmarked, reloaded and left with the browser's back button. A page that selects items returns
 * a `Navigate` from its render: a change of address within the page calls it instead of building
 * the page again (its search, filters and pages stay).
 */
export type Navigate = (segments: string[]) => void | Promise<void>;

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
