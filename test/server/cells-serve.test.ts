/**
 * Cells (docs/deploy.md "Cells") on real `flowmark serve` processes (the built dist/: `npm run
 * build` first): two PostgreSQL cells — the directory `main` (DATABASE_URL) and `east`
 * (FLOWMARK_CELLS) — accounts in each, two servers. Every account's composite API call,
 * collection writes (through a script and over REST), process request with an intermediate timer
 * and timer-started request run in its own cell: SQL on each database finds each account's rows
 * there and nowhere else. PostgreSQL only (cells are a PostgreSQL feature): skipped without
 * FLOWMARK_TEST_PG. The second cell is a schema of FLOWMARK_TEST_PG_CELL (another database) when
 * that is set, else of FLOWMARK_TEST_PG.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { quoteIdent } from '../../src/store/index.js';
import { flowmark, until } from '../support/cli.js';
import { serve, type Served } from '../support/serve.js';
import { call, sessionCookie } from './support.js';

const PG = process.env.FLOWMARK_TEST_PG;
const SECOND = process.env.FLOWMARK_TEST_PG_CELL || PG;

/** A fresh schema on the database of `base`: its name and the URL that selects it. */
async function schemaOn(base: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
  const onServer = async (text: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await onServer(`CREATE SCHEMA ${quoteIdent(schema)}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => onServer(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`) };
}

/** Rows of a query on one cell. */
async function rows(url: string, text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The URL a server serves on, once it listens (a loaded machine took 27 s to start one with two cells). */
const urlOf = (server: Served): Promise<string> =>
  until(
    async () => /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.out)?.[1],
    'the server to listen',
    120_000,
  );

const TIMED = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:t">
  <bpmn:process id="Timed" name="Timed" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:scriptTask id="Before" name="Before"><bpmn:script>before \${P_customer}</bpmn:script></bpmn:scriptTask>
    <bpmn:intermediateCatchEvent id="Pause">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT1S</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:intermediateCatchEvent>
    <bpmn:scriptTask id="After" name="After"><bpmn:script>after \${P_customer}</bpmn:script></bpmn:scriptTask>
    <bpmn:endEvent id="e" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Before" />
    <bpmn:sequenceFlow id="f2" sourceRef="Before" targetRef="Pause" />
    <bpmn:sequenceFlow id="f3" sourceRef="Pause" targetRef="After" />
    <bpmn:sequenceFlow id="f4" sourceRef="After" targetRef="e" />
  </bpmn:process>
