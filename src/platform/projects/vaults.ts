/**
 * Project vaults: one free-form object per project and execution mode (LIVE, ACCEPTANCE, TEST),
 * for the secrets and settings a project's scripts read with P_load_project_vault. Stored sealed
 * (platform/secrets.ts): the database alone does not reveal them.
 */
import { sql, type Store } from '../../store/index.js';
import { fromJson, toJson, toJsonObject, type Mode } from '../model.js';
import { openRecord, secretBox } from '../secrets.js';

export class Vaults {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  /** The vault of a project in a mode, or undefined when none was saved. */
  async load(accountId: string, projectId: number, mode: Mode): Promise<Record<string, unknown> | undefined> {
    const row = await this.store.get<{ data: string }>(sql`
      SELECT data FROM project_vaults WHERE account_id = ${accountId} AND project_id = ${projectId} AND mode = ${mode}`);
    return row && openRecord(fromJson(row.data), `the vault of project ${projectId} (${mode})`);
  }

  /** Creates or replaces the vault and returns what is stored. */
  async save(
    accountId: string,
    projectId: number,
    mode: Mode,
    data: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const copy = toJsonObject(data, 'the vault');
    await this.store.run(sql`
      INSERT INTO project_vaults (account_id, project_id, mode, data, updated_at)
      VALUES (${accountId}, ${projectId}, ${mode}, ${toJson(secretBox().seal(copy))}, ${this.clock()})
      ON CONFLICT (project_id, mode) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`);
    return copy;
  }

  /** True when a vault existed and was deleted. */
  async delete(accountId: string, projectId: number, mode: Mode): Promise<boolean> {
    const { changes } = await this.store.run(sql`
      DELETE FROM project_vaults WHERE account_id = ${accountId} AND project_id = ${projectId} AND mode = ${mode}`);
    return changes > 0;
  }
}
