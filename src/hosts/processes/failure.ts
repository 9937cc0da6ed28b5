/**
 * How a step's failure is told: the message a person reads (P_message, the step record, the CLI)
 * and where it happened (template, line, column).
 */
import type { StepError } from '../../platform/processes/index.js';
import type { LogEntry, ProcessRequest } from '../../platform/index.js';
import { FunctionError } from '../../functions/errors.js';
import { PlatformError } from '../../platform/errors.js';
import { TemplateError } from '../../template/index.js';
import { errorMessage } from '../../errors/index.js';

/** A failure the host itself raises (a limit, a refused value), with the step's wording. */
export class StepFailure extends Error {
  override name = 'StepFailure';
  /** `code`: the BPMN error code (a sub-process that ended at an error end event). */
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export function stepError(e: unknown): StepError {
  if (e instanceof TemplateError) {
    const cause = e.cause instanceof Error ? e.cause.message : undefined;
    const description = (e.description ?? e.message).split('\n\n----')[0]!.trim();
    return { message: cause ?? description, template: e.templateName, line: e.line, column: e.column };
  }
  return { message: errorMessage(e) };
}

/** The line of the account's log that says why a request was aborted (301). */
export function abortedEntry(request: ProcessRequest): Omit<LogEntry, 'id' | 'accountId' | 'createdAt'> {
  return {
    requestId: request.id,
    projectId: request.projectId,
    userId: null,
    mode: request.mode,
    level: 'SEVERE',
    message: `request aborted (301 ABORTED): ${request.message ?? 'no message'}`,
  };
}

/** The text of P_message for a failed step: `<template>, line L, column C: <message>`. */
export function failureMessage(error: StepError): string {
  if (error.template === undefined) return error.message;
  return `${error.template}, line ${error.line}, column ${error.column}: ${error.message}`;
}

/**
 * The message of a failure for the account's log: the function's name stays before a message in
 * the spec's wording, which reads without it elsewhere (`count_objects: Cannot count objects with
 * an empty condition.`; docs/functions.md, "Errors"), and a platform error says what it is about
 * (`Unable to retrieve user. (user "nobody")`).
 */
export function loggedMessage(e: unknown, error: StepError): string {
  const cause = e instanceof TemplateError ? e.cause : e;
  if (!(cause instanceof FunctionError || cause instanceof PlatformError) || cause.message !== error.message)
    return error.message;
  const logged = cause instanceof FunctionError ? cause.qualified : error.message;
  // `Unable to retrieve user.` does not say which: the log line does
  return cause.subject !== undefined ? `${logged} (${cause.subject})` : logged;
}
