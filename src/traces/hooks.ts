/**
 * Where the layers report what the traces record (docs/deploy.md "Traces"). `tracing` stays
 * undefined until `setup.ts` is loaded — only when an exporter is configured — so with tracing off
 * no OpenTelemetry module is loaded and a call site costs one test of this binding. Nothing here
 * imports OpenTelemetry at run time.
 */
import type { Attributes, HrTime } from '@opentelemetry/api';

/** The W3C trace context of a span, as it crosses to an evaluation thread with its task. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** An HTTP request's server span, from its arrival to its answer. */
export interface HttpSpan {
  /** Runs `fn` with this span as the active one (what the route's work becomes a child of). */
  run<T>(fn: () => T): T;
  end(route: string | undefined, status: number): void;
}

/** The engines the SQL spans name (`db.system.name`). */
export type SqlEngine = 'sqlite' | 'postgresql';

/**
 * A span ended in an evaluation thread, as plain data: the thread sends it to the HTTP thread of
 * its process, which exports it with its own (isolation/thread-main.ts, EvaluationPool).
 */
export interface SpanRecord {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: string;
  parent?: { traceId: string; spanId: string; traceFlags: number; isRemote?: boolean };
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: { code: number; message?: string };
  attributes: Attributes;
  events: { name: string; time: HrTime; attributes?: Attributes }[];
  droppedAttributesCount: number;
  droppedEventsCount: number;
  scope: { name: string; version?: string };
}

export interface Tracing {
  /** An HTTP request arrived (its caller's `traceparent` continues the caller's trace). */
  http(method: string, headers: Readonly<Record<string, string | string[] | undefined>>): HttpSpan;
  /** The active span's context, to send with a task to an evaluation thread. */
  carry(): TraceCarrier | undefined;
  /** A task of the evaluation pool run in its thread: a child of the span that sent it. */
  task<T>(
    name: string,
    attributes: Record<string, string>,
    carried: TraceCarrier | undefined,
    fn: () => Promise<T>,
  ): Promise<T>;
  /** A call of a library function (the span is named by the function). */
  call<T>(name: string, fn: () => T): T;
  /** A SQL statement: only its operation (SELECT, INSERT …) is recorded, never its text or values. */
  statement<T>(engine: SqlEngine, text: string, fn: () => T): T;
  /** A process request driven until it waits or ends, or one of its steps. */
  process<T>(
    name: 'request' | 'step',
    attributes: Record<string, string | number>,
    fn: () => Promise<T>,
  ): Promise<T>;
  /** Spans an evaluation thread ended, exported here. */
  received(spans: SpanRecord[]): void;
}

/** The tracing of this thread; undefined while tracing is off. */
export let tracing: Tracing | undefined;

export function useTracing(t: Tracing | undefined): void {
  tracing = t;
}
