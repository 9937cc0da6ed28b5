import { defineMigration } from '../migrate.js';

/**
 * The request list (`GET /api/v1/requests`, src/platform/requests.ts `requestPageQuery`) reads
 * an account's requests newest first, ties by id, optionally of one project, initiator or
 * status: one index per filter ending in that order, so a page is an index range read up to its
 * limit (no sort of every request) and `before=` a keyset start. `requests_project` (project and
 * created_at, no id) gives way to the project's.
 */
export default defineMigration({
  id: '0610_request_list',
  async up(db) {
    await db.exec(`
      DROP INDEX requests_project;
      CREATE INDEX requests_list ON requests (account_id, created_at DESC, id);
      CREATE INDEX requests_list_project ON requests (account_id, project_id, created_at DESC, id);
      CREATE INDEX requests_list_initiator ON requests (account_id, initiator_id, created_at DESC, id);
      CREATE INDEX requests_list_status ON requests (account_id, status, created_at DESC, id);
    `);
  },
});
