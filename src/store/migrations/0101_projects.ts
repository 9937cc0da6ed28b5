import { defineMigration } from '../migrate.js';

/**
 * Projects (src/platform/projects): a project with its versions (each in a mode), web interfaces
 * (tags, contexts web/mobile/tablet, lanes allowed), the pools it uses, child projects, custom
 * lists, one vault per project and mode, and i18n dictionaries (project_id 0 = account-wide).
 */
export default defineMigration({
  id: '0101_projects',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE projects (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
        title ${t.text} NOT NULL,
        type ${t.text} NOT NULL,
        author_id ${t.bigint} REFERENCES users (id) ON DELETE SET NULL,
        summary ${t.json} NOT NULL,
        content ${t.json} NOT NULL,
        metadata ${t.json} NOT NULL,
        parent_id ${t.bigint} REFERENCES projects (id) ON DELETE SET NULL,
        log_level ${t.text},
        created_at ${t.bigint} NOT NULL,
        updated_at ${t.bigint} NOT NULL
      );
      CREATE INDEX projects_account ON projects (account_id, parent_id);
      CREATE TABLE project_versions (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL,
        project_id ${t.bigint} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        name ${t.text} NOT NULL,
        mode ${t.text} NOT NULL,
        created_at ${t.bigint} NOT NULL
      );
      CREATE INDEX project_versions_project ON project_versions (account_id, project_id, mode);
      CREATE TABLE project_pools (
        account_id ${t.binaryText} NOT NULL,
        project_id ${t.bigint} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        pool_id ${t.bigint} NOT NULL REFERENCES pools (id) ON DELETE CASCADE,
        PRIMARY KEY (project_id, pool_id)
      );
      CREATE TABLE web_interfaces (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL,
        project_id ${t.bigint} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        title ${t.text} NOT NULL,
        description ${t.text} NOT NULL,
        thumb ${t.text} NOT NULL,
        tags ${t.json} NOT NULL,
        contexts ${t.json} NOT NULL,
        lanes ${t.json} NOT NULL,
        created_at ${t.bigint} NOT NULL
      );
      CREATE INDEX web_interfaces_project ON web_interfaces (account_id, project_id);
      CREATE TABLE custom_lists (
        account_id ${t.binaryText} NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
        id ${t.binaryText} NOT NULL,
        project_id ${t.bigint} REFERENCES projects (id) ON DELETE SET NULL,
        name ${t.text} NOT NULL,
        content ${t.json} NOT NULL,
        updated_at ${t.bigint} NOT NULL,
        PRIMARY KEY (account_id, id)
      );
      CREATE TABLE project_vaults (
        account_id ${t.binaryText} NOT NULL,
        project_id ${t.bigint} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        mode ${t.text} NOT NULL,
        data ${t.json} NOT NULL,
        updated_at ${t.bigint} NOT NULL,
        PRIMARY KEY (project_id, mode)
      );
      CREATE TABLE i18n_entries (
        account_id ${t.binaryText} NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
        project_id ${t.bigint} NOT NULL,
        key ${t.binaryText} NOT NULL,
        language ${t.text} NOT NULL,
        text ${t.text} NOT NULL,
        PRIMARY KEY (account_id, project_id, key, language)
      );
    `);
  },
});
