import { defineMigration } from '../migrate.js';

/**
 * The manual tasks still OPEN, counted at each scrape of GET /metrics (`flowmark_open_tasks`):
 * a partial index keeps that count to the open ones, however many tasks history holds.
 */
export default defineMigration({
  id: '0650_open_tasks',
  async up(db) {
    await db.exec(`CREATE INDEX request_tasks_open ON request_tasks (account_id) WHERE status = 'OPEN'`);
  },
});
