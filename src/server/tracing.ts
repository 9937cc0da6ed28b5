/**
 * The server span of every HTTP request when tracing is on (docs/deploy.md "Traces"): named by
 * its method and route pattern (`POST /live/:account/*`), active while its hooks and handler run
 * so that the tasks it sends to the evaluation pool carry it.
 */
import type { Api } from './deps.js';
import type { HttpSpan, Tracing } from '../traces/hooks.js';

export function traceRequests(app: Api, tracing: Tracing): void {
  const spans = new WeakMap<object, HttpSpan>();
  app.addHook('onRequest', (request, _reply, done) => {
    const span = tracing.http(request.method, request.headers);
    spans.set(request, span);
    span.run(done);
  });
  // Again once the body is read: its stream's callbacks do not run in the request's context.
  app.addHook('preHandler', (request, _reply, done) => {
    const span = spans.get(request);
    if (span) span.run(done);
    else done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    spans.get(request)?.end(request.routeOptions.url, reply.statusCode);
    done();
  });
}
