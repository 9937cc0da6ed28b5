import { defineMigration } from '../migrate.js';

/**
 * What the hosts run (src/platform/processes, src/platform/scripted): stored process definitions;
 * the run of each process request (the definition it runs, where it is, who acts, the key of its
 * public task URLs); each step's record and result; manual tasks; composite APIs (routes bound
 * to a script); the template of each web interface.
 */
export default defineMigration({
  id: '0400_processes',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE process_definitions (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
        name ${t.binaryText} NOT NULL,
        definition ${t.json} NOT NULL,
        created_at ${t.bigint} NOT NULL,
        updated_at ${t.bigint} NOT NULL
      );
      CREATE UNIQUE INDEX process_definitions_name ON process_definitions (account_id, name);
      CREATE TABLE process_runs (
        account_id ${t.binaryText} NOT NULL,
        request_id ${t.binaryText} NOT NULL,
        definition_id ${t.bigint},
        definition ${t.json} NOT NULL,
        cursor ${t.json} NOT NULL,
        user_id ${t.bigint},
        secret ${t.text} NOT NULL,
        depth ${t.integer} NOT NULL,
        version ${t.integer} NOT NULL,
        PRIMARY KEY (account_id, request_id),
        FOREIGN KEY (account_id, request_id) REFERENCES requests (account_id, id) ON DELETE CASCADE
      );
      CREATE TABLE request_steps (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL,
        request_id ${t.binaryText} NOT NULL,
        step_id ${t.integer} NOT NULL,
        iteration ${t.integer} NOT NULL,
        type ${t.text} NOT NULL,
        status ${t.text} NOT NULL,
        lane_id ${t.bigint},
        user_id ${t.bigint},
        task_id ${t.binaryText},
        child_request_id ${t.binaryText},
        result ${t.json},
        error ${t.json},
        started_at ${t.bigint} NOT NULL,
        ended_at ${t.bigint},
        FOREIGN KEY (account_id, request_id) REFERENCES requests (account_id, id) ON DELETE CASCADE
      );
      CREATE INDEX request_steps_request ON request_steps (account_id, request_id, id);
      CREATE TABLE request_tasks (
        account_id ${t.binaryText} NOT NULL,
        id ${t.binaryText} NOT NULL,
        request_id ${t.binaryText} NOT NULL,
        step_id ${t.integer} NOT NULL,
        iteration ${t.integer} NOT NULL,
        lane_id ${t.bigint},
        instance_id ${t.binaryText},
        status ${t.text} NOT NULL,
        fields ${t.json},
        result ${t.json},
        created_at ${t.bigint} NOT NULL,
        submitted_at ${t.bigint},
        submitted_by ${t.bigint},
        PRIMARY KEY (account_id, id),
        FOREIGN KEY (account_id, request_id) REFERENCES requests (account_id, id) ON DELETE CASCADE
      );
      CREATE UNIQUE INDEX request_tasks_step ON request_tasks (account_id, request_id, step_id, iteration);
      CREATE TABLE composite_apis (
        id ${t.id},
        account_id ${t.binaryText} NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
        project_id ${t.bigint} REFERENCES projects (id) ON DELETE SET NULL,
        method ${t.text} NOT NULL,
        path ${t.binaryText} NOT NULL,
        template ${t.text} NOT NULL,
        mode ${t.text} NOT NULL,
        is_public ${t.boolean} NOT NULL,
        description ${t.text} NOT NULL,
        created_at ${t.bigint} NOT NULL,
        updated_at ${t.bigint} NOT NULL
      );
      CREATE UNIQUE INDEX composite_apis_route ON composite_apis (account_id, method, path);
      CREATE TABLE web_interface_templates (
        account_id ${t.binaryText} NOT NULL,
        web_interface_id ${t.bigint} NOT NULL REFERENCES web_interfaces (id) ON DELETE CASCADE,
        template ${t.text} NOT NULL,
        updated_at ${t.bigint} NOT NULL,
        PRIMARY KEY (account_id, web_interface_id)
      );
    `);
  },
});
