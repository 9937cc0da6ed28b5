import { defineMigration } from '../migrate.js';

/**
 * The running requests by age, for the sweeper's look for requests an older version left without
 * a run (hosts/processes/sweeper.ts): it reads only the running ones.
 */
export default defineMigration({
  id: '0520_running_requests',
  async up(db) {
    await db.exec(`CREATE INDEX requests_running ON requests (created_at) WHERE status = 101`);
  },
});