</bpmn:definitions>`;

/** Tables with an account's rows the test made, and how many each must have in its cell. */
const OWN_ROWS: Record<string, number> = {
  accounts: 1,
  users: 1,
  server_sessions: 1,
  composite_apis: 1,
  process_definitions: 2,
  requests: 2,
  process_runs: 2,
  process_triggers: 1,
};

describe.skipIf(!PG)('cells: two PostgreSQL databases, accounts in each, two servers', () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('FLOWMARK_CELLS: a misconfigured list, SQLite, and an unknown cell are refused with their message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowmark-cells-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const env = (cells: string, databaseUrl = PG!) => ({
      FLOWMARK_DATA: dir,
      DATABASE_URL: databaseUrl,
      FLOWMARK_CELLS: cells,
    });
    const refused = async (cells: string, message: string, databaseUrl?: string) => {
      const r = await flowmark(['accounts', 'list'], { env: env(cells, databaseUrl) });
      expect({ code: r.code, stderr: r.stderr }).toEqual({
        code: 1,
        stderr: `flowmark accounts: ${message}\n`,
      });
    };
    await refused(
      'east',
      'FLOWMARK_CELLS: expected name=postgres://… entries separated by commas, got "east"',
    );
    await refused(
      'East=postgres://x/y',
      'FLOWMARK_CELLS: invalid cell name "East": lower-case letters, digits, _ and - (at most 32), starting with a letter',
    );
    await refused(
      'main=postgres://x/y',
      'FLOWMARK_CELLS: "main" is the cell of DATABASE_URL and cannot be listed',
    );
    await refused('a=postgres://x/y,a=postgres://x/z', 'FLOWMARK_CELLS: cell "a" is listed twice');
    await refused('a=mysql://x/y', 'FLOWMARK_CELLS: cell "a": expected a postgres:// or postgresql:// URL');
    await refused(
      'a=postgres://x/y',
      'FLOWMARK_CELLS: cells need PostgreSQL: set DATABASE_URL (the directory cell, main) too',
      '',
    );
  }, 60_000);

  it("every account's requests, timers, composite calls and collections stay in its cell (checked with SQL)", async () => {
    const main = await schemaOn(PG!, 'cells_main');
    cleanup.push(main.drop);
    const east = await schemaOn(SECOND!, 'cells_east');
    cleanup.push(east.drop);
    const dir = mkdtempSync(join(tmpdir(), 'flowmark-cells-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      FLOWMARK_DATA: dir,
      DATABASE_URL: main.url,
      FLOWMARK_CELLS: `east=${east.url}`,
      FLOWMARK_SWEEP_MS: '100',
      FLOWMARK_WORKERS: '1',
    };
    const servers: Served[] = [];
    cleanup.push(async () => {
      for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill();
      await Promise.all(servers.map((s) => s.exited));
    });

    // The first start makes `default` (in main); then the accounts, placed by --cell or the rule.
    const a = serve(env);
    servers.push(a);
    const urlA = await urlOf(a);
    await until(async () => (/password: (\S+)\n/.test(a.out) ? true : undefined), 'the first start', 30_000);
    const b = serve(env);
    servers.push(b);
    const urlB = await urlOf(b);

    const created = async (args: string[]) => {
      const r = await flowmark(['accounts', 'create', ...args], { env, timeoutMs: 30_000 });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return /password: (\S+)\n/.exec(r.stdout)![1]!;
    };
    const unknown = await flowmark(['accounts', 'create', 'nowhere', '--cell', 'west'], { env });
    expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({
      code: 1,
      stderr: 'flowmark accounts: unknown cell "west": the cells are main, east\n',
    });
    const passwords: Record<string, string> = {
      acme: await created(['acme', '--cell', 'east', '--name', 'Acme']),
      bravo: await created(['bravo']), // main 1 (default), east 1: a tie goes to main
      corp: await created(['corp']), // main 2, east 1: east
    };
    const listed = await flowmark(['accounts', 'list'], { env });
    expect(listed.stdout).toBe(
      'acme  east  Acme\nbravo  main  bravo\ncorp  east  corp\ndefault  main  Default account\n',
    );
    const cellOf: Record<string, string> = { acme: east.url, bravo: main.url, corp: east.url };
    // A store command's --account runs in the account's cell.
    const users = await flowmark(['users', 'list', '--account', 'acme'], { env });
    expect({ stdout: users.stdout, stderr: users.stderr }).toEqual({
      stdout: '1  admin  administrator  active\n',
      stderr: '',
    });

    // Each account, through both servers: a composite API writing a collection, a REST write, a
    // process request waiting at a timer, and a process started by a timer start event.
    for (const [i, account] of ['acme', 'bravo', 'corp'].entries()) {
      const url = i % 2 ? urlB : urlA;
      const other = i % 2 ? urlA : urlB;
      const login = await call(url, 'POST', '/api/v1/auth/login', {
        body: { account, login: 'admin', password: passwords[account] },
      });
      expect(login.status).toBe(200);
      expect(login.body.account.id).toBe(account);
      const cookie = sessionCookie(login.headers);
      const me = await call(other, 'GET', '/api/v1/auth/me', { cookie });
      expect(me.body.account.id).toBe(account);

      const api = await call(url, 'POST', '/api/v1/composite-apis', {
        cookie,
        body: {
          method: 'POST',
          path: 'orders',
          template: '<#assign o = save_object({"item": P_body.item, "by": P_customer}, "orders")>${o.by}',
        },
      });
      expect(api.status).toBe(201);
      const answered = await call(other, 'POST', `/live/${account}/composite/orders`, {
        cookie,
        body: { item: `pen of ${account}` },
      });
      expect({ status: answered.status, body: answered.body }).toEqual({ status: 200, body: account });
      const rest = await call(other, 'POST', '/api/v1/collections/orders/documents', {
        cookie,
        body: { item: `ink of ${account}`, by: account },
      });
      expect(rest.status).toBe(201);

      const saved = await call(url, 'POST', '/api/v1/processes', {
        cookie,
        body: TIMED,
        headers: { 'content-type': 'application/xml' },
      });
      expect(saved.status).toBe(201);
      const started = await call(other, 'POST', '/api/v1/requests', {
        cookie,
        body: { process: 'Timed', mode: 'TEST', data: {} },
      });
      expect(started.body.status).toBe(102);
      const ticking = await call(url, 'POST', '/api/v1/processes', {
        cookie,
        body: {
          name: 'Ticked',
          steps: [{ id: 1, script: 'tick ${P_customer}' }],
          graph: {
            nodes: [
              { id: 'Go', kind: 'start', timer: { duration: 'PT1S' } },
              { id: 't', kind: 'task', step: 1 },
              { id: 'e', kind: 'end' },
            ],
            flows: [
              { id: 'f1', source: 'Go', target: 't' },
              { id: 'f2', source: 't', target: 'e' },
            ],
          },
        },
      });
      expect(ticking.status).toBe(201);
    }

    // The timers fire in their cells: each account ends with its two requests completed there.
    const completed = (account: string) =>
      rows(
        cellOf[account]!,
        `SELECT COUNT(*)::int AS n FROM requests WHERE account_id = $1 AND status = 201`,
        [account],
      ).then((r) => r[0]!.n);
    for (const account of Object.keys(cellOf))
      await until(
        async () => ((await completed(account)) === 2 ? true : undefined),
        `the two requests of ${account} to complete`,
        60_000,
      );

    for (const account of Object.keys(cellOf)) {
      const home = cellOf[account]!;
      const away = home === main.url ? east.url : main.url;
      const count = async (cell: string, table: string) =>
        (await rows(cell, `SELECT COUNT(*)::int AS n FROM ${table} WHERE account_id = $1`, [account]))[0]!.n;
      for (const [table, n] of Object.entries(OWN_ROWS)) {
        expect({ account, table, n: await count(home, table) }).toEqual({ account, table, n });
        // the directory keeps a row of every account; nothing else of an account is outside its cell
        const expected = table === 'accounts' && away === main.url ? 1 : 0;
        expect({ account, table, away: await count(away, table) }).toEqual({
          account,
          table,
          away: expected,
        });
      }
      const items = await rows(
        home,
        `SELECT d.doc FROM documents d JOIN collections c ON c.id = d.collection_id
         WHERE c.account_id = $1 AND c.name = 'orders'`,
        [account],
      );
      expect(items.map((r) => (typeof r.doc === 'string' ? JSON.parse(r.doc) : r.doc).item).sort()).toEqual([
        `ink of ${account}`,
        `pen of ${account}`,
      ]);
      expect(await count(away, 'collections')).toBe(0);
      expect(await count(home, 'request_steps')).toBeGreaterThan(0);
      expect(await count(away, 'request_steps')).toBe(0);
    }
    // The placements: in the directory only.
    expect(await rows(main.url, 'SELECT account_id, cell FROM account_cells ORDER BY account_id')).toEqual([
      { account_id: 'acme', cell: 'east' },
      { account_id: 'corp', cell: 'east' },
    ]);
    expect(await rows(east.url, 'SELECT account_id FROM account_cells')).toEqual([]);
  }, 400_000);
});
