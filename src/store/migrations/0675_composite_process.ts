import { defineMigration } from '../migrate.js';

/**
 * A composite API may be answered by a process (docs/hosts.md, "Composite APIs"): `process` names
 * a stored process definition of the account that runs to its end in the call, before the
 * route's template (then its response template, which reads P_computed). Null: the template alone.
 */
export default defineMigration({
  id: '0675_composite_process',
  async up(db) {
    await db.exec(`ALTER TABLE composite_apis ADD COLUMN process ${db.dialect.types.text}`);
  },
});
