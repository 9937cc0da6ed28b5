/**
 * OAuth2 service tokens: per account, service name and execution mode. A token is an object that
 * must carry a non-empty string access_token; refresh_token, expires_in and any other field are kept.
 * Stored sealed (platform/secrets.ts): the database alone does not reveal them.
 */
import { sql, type Store } from '../store/index.js';
import { PlatformError } from './errors.js';
import { fromJson, toJson, toJsonObject, type Mode } from './model.js';
import { openRecord, secretBox } from './secrets.js';

export class OAuth2Tokens {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  async get(accountId: string, service: string, mode: Mode): Promise<Record<string, unknown> | undefined> {
    const row = await this.store.get<{ token: string }>(sql`
      SELECT token FROM oauth2_tokens WHERE account_id = ${accountId} AND service = ${service} AND mode = ${mode}`);
    return row && openRecord(fromJson(row.token), `the OAuth2 token of ${service} (${mode})`);
  }

  /** Creates or replaces a service's token and returns what is stored. */
  async save(
    accountId: string,
    service: string,
    mode: Mode,
    token: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (service.trim() === '' || service.length > 255)
      throw new PlatformError('invalid', `invalid service name ${JSON.stringify(service)}`);
    const copy = toJsonObject(token, 'the token');
    if (typeof copy.access_token !== 'string' || copy.access_token === '')
      throw new PlatformError('invalid', 'the token must contain an access_token');
    await this.store.run(sql`
      INSERT INTO oauth2_tokens (account_id, service, mode, token, updated_at)
      VALUES (${accountId}, ${service}, ${mode}, ${toJson(secretBox().seal(copy))}, ${this.clock()})
      ON CONFLICT (account_id, service, mode) DO UPDATE SET token = excluded.token, updated_at = excluded.updated_at`);
    return copy;
  }

  async delete(accountId: string, service: string, mode: Mode): Promise<boolean> {
    const { changes } = await this.store.run(sql`
      DELETE FROM oauth2_tokens WHERE account_id = ${accountId} AND service = ${service} AND mode = ${mode}`);
    return changes > 0;
  }
}
