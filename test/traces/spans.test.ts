/**
 * Traces (docs/deploy.md "Traces") of the real server — `flowmark serve --workers 0` run in this
 * process, its evaluations in the pool's worker threads — recorded by an in-memory exporter: a
 * composite API whose template counts a collection's documents gives one tree, from the HTTP
 * request's span on the HTTP thread to the evaluation's span in its thread, the function call's
 * and the SQL statement's below it; a SQL span names its operation and engine, never the
 * statement's text or values.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe } from '../../src/cli/commands/serve.js';
import { startTracing } from '../../src/traces/setup.js';
import { availableEngines, createTestSchema, dropTestSchema } from '../support/engines.js';
import { call, login } from '../server/support.js';
import { until } from '../support/cli.js';

const memory = new InMemorySpanExporter();
beforeAll(async () => {
  await startTracing({ processors: [new SimpleSpanProcessor(memory)] });
});

/** The tree under `root`, one line a span, children in start order, indented by depth. */
function tree(spans: ReadableSpan[], root: ReadableSpan, depth = 0): string[] {
  const children = spans
    .filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  return [`${'  '.repeat(depth)}${root.name}`, ...children.flatMap((c) => tree(spans, c, depth + 1))];
}

for (const engine of availableEngines())
  describe(`traces of flowmark serve [${engine}]`, () => {
    const signals = new EventEmitter();
    let served: Promise<number>;
    let url = '';
    let admin = '';
    let dir = '';
    let schema: string | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'flowmark-traces-'));
      let databaseUrl = '';
      if (engine === 'postgres') {
        const s = await createTestSchema('traces');
        schema = s.schema;
        databaseUrl = s.databaseUrl;
      }
      Object.assign(process.env, {
        FLOWMARK_DATA: dir,
        DATABASE_URL: databaseUrl,
        FLOWMARK_EVAL_WORKERS: '1',
        FLOWMARK_EVAL_TIME_MS: '10000',
      });
      const stdout = new PassThrough();
      let out = '';
      stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      served = runServe(
        ['--port', '0', '--log-level', 'warn'],
        { stdin: new PassThrough(), stdout, stderr: stdout },
        signals,
      );
      url = await until(
        () => /^flowmark: serving on (http:\/\/127\.0\.0\.1:\d+) /m.exec(out)?.[1],
        'the banner',
        60_000,
      );
      const password = await until(() => /password: (\S+)/.exec(out)?.[1], 'the password');
      admin = await login(url, 'default', 'admin', password);
    }, 90_000);

    afterAll(async () => {
      signals.emit('SIGTERM');
      expect(await served).toBe(0);
      rmSync(dir, { recursive: true, force: true });
      if (schema) await dropTestSchema(schema);
    });

    const post = (path: string, body: unknown) => call(url, 'POST', path, { cookie: admin, body });

    it('a composite API counting a collection: HTTP request → evaluation → count_objects → SQL', async () => {
      expect((await post('/api/v1/collections', { name: 'orders', isPublic: true })).status).toBe(201);
      for (const status of ['open', 'open', 'closed'])
        expect((await post('/api/v1/collections/orders/documents', { status })).status).toBe(201);
      const created = await post('/api/v1/composite-apis', {
        method: 'GET',
        path: 'open-orders',
        isPublic: true,
        template: '{"open": ${count_objects({"status": "open"}, "orders")}}',
      });
      expect(created.status).toBe(201);
      // once to warm what is cached (the composite API's lookup), then the call traced
      expect((await call(url, 'GET', '/live/default/composite/open-orders')).body).toEqual({ open: 2 });
      await until(
        () => memory.getFinishedSpans().some((s) => s.name.startsWith('GET /live/')) || undefined,
        'the first call',
      );
      memory.reset();

      // the caller's trace goes on: its traceparent is the HTTP span's parent
      const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
      const r = await call(url, 'GET', '/live/default/composite/open-orders', {
        headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
      });
      expect([r.status, r.body]).toEqual([200, { open: 2 }]);
      const http = await until(
        () => memory.getFinishedSpans().find((s) => s.name === 'GET /live/:account/composite/*'),
        'the HTTP span',
      );
      const spans = memory.getFinishedSpans();
      expect(tree(spans, http)).toEqual([
        'GET /live/:account/composite/*',
        '  evaluate composite',
        '    count_objects',
        '      SELECT',
      ]);
      expect(http.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
      expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([callerTrace]));
      const byName = (name: string) => spans.find((s) => s.name === name)!;
      expect(http.attributes).toEqual({
        'http.request.method': 'GET',
        'http.route': '/live/:account/composite/*',
        'http.response.status_code': 200,
      });
      expect(byName('evaluate composite').attributes).toEqual({ 'flowmark.task': 'composite' });
      expect(byName('count_objects').attributes).toEqual({ 'code.function.name': 'count_objects' });
      // the operation only: neither the statement's text nor its values ("open", the collection)
      expect(byName('SELECT').attributes).toEqual({
        'db.system.name': engine === 'postgres' ? 'postgresql' : 'sqlite',
        'db.operation.name': 'SELECT',
      });
    });

    it('a process request: HTTP request → evaluation → process request → process step → function → SQL', async () => {
      expect(
        (
          await post('/api/v1/processes', {
            name: 'Counts',
            steps: [{ id: 1, name: 'Count', script: '${count_objects({"status": "closed"}, "orders")}' }],
          })
        ).status,
      ).toBe(201);
      memory.reset();
      const started = await post('/api/v1/requests', { process: 'Counts', mode: 'TEST' });
      expect(started.body.status).toBe(201);
      await until(
        () => memory.getFinishedSpans().find((s) => s.name === 'POST /api/v1/requests'),
        'the HTTP span',
      );
      const spans = memory.getFinishedSpans();
      const step = spans.find((s) => s.name === 'process step')!;
      expect(step.attributes).toEqual({ 'flowmark.step.id': 1, 'flowmark.step.type': 'script' });
      const ancestors: string[] = [];
      for (let s: ReadableSpan | undefined = step; s;) {
        ancestors.push(s.name);
        const parent: string | undefined = s.parentSpanContext?.spanId;
        s = spans.find((p) => p.spanContext().spanId === parent);
      }
      expect(ancestors).toEqual([
        'process step',
        'process request',
        'evaluate startRequest',
        'POST /api/v1/requests',
      ]);
      const below = tree(spans, step).join('\n');
      expect(below).toContain('\n  count_objects\n    SELECT\n');
    });
  });
