/**
 * The eval endpoint's host, built from what the lower layers offer: the caller's execution context
 * (contextFor: account settings, user, mode, project, request, internal parameters) rendered by
 * hosts/evaluate.ts. It reports the output, the variables the template set, what P_log wrote during the
 * evaluation, the response set_status / P_custom_header shaped, or the template's error with its
 * line and column. `flowmark serve` uses it for POST /api/v1/eval (src/server/hosts.ts takes its
 * input and output types from here).
 */
import type { CompositeResponse, ExecutionLimits, Mode } from '../functions/context.js';
import { contextFor } from '../functions/request/index.js';
import type { LogEntry } from '../platform/logs.js';
import type { Platform } from '../platform/index.js';
import { TemplateError } from '../template/index.js';
import { storeFaultAnswer } from '../store/index.js';
import { evaluate } from './evaluate.js';
import type { HostCaller } from './http.js';

/** POST /api/v1/eval: a template evaluated in a context chosen by the caller. */
export interface EvalInput {
  caller: HostCaller;
  template: string;
  mode: Mode;
  /** Login (or id) of the user to evaluate as; only an administrator may name another user. */
  asUser?: string;
  /** Variables in scope (the data document of a request). */
  data: Record<string, unknown>;
  projectId?: number;
  requestId?: string;
  locale?: string;
  timeZone?: string;
}

export interface EvalError {
  message: string;
  /** FreeMarker's exception kind (ParseException, InvalidReferenceException …) when known. */
  kind?: string;
  line?: number;
  column?: number;
  templateName?: string;
}

export interface LogLine {
  level: string;
  message: string;
}

export interface EvalOutput {
  /** The rendered text ('' when the evaluation failed). */
  output: string;
  /** Variables created or changed by the template (assign/global), as plain JSON values. */
  variables: Record<string, unknown>;
  /** What P_log wrote during the evaluation. */
  logs: LogLine[];
  /** What set_status and P_custom_header set. */
  response: { status?: number; statusName?: string; description?: string; headers: Record<string, string> };
  /** The failure, when the template did not render. */
  error?: EvalError;
}

export interface EvalHostOptions {
  clock?: () => number;
  random?: () => number;
  /** The evaluations' limits (dataDocumentBytes: a request's data document, for inject_objects …). */
  limits?: Partial<ExecutionLimits>;
}

export function evalHost(
  platform: Platform,
  options: EvalHostOptions = {},
): { evaluate(input: EvalInput): Promise<EvalOutput> } {
  return {
    async evaluate(input: EvalInput): Promise<EvalOutput> {
      const logged: LogEntry[] = [];
      const response: CompositeResponse = { headers: {} };
      const ctx = await contextFor({
        platform: recordingLogs(platform, logged),
        account: input.caller.accountId,
        user: input.asUser ?? input.caller.user.id,
        mode: input.mode,
        ...(input.projectId !== undefined ? { project: input.projectId } : {}),
        ...(input.requestId !== undefined ? { request: input.requestId } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
        ...(options.random ? { random: options.random } : {}),
        ...(options.limits ? { limits: options.limits } : {}),
        response,
      });
      if (input.locale !== undefined) ctx.locale = input.locale;
      if (input.timeZone !== undefined) ctx.timeZone = input.timeZone;
      const logs = () => logged.map((e) => ({ level: e.level, message: e.message }));
      const shaped = () => {
        const r = ctx.response ?? response;
        return {
          ...(r.status !== undefined ? { status: r.status } : {}),
          ...(r.statusName !== undefined ? { statusName: r.statusName } : {}),
          ...(r.description !== undefined ? { description: r.description } : {}),
          headers: { ...r.headers },
        };
      };
      try {
        const result = await evaluate(input.template, ctx, input.data);
        return { output: result.output, variables: result.globals, logs: logs(), response: shaped() };
      } catch (e) {
        // A store fault is the server's answer (507, 503, 409), not the template's error.
        if (!(e instanceof TemplateError) || storeFaultAnswer(e)) throw e;
        return {
          output: '',
          variables: {},
          logs: logs(),
          response: shaped(),
          error: {
            message: e.message,
            kind: e.kind,
            line: e.line,
            column: e.column,
            templateName: e.templateName,
          },
        };
      }
    },
  };
}

/** The platform with its log service also handing every entry written to `sink`. */
function recordingLogs(platform: Platform, sink: LogEntry[]): Platform {
  const logs = Object.create(platform.logs) as Platform['logs'];
  logs.write = async (accountId, entry) => {
    const written = await platform.logs.write(accountId, entry);
    sink.push(written);
    return written;
  };
  return { ...platform, logs };
}
