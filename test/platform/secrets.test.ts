/**
 * Secrets at rest (src/platform/secrets.ts, docs/deploy.md "Secrets at rest"): project vaults and
 * OAuth2 tokens are stored sealed (AES-256-GCM), so the database — the SQLite file itself — does
 * not reveal them; reading them back works as before; values stored before sealing stay readable
 * and `flowmark secrets seal` seals them; a server with another key, or an altered value, is
 * refused with a message that says so; a key is rotated with FLOWMARK_SECRET_KEY_OLD.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/index.js';
import { countSecrets, resealSecrets } from '../../src/platform/reseal.js';
import { loadSecretKey, parseSecretKey, SecretBox, secretBox } from '../../src/platform/secrets.js';
import { openStore, sql } from '../../src/store/index.js';
import { describeEachEngine } from '../support/engines.js';
import { flowmark } from '../support/cli.js';

const SECRET = 'sk_live_5ecret_never_in_the_file';

describeEachEngine('secrets at rest', (engine) => {
  it('stores a vault and an OAuth2 token sealed, and reads them back as saved', async () => {
    const platform = createPlatform(engine.store);
    await platform.accounts.create({ id: 'sealed' });
    const project = await platform.projects.create('sealed', { title: 'Sealed' });
    await platform.vaults.save('sealed', project.id, 'LIVE', { apiKey: SECRET });
    await platform.oauth2.save('sealed', 'crm', 'LIVE', { access_token: SECRET, expires_in: 3600 });
    expect(await platform.vaults.load('sealed', project.id, 'LIVE')).toEqual({ apiKey: SECRET });
    expect(await platform.oauth2.get('sealed', 'crm', 'LIVE')).toEqual({
      access_token: SECRET,
      expires_in: 3600,
    });
    const rows = await engine.store.all<{ v: unknown }>(sql`
      SELECT data AS v FROM project_vaults WHERE account_id = 'sealed'
      UNION ALL SELECT token AS v FROM oauth2_tokens WHERE account_id = 'sealed'`);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const text = typeof row.v === 'string' ? row.v : JSON.stringify(row.v);
      expect(text).not.toContain(SECRET);
      expect(text).toMatch(new RegExp(`^"?fmk1:${secretBox().fingerprint}:`));
    }
    if (engine.name === 'sqlite') {
      // the database files on disk: the secret is in none of them
      const dir = dirname(engine.store.location);
      const files = readdirSync(dir).filter((f) => f.startsWith(basename(engine.store.location)));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) expect(readFileSync(join(dir, file)).includes(SECRET), file).toBe(false);
    }
  });

  it('reads a value stored before sealing, counts it, and seals it with flowmark secrets seal', async () => {
    const platform = createPlatform(engine.store);
    await platform.accounts.create({ id: 'legacy' });
    const project = await platform.projects.create('legacy', { title: 'Legacy' });
    await engine.store.run(sql`
      INSERT INTO project_vaults (account_id, project_id, mode, data, updated_at)
      VALUES ('legacy', ${project.id}, 'TEST', ${JSON.stringify({ apiKey: 'old plain' })}, 0)`);
    expect(await platform.vaults.load('legacy', project.id, 'TEST')).toEqual({ apiKey: 'old plain' });
    const before = await countSecrets(engine.store, secretBox());
    expect(before.plain).toBeGreaterThanOrEqual(1);
    expect(await resealSecrets(engine.store, secretBox())).toBe(before.plain);
    expect((await countSecrets(engine.store, secretBox())).plain).toBe(0);
    expect(await platform.vaults.load('legacy', project.id, 'TEST')).toEqual({ apiKey: 'old plain' });
  });
});

describe('the secret box', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('refuses a value sealed with another key, naming both keys, and an altered value', () => {
    const a = new SecretBox(randomBytes(32));
    const b = new SecretBox(randomBytes(32));
    const sealed = a.seal({ apiKey: SECRET });
    expect(a.open(sealed, 'the vault')).toEqual({ apiKey: SECRET });
    expect(() => b.open(sealed, 'the vault of project 3 (LIVE)')).toThrow(
      `the vault of project 3 (LIVE) was sealed with the secret key ${a.fingerprint}, and this server's key is ${b.fingerprint}: ` +
        'every server of a deployment needs the same FLOWMARK_SECRET_KEY (docs/deploy.md "Secrets at rest")',
    );
    const altered = sealed.slice(0, -6) + (sealed.endsWith('AAAA==') ? 'BBBB==' : 'AAAA==');
    expect(() => a.open(altered, 'the vault')).toThrow(
      'the vault cannot be opened: its sealed value was altered',
    );
    expect(a.seal('x')).not.toBe(a.seal('x'));
  });

  it('takes the key as 64 hex digits or base64, refuses anything else naming the setting, and makes a key file on first use', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('hex'), 'FLOWMARK_SECRET_KEY')).toEqual(key);
    expect(parseSecretKey(key.toString('base64'), 'FLOWMARK_SECRET_KEY')).toEqual(key);
    expect(() => parseSecretKey('short', 'FLOWMARK_SECRET_KEY')).toThrow(
      'FLOWMARK_SECRET_KEY: expected a key of 32 bytes as 64 hex digits or base64 (make one with: openssl rand -hex 32)',
    );
    const data = mkdtempSync(join(tmpdir(), 'flowmark-key-'));
    dirs.push(data);
    const made = loadSecretKey({ FLOWMARK_DATA: data });
    expect(made).toHaveLength(32);
    expect(statSync(join(data, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(loadSecretKey({ FLOWMARK_DATA: data })).toEqual(made);
    expect(() => loadSecretKey({ FLOWMARK_SECRET_KEY_FILE: join(data, 'none') })).toThrow(
      `FLOWMARK_SECRET_KEY_FILE: no file ${join(data, 'none')}`,
    );
  });

  it('rotates the key with flowmark secrets seal and FLOWMARK_SECRET_KEY_OLD (the built CLI)', async () => {
    const data = mkdtempSync(join(tmpdir(), 'flowmark-rotate-'));
    dirs.push(data);
    const oldKey = randomBytes(32).toString('hex');
    const newKey = randomBytes(32).toString('hex');
    const store = await openStore({ dataDir: data, databaseUrl: undefined });
    try {
      const old = new SecretBox(Buffer.from(oldKey, 'hex'));
      const platform = createPlatform(store);
      await platform.accounts.create({ id: 'default' });
      const project = await platform.projects.create('default', { title: 'P' });
      await store.run(sql`
        INSERT INTO project_vaults (account_id, project_id, mode, data, updated_at)
        VALUES ('default', ${project.id}, 'LIVE', ${JSON.stringify(old.seal({ apiKey: SECRET }))}, 0)`);
      const env = { FLOWMARK_DATA: data, DATABASE_URL: '', FLOWMARK_SECRET_KEY: newKey };
      const fresh = new SecretBox(Buffer.from(newKey, 'hex'));
      const status = await flowmark(['secrets', 'status'], { env });
      expect([status.code, status.stdout]).toEqual([
        0,
        `key ${fresh.fingerprint}: 0 sealed with it, 0 not sealed, 1 sealed with another key\n`,
      ]);
      const refused = await flowmark(['secrets', 'seal'], { env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`was sealed with the secret key ${old.fingerprint}`);
      const rotated = await flowmark(['secrets', 'seal'], {
        env: { ...env, FLOWMARK_SECRET_KEY_OLD: oldKey },
      });
      expect([rotated.code, rotated.stdout]).toEqual([0, `sealed 1 with key ${fresh.fingerprint}\n`]);
      const row = await store.get<{ data: string }>(sql`SELECT data FROM project_vaults`);
      expect(fresh.open(JSON.parse(row!.data), 'the vault')).toEqual({ apiKey: SECRET });
      const bad = await flowmark(['serve', '--port', '0'], { env: { ...env, FLOWMARK_SECRET_KEY: 'nope' } });
      expect([bad.code, bad.stderr]).toEqual([
        2,
        'flowmark serve: FLOWMARK_SECRET_KEY: expected a key of 32 bytes as 64 hex digits or base64 (make one with: openssl rand -hex 32)\n',
      ]);
    } finally {
      await store.close();
    }
  });
});
