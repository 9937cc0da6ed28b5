/**
 * Tracing on (docs/deploy.md "Traces"): an OpenTelemetry tracer provider for this thread and the
 * `Tracing` the layers report to (hooks.ts). Loaded only when traces are configured, by `flowmark
 * serve` (its HTTP thread: the exporters) and by each evaluation thread (`traceInThread`: its
 * spans go to the HTTP thread of its process, which exports them with its own).
 */
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
} from '@opentelemetry/semantic-conventions';
import { AsyncContextManager } from './context.js';
import { useTracing, tracing, type HttpSpan, type SpanRecord, type Tracing } from './hooks.js';
import type { TraceExporterName } from './settings.js';

const SCOPE = 'flowmark';

export interface StartedTracing {
  /** Exports what is buffered, then stops: spans ended after it are dropped. */
  shutdown(): Promise<void>;
  forceFlush(): Promise<void>;
}

let started: StartedTracing | undefined;

/**
 * Starts tracing in this thread, exporting through `processors` (a test's in-memory exporter)
 * or through the exporters named, each behind a batch processor. Once per thread: a second call
 * returns the first tracing.
 */
export async function startTracing(options: {
  exporters?: readonly TraceExporterName[];
  processors?: SpanProcessor[];
}): Promise<StartedTracing> {
  if (started) return started;
  const processors = options.processors ?? [];
  for (const name of options.exporters ?? []) {
    if (name === 'console') processors.push(new BatchSpanProcessor(new ConsoleSpanExporter()));
    else {
      // read from OTEL_EXPORTER_OTLP_* by the exporter itself (endpoint, headers, timeout)
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
      processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
    }
  }
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'flowmark' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: processors });
  install(provider.getTracer(SCOPE), (records) => {
    for (const record of records) {
      const span = readable(record, resource);
      for (const p of processors) p.onEnd(span);
    }
  });
  return (started = {
    shutdown: async () => {
      useTracing(undefined);
      await provider.shutdown();
    },
    forceFlush: () => provider.forceFlush(),
  });
}

/** Tracing in an evaluation thread: each span it ends goes to `send` (the thread's outbox). */
export function traceInThread(send: (span: SpanRecord) => void): Tracing {
  if (tracing) return tracing;
  const forward: SpanProcessor = {
    onStart() {},
    onEnd: (span) => send(record(span)),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new BasicTracerProvider({ spanProcessors: [forward] });
  return install(provider.getTracer(SCOPE), () => {
    throw new Error('an evaluation thread exports no span of another thread');
  });
}

function install(tracer: Tracer, received: (spans: SpanRecord[]) => void): Tracing {
  context.setGlobalContextManager(new AsyncContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const installed = tracingOf(tracer, received);
  useTracing(installed);
  return installed;
}

/** The `Tracing` of hooks.ts over `tracer`. */
function tracingOf(tracer: Tracer, received: (spans: SpanRecord[]) => void): Tracing {
  const inSpan = <T>(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    fn: () => T,
    parent?: Context,
  ): T =>
    tracer.startActiveSpan(name, { kind, attributes }, parent ?? context.active(), (span) => {
      let out: T;
      try {
        out = fn();
      } catch (e) {
        failed(span, e);
        span.end();
        throw e;
      }
      // the caller gets its own promise; the span ends before the caller's continuation runs
      if (out instanceof Promise)
        out.then(
          () => span.end(),
          (e: unknown) => {
            failed(span, e);
            span.end();
          },
        );
      else span.end();
      return out;
    });
  return {
    http(method, headers): HttpSpan {
      const parent = propagation.extract(context.active(), headers, headerGetter);
      const span = tracer.startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method } },
        parent,
      );
      const active = trace.setSpan(parent, span);
      return {
        run: (fn) => context.with(active, fn),
        end(route, status) {
          if (route !== undefined) {
            span.updateName(`${method} ${route}`);
            span.setAttribute(ATTR_HTTP_ROUTE, route);
          }
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
          if (status >= 500) {
            span.setAttribute(ATTR_ERROR_TYPE, String(status));
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
    carry() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      if (!carrier.traceparent) return undefined;
      return carrier.tracestate
        ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
        : { traceparent: carrier.traceparent };
    },
    task(name, attributes, carried, fn) {
      const parent = carried ? propagation.extract(context.active(), carried) : context.active();
      return inSpan(name, SpanKind.INTERNAL, attributes, fn, parent);
    },
    call: (name, fn) => inSpan(name, SpanKind.INTERNAL, { 'code.function.name': name }, fn),
    statement(engine, text, fn) {
      const operation = operationOf(text);
      return inSpan(
        operation,
        SpanKind.CLIENT,
        { [ATTR_DB_SYSTEM_NAME]: engine, [ATTR_DB_OPERATION_NAME]: operation },
        fn,
      );
    },
    process: (name, attributes, fn) => inSpan(`process ${name}`, SpanKind.INTERNAL, attributes, fn),
    received,
  };
}

const headerGetter = {
  keys: (carrier: Readonly<Record<string, string | string[] | undefined>>) => Object.keys(carrier),
  get: (carrier: Readonly<Record<string, string | string[] | undefined>>, key: string) => carrier[key],
};

/** The statement's first keyword: its operation (`WITH` for a common table expression). */
function operationOf(text: string): string {
  return /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
}

/** Marks `span` failed with the error's kind only: its message may hold a tenant's data. */
function failed(span: Span, e: unknown): void {
  const code = e && typeof e === 'object' && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
  span.setAttribute(ATTR_ERROR_TYPE, code ?? (e instanceof Error ? e.name : typeof e));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** An ended span as plain data, to cross to the HTTP thread. */
function record(span: ReadableSpan): SpanRecord {
  const own = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    name: span.name,
    kind: span.kind,
    traceId: own.traceId,
    spanId: own.spanId,
    traceFlags: own.traceFlags,
    ...(own.traceState ? { traceState: own.traceState.serialize() } : {}),
    ...(parent
      ? {
          parent: {
            traceId: parent.traceId,
            spanId: parent.spanId,
            traceFlags: parent.traceFlags,
            ...(parent.isRemote !== undefined ? { isRemote: parent.isRemote } : {}),
          },
        }
      : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: { ...span.status },
    attributes: { ...span.attributes },
    events: span.events.map((e) => ({
      name: e.name,
      time: e.time,
      ...(e.attributes ? { attributes: { ...e.attributes } } : {}),
    })),
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    scope: { name: span.instrumentationScope.name, version: span.instrumentationScope.version },
  };
}

/** A span a thread recorded, as this thread's exporters read one. */
function readable(r: SpanRecord, resource: Resource): ReadableSpan {
  const traceState = r.traceState ? new TraceState(r.traceState) : undefined;
  return {
    name: r.name,
    kind: r.kind,
    spanContext: () => ({
      traceId: r.traceId,
      spanId: r.spanId,
      traceFlags: r.traceFlags,
      ...(traceState ? { traceState } : {}),
    }),
    ...(r.parent ? { parentSpanContext: r.parent } : {}),
    startTime: r.startTime,
    endTime: r.endTime,
    duration: r.duration,
    status: r.status,
    attributes: r.attributes,
    links: [],
    events: r.events,
    ended: true,
    resource,
    instrumentationScope: r.scope,
    droppedAttributesCount: r.droppedAttributesCount,
    droppedEventsCount: r.droppedEventsCount,
    droppedLinksCount: 0,
  };
}
