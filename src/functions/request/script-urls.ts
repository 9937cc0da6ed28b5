/**
 * P_urls as scripts see it (docs/platform.md, "Internal parameters"), shaped as the platform
 * documents it: `host` is the host without protocol (`live.runmyprocess.com`), `live` and `portal`
 * the bare origins (`https://live.runmyprocess.com`), `domain` the domain. A flowmark server serves
 * everything from its one base URL, so `live` and `portal` are that origin, `host` and `domain`
 * its host[:port]. (The account's live base, `<origin>/live/<account>/`, where tasks and web
 * interfaces are served, stays AccountUrls.live of src/platform.)
 */
import type { AccountUrls } from '../../platform/index.js';

export interface ScriptUrls {
  domain: string;
  host: string;
  live: string;
  portal: string;
}

export function scriptUrls(urls: AccountUrls): ScriptUrls {
  const base = new URL(urls.host);
  return { domain: urls.domain, host: base.host, live: base.origin, portal: base.origin };
}
