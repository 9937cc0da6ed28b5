/**
 * Runs a suite on every available storage engine: SQLite always (a fresh file in a temporary
 * directory) and PostgreSQL when FLOWMARK_TEST_PG is set (a fresh schema, dropped afterwards).
 *
 *   describeEachEngine('uploads', (engine) => {
 *     it('stores a file', async () => { const store = engine.store; … });
 *   });
 *
 * `engine.store` is opened (migrated) before the suite's tests and closed after them;
 * `engine.openStore()` opens another connection to the same database (a second process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { openStore, quoteIdent, type EngineName, type Store } from '../../src/store/index.js';

export interface EngineUnderTest {
  readonly name: EngineName;
  /** The suite's store (available inside tests and beforeAll/beforeEach hooks). */
  readonly store: Store;
  /** Another store on the same database, closed with the suite (`lockWaitMs`: its lock wait). */
  openStore(options?: { lockWaitMs?: number }): Promise<Store>;
}

/** The engines this run can test: sqlite, plus postgres when FLOWMARK_TEST_PG is set. */
export function availableEngines(): EngineName[] {
  return process.env.FLOWMARK_TEST_PG ? ['sqlite', 'postgres'] : ['sqlite'];
}

export function describeEachEngine(title: string, body: (engine: EngineUnderTest) => void): void {
  for (const name of availableEngines()) {
    describe(`${title} [${name}]`, () => {
      const engine = new SuiteEngine(name);
      beforeAll(() => engine.setUp());
      afterAll(() => engine.tearDown());
      body(engine);
    });
  }
}

let counter = 0;

/** A schema of its own on FLOWMARK_TEST_PG, for flowmark processes the test starts: its name and the DATABASE_URL that selects it. */
export async function createTestSchema(prefix: string): Promise<{ schema: string; databaseUrl: string }> {
  const schema = `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  await onTestServer((client) => client.query(`CREATE SCHEMA ${quoteIdent(schema)}`));
  const url = new URL(process.env.FLOWMARK_TEST_PG!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { schema, databaseUrl: url.toString() };
}

export async function dropTestSchema(schema: string): Promise<void> {
  await onTestServer((client) => client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`));
}

async function onTestServer(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.FLOWMARK_TEST_PG });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

class SuiteEngine implements EngineUnderTest {
  private main: Store | undefined;
  private readonly extra: Store[] = [];
  private dir: string | undefined;
  private schema: string | undefined;

  constructor(readonly name: EngineName) {}

  get store(): Store {
    if (!this.main) throw new Error('engines: the store is opened in beforeAll; use it inside tests');
    return this.main;
  }

  async setUp(): Promise<void> {
    if (this.name === 'sqlite') this.dir = mkdtempSync(join(tmpdir(), 'flowmark-test-'));
    else this.schema = `t_${process.pid}_${Date.now().toString(36)}_${counter++}`;
    this.main = await this.openStore();
  }

  async openStore(options: { lockWaitMs?: number } = {}): Promise<Store> {
    const store =
      this.name === 'sqlite'
        ? await openStore({ dataDir: this.dir!, databaseUrl: undefined, ...options })
        : await openStore({
            databaseUrl: process.env.FLOWMARK_TEST_PG!,
            pgSchema: this.schema,
            poolSize: 4,
            ...options,
          });
    if (this.main) this.extra.push(store);
    return store;
  }

  async tearDown(): Promise<void> {
    for (const s of this.extra) await s.close();
    await this.main?.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    if (this.schema) await dropTestSchema(this.schema);
  }
}
