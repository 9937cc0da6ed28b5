/**
 * The bound of waiting on the store and the settings `flowmark serve` checks before any worker
 * starts (docs/deploy.md, "Faults"), through the built CLI (`npm run build` first): a bad
 * FLOWMARK_SWEEP_MS / FLOWMARK_LEASE_MS / FLOWMARK_LOCK_WAIT_MS exits 2 naming the variable; a
 * store unreachable at start says what was being opened; a write behind a lock another connection
 * holds answers `409 contention` with Retry-After once FLOWMARK_LOCK_WAIT_MS has passed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { availableEngines, createTestSchema, dropTestSchema } from '../support/engines.js';
import { collect, flowmark, spawnFlowmark } from '../support/cli.js';
import { call, sessionCookie } from '../server/support.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowmark-serve-faults-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('flowmark serve: settings checked before the workers start', () => {
  const refused = async (env: Record<string, string>) => {
    const run = await flowmark(['serve', '--port', '0'], { env: { FLOWMARK_DATA: tempDir(), ...env } });
    return { code: run.code, stderr: run.stderr };
  };

  it('exits 2 naming FLOWMARK_SWEEP_MS, FLOWMARK_LEASE_MS or FLOWMARK_LOCK_WAIT_MS out of range', async () => {
    expect(await refused({ FLOWMARK_SWEEP_MS: '10' })).toEqual({
      code: 2,
      stderr: 'flowmark serve: FLOWMARK_SWEEP_MS: expected milliseconds from 50 to 60000, got "10"\n',
    });
    expect(await refused({ FLOWMARK_LEASE_MS: '500' })).toEqual({
      code: 2,
      stderr: 'flowmark serve: FLOWMARK_LEASE_MS: expected milliseconds from 1000 to 3600000, got "500"\n',
    });
    expect(await refused({ FLOWMARK_LOCK_WAIT_MS: 'ten' })).toEqual({
      code: 2,
      stderr: 'flowmark serve: FLOWMARK_LOCK_WAIT_MS: expected milliseconds from 100 to 600000, got "ten"\n',
    });
  });

  it('gives up on a PostgreSQL server that accepts and never answers after FLOWMARK_LOCK_WAIT_MS, exit 1', async () => {
    // A port that takes the connection and says nothing (a hung server, a stuck proxy).
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const run = await refused({
        DATABASE_URL: `postgres://flowmark@127.0.0.1:${port}/flowmark`,
        FLOWMARK_LOCK_WAIT_MS: '800',
      });
      expect(run).toEqual({
        code: 1,
        stderr: `flowmark serve: cannot open PostgreSQL at 127.0.0.1:${port} (DATABASE_URL): Connection terminated due to connection timeout\n`,
      });
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      silent.close();
    }
  });

  it('names the PostgreSQL server it could not reach (without the password), exit 1', async () => {
    const run = await refused({ DATABASE_URL: 'postgres://flowmark:s3cret@127.0.0.1:5999/flowmark' });
    expect(run).toEqual({
      code: 1,
      stderr:
        'flowmark serve: cannot open PostgreSQL at 127.0.0.1:5999 (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:5999\n',
    });
  });
});

for (const engine of availableEngines()) {
  describe(`flowmark serve: a write behind a held lock [${engine}]`, () => {
    let schema: string | undefined;
    afterAll(async () => {
      if (schema) await dropTestSchema(schema);
    });

    it('answers 409 contention with Retry-After once FLOWMARK_LOCK_WAIT_MS has passed', async () => {
      const data = tempDir();
      const env: Record<string, string> = { FLOWMARK_DATA: data, FLOWMARK_LOCK_WAIT_MS: '1000' };
      if (engine === 'postgres') {
        const created = await createTestSchema('lockwait');
        schema = created.schema;
        env.DATABASE_URL = created.databaseUrl;
      }
      const child = spawnFlowmark(['serve', '--port', '0', '--workers', '0', '--log-level', 'error'], {
        env,
      });
      const out = collect(child);
      try {
        for (let i = 0; !/password: \S+\n/.test(out.out); i++) {
          if (i > 300 || child.exitCode !== null)
            throw new Error(`serve did not start: ${out.out}${out.err}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        const url = /serving on (http:\/\/\S+)/.exec(out.out)![1]!;
        const password = /password: (\S+)\n/.exec(out.out)![1]!;
        const login = await call(url, 'POST', '/api/v1/auth/login', {
          body: { account: 'default', login: 'admin', password },
        });
        const cookie = sessionCookie(login.headers);

        // Another connection holds the lock a new token's row needs.
        let release: () => Promise<void>;
        if (engine === 'sqlite') {
          const db = new Database(join(data, 'flowmark.db'));
          db.exec('BEGIN IMMEDIATE');
          release = async () => {
            db.exec('ROLLBACK');
            db.close();
          };
        } else {
          const client = new pg.Client({ connectionString: env.DATABASE_URL });
          await client.connect();
          await client.query('BEGIN');
          await client.query('LOCK TABLE api_tokens IN SHARE MODE');
          release = async () => {
            await client.query('ROLLBACK');
            await client.end();
          };
        }
        const started = Date.now();
        const blocked = await call(url, 'POST', '/api/v1/tokens', { cookie, body: { name: 'blocked' } });
        const waited = Date.now() - started;
        await release();
        expect(blocked.status).toBe(409);
        expect(blocked.body).toEqual({
          status: 409,
          code: 'contention',
          message:
            'the database is busy with a write of another connection or process: try again in a moment',
        });
        expect(blocked.headers.get('retry-after')).toBe('1');
        expect(waited).toBeGreaterThanOrEqual(950);
        expect(waited).toBeLessThan(4000);
        // Once the lock is released the retry succeeds.
        const retried = await call(url, 'POST', '/api/v1/tokens', { cookie, body: { name: 'retried' } });
        expect(retried.status).toBe(201);
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }, 40_000);
  });
}
