/**
 * Whether this process traces, from OpenTelemetry's own environment variables (docs/deploy.md
 * "Traces"): off unless an exporter is named (OTEL_TRACES_EXPORTER) or an OTLP endpoint is given
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); OTEL_SDK_DISABLED=true turns
 * it off. Read without loading OpenTelemetry; a value flowmark cannot honour is a ConfigError
 * naming the variable.
 */
import { ConfigError } from '../config/index.js';

export type TraceExporterName = 'otlp' | 'console';

export interface TraceSettings {
  exporters: TraceExporterName[];
}

const EXPORTERS: readonly string[] = ['otlp', 'console', 'none'];

const isExporter = (name: string): name is TraceExporterName => name === 'otlp' || name === 'console';

export function traceSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TraceSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const named = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const name of named)
    if (!EXPORTERS.includes(name))
      throw new ConfigError(
        `OTEL_TRACES_EXPORTER: expected otlp, console or none (comma-separated), got ${JSON.stringify(name)}`,
      );
  const endpoint = Boolean(
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim(),
  );
  const exporters: TraceExporterName[] =
    named.length > 0
      ? named.includes('none')
        ? []
        : [...new Set(named.filter(isExporter))]
      : endpoint
        ? ['otlp']
        : [];
  if (exporters.length === 0) return undefined;
  if (exporters.includes('otlp'))
    for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
      const protocol = env[name]?.trim();
      if (protocol && protocol !== 'http/json')
        throw new ConfigError(
          `${name}: flowmark sends OTLP traces over HTTP as JSON: expected http/json, got ${JSON.stringify(protocol)}`,
        );
      if (protocol) break;
    }
  return { exporters };
}
