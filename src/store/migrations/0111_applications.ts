import { defineMigration } from '../migrate.js';

/**
 * Application instances (src/platform/applications): one per launch of a web interface or per
 * manual task shown to a user, with its data and upload widgets; its history (who, when, which
 * step, what changed); and the uploaded files attached to it.
 */
export default defineMigration({
  id: '0111_applications',
  async up(db) {
    const t = db.dialect.types;
    await db.exec(`
      CREATE TABLE application_instances (
        account_id ${t.text} NOT NULL,
        id ${t.binaryText} NOT NULL,
        project_id ${t.bigint},
        web_interface_id ${t.bigint},
        request_id ${t.binaryText},
        step_id ${t.text},
        mode ${t.text} NOT NULL,
        status ${t.text} NOT NULL,
        title ${t.text} NOT NULL,
        data ${t.json} NOT NULL,
        upload_widgets ${t.json} NOT NULL,
        created_at ${t.bigint} NOT NULL,
        created_by ${t.bigint},
        updated_at ${t.bigint} NOT NULL,
        updated_by ${t.bigint},
        PRIMARY KEY (account_id, id)
      );
      CREATE INDEX application_instances_request ON application_instances (account_id, request_id, created_at);
      CREATE TABLE application_history (
        id ${t.id},
        account_id ${t.text} NOT NULL,
        instance_id ${t.binaryText} NOT NULL,
        request_id ${t.binaryText},
        at ${t.bigint} NOT NULL,
        user_id ${t.bigint},
        user_login ${t.text},
        step_id ${t.text},
        action ${t.text} NOT NULL,
        changes ${t.json} NOT NULL,
        FOREIGN KEY (account_id, instance_id) REFERENCES application_instances (account_id, id) ON DELETE CASCADE
      );
      CREATE INDEX application_history_instance ON application_history (account_id, instance_id, id);
      CREATE INDEX application_history_request ON application_history (account_id, request_id, id);
      CREATE TABLE application_files (
        account_id ${t.text} NOT NULL,
        instance_id ${t.binaryText} NOT NULL,
        file_id ${t.binaryText} NOT NULL,
        widget_id ${t.text},
        attached_at ${t.bigint} NOT NULL,
        attached_by ${t.bigint},
        PRIMARY KEY (account_id, instance_id, file_id),
        FOREIGN KEY (account_id, instance_id) REFERENCES application_instances (account_id, id) ON DELETE CASCADE,
        FOREIGN KEY (account_id, file_id) REFERENCES uploads (account_id, id) ON DELETE CASCADE
      );
      CREATE INDEX application_files_file ON application_files (account_id, file_id);
    `);
  },
});
