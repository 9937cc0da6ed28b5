// Requests per second of the flowmark server against a bare Fastify route, in the same run and
// the same server process: autocannon (in this process) loads a child process serving both.
// Target: a composite API whose script is trivial; until the composite host is wired in
// `flowmark serve`, the eval endpoint evaluating a trivial template with an API token, as
// `flowmark serve` runs it (token → caller → contextFor → template → JSON). Goal: ≥ 0.6 × bare.
//
//   npm run bench -- server            (BENCH_SECONDS=5 per round, 3 rounds per side by default)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  expect: string;
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;

if (process.argv[2] === '--serve') await serve();
else await measure();

/** The child: a bare Fastify route and a flowmark server on SQLite, both on free ports. */
async function serve(): Promise<void> {
  const { createPlatform } = await import('../src/platform/index.js');
  const { ApiTokens, createServer } = await import('../src/server/index.js');
  const { evalHost } = await import('../src/server/eval-host.js');
  const { openStore } = await import('../src/store/index.js');

  const dir = mkdtempSync(join(tmpdir(), 'flowmark-bench-'));
  const store = await openStore({ dataDir: dir, databaseUrl: undefined });
  const platform = createPlatform(store);
  await platform.accounts.create({ id: 'bench' });
  const user = await platform.directory.users.create('bench', { login: 'bench' });
  const { token } = await new ApiTokens(store, Date.now).create(
    { accountId: 'bench', userId: user.id },
    { name: 'bench' },
  );

  const hosts = evalHost(platform); // what `flowmark serve` uses for POST /api/v1/eval

  const bare = Fastify();
  bare.get('/bare', async () => ({ output: 'Hello bench' }));
  const bareAddress = await bare.listen({ port: 0, host: '127.0.0.1' });
  const app = await createServer({ store, platform, hosts });
  const appAddress = await app.listen({ port: 0, host: '127.0.0.1' });

  const targets: Target[] = [
    {
      name: 'bare Fastify route',
      url: `${bareAddress}/bare`,
      method: 'GET',
      headers: {},
      expect: '{"output":"Hello bench"}',
    },
    {
      name: 'eval endpoint, trivial template, Bearer token',
      url: `${appAddress}/api/v1/eval`,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ template: 'Hello ${name}', data: { name: 'bench' } }),
      expect: '"output":"Hello bench"',
    },
  ];
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await app.close();
    await bare.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

/** The parent: checks each target answers as expected, then alternates rounds of load on each. */
async function measure(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const [bare, target] = JSON.parse(firstLine) as [Target, Target];
  try {
    for (const t of [bare, target]) {
      const r = await fetch(t.url, { method: t.method, headers: t.headers, body: t.body });
      const text = await r.text();
      if (r.status !== 200 || !text.includes(t.expect)) throw new Error(`${t.name}: ${r.status} ${text}`);
    }
    const rps: Record<string, number[]> = { [bare.name]: [], [target.name]: [] };
    await load(bare, 1); // warm-up
    await load(target, 1);
    for (let round = 0; round < ROUNDS; round++)
      for (const t of round % 2 === 0 ? [bare, target] : [target, bare])
        rps[t.name]!.push(await load(t, SECONDS));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const b = median(rps[bare.name]!);
    const t = median(rps[target.name]!);
    console.log(`${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS}s per side (median requests/s)`);
    console.log(
      `${bare.name.padEnd(48)} ${b.toFixed(0).padStart(7)} req/s   rounds ${rps[bare.name]!.map((x) => x.toFixed(0)).join(', ')}`,
    );
    console.log(
      `${target.name.padEnd(48)} ${t.toFixed(0).padStart(7)} req/s   rounds ${rps[target.name]!.map((x) => x.toFixed(0)).join(', ')}`,
    );
    const ratio = t / b;
    console.log(`ratio ${ratio.toFixed(2)} (goal ≥ 0.60: ${ratio >= 0.6 ? 'met' : 'NOT met'})`);
  } finally {
    child.stdin!.end();
  }
}

async function load(t: Target, seconds: number): Promise<number> {
  const result = await autocannon({
    url: t.url,
    method: t.method,
    headers: t.headers,
    body: t.body,
    connections: CONNECTIONS,
    duration: seconds,
  });
  if (result.errors || result.non2xx)
    throw new Error(`${t.name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}
