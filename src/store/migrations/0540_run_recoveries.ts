import { defineMigration } from '../migrate.js';

/**
 * How many times a run was resumed after losing its server or evaluation thread while running
 * the same step (docs/hosts.md, "Durable requests and timers"): a step that stops its thread
 * each time it runs ends its request after a few tries instead of stopping threads forever.
 */
export default defineMigration({
  id: '0540_run_recoveries',
  async up(db) {
    await db.exec(`ALTER TABLE process_runs ADD COLUMN recoveries INTEGER NOT NULL DEFAULT 0;`);
  },
});
