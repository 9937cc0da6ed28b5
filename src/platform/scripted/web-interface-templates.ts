/**
 * The HTML/JS template of each web interface, rendered server-side when the interface is opened
 * (docs/hosts.md). One per web interface; a web interface without one renders an empty page.
 */
import { sql, type Store } from '../../store/index.js';
import { notFound, PlatformError } from '../errors.js';
import { SYSTEM_AUTHOR, type ArtefactVersions, type Author } from '../versions.js';
import { TEMPLATE_MAX_CHARS } from './composite-apis.js';

export class WebInterfaceTemplates {
  /** Bumped on every change made through this process (hosts drop their cached pages). */
  changes = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly versions: ArtefactVersions,
  ) {}

  async get(accountId: string, webInterfaceId: number): Promise<string | undefined> {
    const row = await this.store.get<{ template: string }>(sql`
      SELECT template FROM web_interface_templates
      WHERE account_id = ${accountId} AND web_interface_id = ${webInterfaceId}`);
    return row?.template;
  }

  /** Sets (creates or replaces) the template of a web interface of the account. */
  async set(
    accountId: string,
    webInterfaceId: number,
    template: string,
    author: Author = SYSTEM_AUTHOR,
  ): Promise<void> {
    if (typeof template !== 'string' || template.length > TEMPLATE_MAX_CHARS)
      throw new PlatformError(
        'invalid',
        `the template must be a text of at most ${TEMPLATE_MAX_CHARS} characters`,
      );
    const wi = await this.store.get(
      sql`SELECT id FROM web_interfaces WHERE account_id = ${accountId} AND id = ${webInterfaceId}`,
    );
    if (!wi) throw notFound('Web interface not found.');
    await this.store.transaction(async () => {
      await this.store.run(sql`
        INSERT INTO web_interface_templates (account_id, web_interface_id, template, updated_at)
        VALUES (${accountId}, ${webInterfaceId}, ${template}, ${this.clock()})
        ON CONFLICT (account_id, web_interface_id) DO UPDATE SET template = excluded.template, updated_at = excluded.updated_at`);
      await this.versions.record(accountId, 'web-interface', webInterfaceId, { template }, author);
    });
    this.changes++;
  }
}
