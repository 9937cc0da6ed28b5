import { defineMigration } from '../migrate.js';

/**
 * The directory (src/platform/directory): accounts (customers), users, delegations, pools of
 * lanes, lane membership per mode (LIVE / ACCEPTANCE, manual or computed by a lane rule), and
 * the pending membership recomputations (lane jobs). Users and lanes have global numeric ids;
 * every row also carries its account and every query names one.
 */
export default defineMigration({
  id: '0100_directory',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE accounts (
        account_id ${t.binaryText} PRIMARY KEY,
        name ${t.text} NOT NULL,
        locale ${t.text} NOT NULL,
        time_zone ${t.text} NOT NULL,
        base_url ${t.text} NOT NULL,
        created_at ${t.bigint} NOT NULL
      );
      CREATE TABLE users (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
        login ${t.binaryText} NOT NULL,
        email ${t.binaryText},
        name ${t.text} NOT NULL,
        profile ${t.text} NOT NULL,
        status ${t.text} NOT NULL,
        is_admin ${t.boolean} NOT NULL,
        language ${t.text} NOT NULL,
        preferences ${t.json} NOT NULL,
        metadata ${t.json} NOT NULL,
        password_hash ${t.text},
        created_at ${t.bigint} NOT NULL,
        updated_at ${t.bigint} NOT NULL,
        UNIQUE (account_id, login)
      );
      CREATE UNIQUE INDEX users_email ON users (account_id, email);
      CREATE TABLE user_delegations (
        account_id ${t.binaryText} NOT NULL,
        delegator_id ${t.bigint} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        delegate_id ${t.bigint} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        starts_at ${t.bigint},
        ends_at ${t.bigint},
        PRIMARY KEY (delegator_id, delegate_id)
      );
      CREATE INDEX user_delegations_delegate ON user_delegations (account_id, delegate_id);
      CREATE TABLE pools (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
        name ${t.text} NOT NULL,
        is_organization ${t.boolean} NOT NULL,
        created_at ${t.bigint} NOT NULL
      );
      CREATE INDEX pools_account ON pools (account_id);
      CREATE TABLE lanes (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL,
        pool_id ${t.bigint} NOT NULL REFERENCES pools (id) ON DELETE CASCADE,
        name ${t.text} NOT NULL,
        parent_id ${t.bigint} REFERENCES lanes (id) ON DELETE SET NULL,
        manager_id ${t.bigint} REFERENCES users (id) ON DELETE SET NULL,
        rule ${t.json},
        created_at ${t.bigint} NOT NULL
      );
      CREATE INDEX lanes_pool ON lanes (account_id, pool_id);
      CREATE TABLE lane_members (
        account_id ${t.binaryText} NOT NULL,
        lane_id ${t.bigint} NOT NULL REFERENCES lanes (id) ON DELETE CASCADE,
        mode ${t.text} NOT NULL,
        user_id ${t.bigint} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        source ${t.text} NOT NULL,
        added_at ${t.bigint} NOT NULL,
        PRIMARY KEY (lane_id, mode, user_id, source)
      );
      CREATE INDEX lane_members_user ON lane_members (account_id, user_id, mode);
      CREATE TABLE lane_jobs (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL,
        lane_id ${t.bigint} NOT NULL REFERENCES lanes (id) ON DELETE CASCADE,
        user_id ${t.bigint},
        created_at ${t.bigint} NOT NULL
      );
      CREATE INDEX lane_jobs_lane ON lane_jobs (account_id, lane_id);
    `);
  },
});
