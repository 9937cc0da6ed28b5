/**
 * `flowmark serve` (the built CLI, one process: --workers 0) as OpenTelemetry's environment
 * variables configure it (docs/deploy.md "Traces"): without an exporter it loads no OpenTelemetry
 * module at all; with OTEL_EXPORTER_OTLP_ENDPOINT it sends the spans of a composite call — those
 * of its evaluation thread too — to that OTLP/HTTP endpoint as one tree; a setting it cannot
 * honour stops it with exit 2, naming the variable.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, finished, flowmark, spawnFlowmark, until } from '../support/cli.js';
import { call, login } from '../server/support.js';

let dir = '';
const children: ChildProcessWithoutNullStreams[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flowmark-traces-serve-'));
  writeFileSync(
    join(dir, 'loaded.cjs'),
    `process.on('exit', () => {
      const names = new Set();
      for (const file of Object.keys(require.cache)) {
        const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file);
        if (m) names.add(m[1]);
      }
      process.stderr.write('LOADED ' + JSON.stringify([...names].sort()) + '\\n');
    });`,
  );
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
    export async function load(url, context, next) {
      if (process.env.FLOWMARK_TEST_MODULES) appendFileSync(process.env.FLOWMARK_TEST_MODULES, url + '\\n');
      return next(url, context);
    }`,
  );
  writeFileSync(
    join(dir, 'modules.mjs'),
    `import { register } from 'node:module';
    import { pathToFileURL } from 'node:url';
    register(pathToFileURL(${JSON.stringify(join(dir, 'hooks.mjs'))}));`,
  );
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) {
      const done = finished(child, 20_000);
      child.kill('SIGTERM');
      await done.catch(() => undefined);
    }
  rmSync(dir, { recursive: true, force: true });
});

let servers = 0;

/** `flowmark serve --workers 0` on a fresh SQLite store, logged in, with a public composite API counting a collection. */
async function serve(env: Record<string, string>) {
  const data = join(dir, `data-${servers++}`);
  const server = spawnFlowmark(['serve', '--port', '0', '--workers', '0', '--log-level', 'warn'], {
    env: { FLOWMARK_DATA: data, DATABASE_URL: '', FLOWMARK_EVAL_WORKERS: '1', ...env },
  });
  children.push(server);
  const text = collect(server);
  const url = await until(
    () => /^flowmark: serving on (http:\/\/127\.0\.0\.1:\d+) /m.exec(text.out)?.[1],
    'the banner',
    60_000,
  );
  const password = await until(() => /password: (\S+)/.exec(text.out)?.[1], 'the password');
  const admin = await login(url, 'default', 'admin', password);
  const post = (path: string, body: unknown) => call(url, 'POST', path, { cookie: admin, body });
  expect((await post('/api/v1/collections', { name: 'orders', isPublic: true })).status).toBe(201);
  expect((await post('/api/v1/collections/orders/documents', { status: 'open' })).status).toBe(201);
  const created = await post('/api/v1/composite-apis', {
    method: 'GET',
    path: 'open-orders',
    isPublic: true,
    template: '{"open": ${count_objects({"status": "open"}, "orders")}}',
  });
  expect(created.status).toBe(201);
  const countOpen = async () => {
    const r = await call(url, 'GET', '/live/default/composite/open-orders');
    expect([r.status, r.body]).toEqual([200, { open: 1 }]);
  };
  const stop = async () => {
    const done = finished(server, 30_000);
    server.kill('SIGTERM');
    const end = await done;
    expect(end.code).toBe(0);
    return end;
  };
  return { countOpen, stop };
}

describe('flowmark serve and OpenTelemetry', () => {
  it('loads no OpenTelemetry module while no exporter is configured', async () => {
    const modulesList = join(dir, 'modules.txt');
    writeFileSync(modulesList, '');
    const { countOpen, stop } = await serve({
      NODE_OPTIONS: `--require ${join(dir, 'loaded.cjs')} --import ${join(dir, 'modules.mjs')}`,
      FLOWMARK_TEST_MODULES: modulesList,
    });
    await countOpen();
    await stop();
    const modules = readFileSync(modulesList, 'utf8').split('\n');
    // the list is the server's, its evaluation thread's included
    expect(modules.some((m) => m.includes('/node_modules/fastify/'))).toBe(true);
    expect(modules.some((m) => m.endsWith('/dist/isolation/worker.js'))).toBe(true);
    expect(modules.filter((m) => /@opentelemetry|\/dist\/traces\/(setup|context)\.js$/.test(m))).toEqual([]);
  }, 120_000);

  it('sends the spans of a composite call, its evaluation thread included, to OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const bodies: unknown[] = [];
    const collector: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (c: Buffer) => (body += c.toString()));
      request.on('end', () => {
        if (request.method === 'POST' && request.url === '/v1/traces') bodies.push(JSON.parse(body));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = collector.address() as AddressInfo;
      const { countOpen, stop } = await serve({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_SERVICE_NAME: 'flowmark-test',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });
      await countOpen(); // looks the composite API and the collection up, cached for the next call
      await countOpen();
      await stop(); // exports what is buffered
      interface OtlpSpan {
        name: string;
        spanId: string;
        parentSpanId?: string;
        attributes: { key: string; value: Record<string, unknown> }[];
      }
      const spans: OtlpSpan[] = [];
      const services = new Set<unknown>();
      for (const body of bodies as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      }[])
        for (const r of body.resourceSpans) {
          services.add(r.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue);
          for (const s of r.scopeSpans) spans.push(...s.spans);
        }
      expect([...services]).toEqual(['flowmark-test']);
      const tree = (root: OtlpSpan, depth = 0): string[] => [
        `${'  '.repeat(depth)}${root.name}`,
        ...spans.filter((s) => s.parentSpanId === root.spanId).flatMap((s) => tree(s, depth + 1)),
      ];
      // exported as they end: the first call's before the second's
      const calls = spans.filter((s) => s.name === 'GET /live/:account/composite/*');
      expect(calls.length).toBe(2);
      expect(tree(calls[1]!)).toEqual([
        'GET /live/:account/composite/*',
        '  evaluate composite',
        '    count_objects',
        '      SELECT',
      ]);
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  }, 120_000);

  it('refuses an exporter or a protocol it does not have, naming the variable', async () => {
    const protocol = await flowmark(['serve', '--workers', '0', '--port', '0'], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    });
    expect([protocol.code, protocol.stderr]).toEqual([
      2,
      'flowmark serve: OTEL_EXPORTER_OTLP_PROTOCOL: flowmark sends OTLP traces over HTTP as JSON: expected http/json, got "grpc"\n',
    ]);
    const exporter = await flowmark(['serve', '--workers', '0', '--port', '0'], {
      env: { OTEL_TRACES_EXPORTER: 'zipkin' },
    });
    expect([exporter.code, exporter.stderr]).toEqual([
      2,
      'flowmark serve: OTEL_TRACES_EXPORTER: expected otlp, console or none (comma-separated), got "zipkin"\n',
    ]);
  });
});
