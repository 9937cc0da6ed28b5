/** Data that enters a request, checked before it touches the data document: a manual task's submission, the document's size; values as errors show them. */
import { PlatformError } from '../../platform/index.js';
import { isVariableName } from '../../platform/processes/index.js';
import { toJsonObject } from '../../platform/model.js';
import { dataDocumentBytes } from '../../functions/request/index.js';
import { StepFailure } from './failure.js';

/** A submission: an object whose fields are variable names (and, when the step lists fields, among them). */
export function checkSubmission(allowed: string[] | null, fields: unknown): Record<string, unknown> {
  const data = toJsonObject(fields ?? {}, 'the submission');
  for (const name of Object.keys(data)) {
    if (!isVariableName(name))
      throw new PlatformError(
        'invalid',
        `the submission's field ${JSON.stringify(name)} is not a variable name`,
      );
    if (allowed !== null && !allowed.includes(name))
      throw new PlatformError(
        'invalid',
        `the submission's field ${JSON.stringify(name)} is not a field of this task (${allowed.join(', ') || 'none'})`,
      );
  }
  return data;
}

/** A value as an error message shows it: JSON, cut to 60 characters. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Refuses a data document over its maximum size: the step fails and the process stops. */
export function checkDataSize(
  label: string,
  what: string,
  data: Record<string, unknown>,
  limit: number,
): void {
  const bytes = dataDocumentBytes(data);
  if (bytes > limit)
    throw new StepFailure(
      `${label}, ${what}: the data document would reach ${bytes} bytes, over its maximum of ${limit} bytes: the process is stopped`,
    );
}

/** Refuses a new request's data document over its maximum size (nothing is created). */
export function checkNewDocumentSize(data: Record<string, unknown>, limit: number): void {
  const bytes = dataDocumentBytes(data);
  if (bytes > limit)
    throw new PlatformError(
      'invalid',
      `the data document has ${bytes} bytes, over its maximum of ${limit} bytes`,
    );
}
