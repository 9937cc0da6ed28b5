/**
 * An error a function raises for the script writer to read. The rule (docs/functions.md, "Errors"):
 * - a wording of the spec's part 7 (`Cannot count objects with an empty condition.`, `Project not
 *   found.` …, see SPEC_WORDINGS) is the whole message, exactly as the platform shows it; the
 *   function is named by where the error happened (the template's error report: `==> count_objects(…)`,
 *   `Failed at: …`; the hosts' log lines);
 * - every other message starts with the function's name, and the argument at fault when there is
 *   one: `list_objects: operator $where is not allowed`, `fn: argument 2 (name) <detail>`.
 * `detail` is the message without the function's name in both cases.
 */
export class FunctionError extends Error {
  override name = 'FunctionError';
  constructor(
    readonly functionName: string,
    readonly detail: string,
    /** The argument at fault, 1-based, when there is one. */
    readonly argument?: { index: number; name: string },
    /** What a platform error was about (`user "nobody"`), for the log lines (PlatformError.subject). */
    readonly subject?: string,
  ) {
    // An argument's error always names the function and the argument, whatever its wording.
    super(!argument && isSpecWording(detail) ? detail : qualifiedText(functionName, detail, argument));
  }

  /** The message with the function's name before it, whichever the rule: `fn: [argument i (name) ]detail`. */
  get qualified(): string {
    return qualifiedText(this.functionName, this.detail, this.argument);
  }
}

function qualifiedText(fn: string, detail: string, argument?: { index: number; name: string }): string {
  return `${fn}: ${argument ? `argument ${argument.index} (${argument.name}) ` : ''}${detail}`;
}

/** `fn: argument 2 (name) <detail>` */
export function argumentError(
  functionName: string,
  index: number,
  name: string,
  detail: string,
): FunctionError {
  return new FunctionError(functionName, detail, { index, name });
}

/**
 * The error messages of the spec's part 7 (/work/shared/spec/function-library.md, "7. Errors"), as
 * the platform writes them. `throw`'s message is the script's own (ScriptThrownError), not listed.
 */
export const SPEC_WORDINGS: readonly string[] = [
  'Cannot count objects with an empty condition.',
  'Unable to parse skip index or limit value.',
  'Cannot list objects with an empty condition.',
  'Cannot load an object with an empty condition.',
  'Cannot remove objects with an empty condition.',
  'Cannot update objects fields with an empty condition.',
  'Cannot update objects with an empty condition.',
  'Cannot update objects with a null object.',
  'Project not found.',
  'Request not found.',
  'Counter already being modified, cannot increment it.',
  'Timeout exception',
  'Custom list not found.',
  'No manager found.',
  'Impersonification is not allowed for user.',
  // "Malformed Object or CastClassException or Expected value.": one of the three, by cause
  'Malformed Object',
  'CastClassException',
  'Expected value',
  'Unable to retrieve user.',
];

/** The part-7 wordings with a variable part: `Invalid pipeline at position N.`, `Uploaded file X doesn't exist.` */
const SPEC_PATTERNS: readonly RegExp[] = [
  /^Invalid pipeline at position \d+\.$/,
  /^Uploaded file .+ doesn't exist\.$/s,
];

const WORDINGS = new Set(SPEC_WORDINGS);

/** Whether a message is one of the spec's part-7 wordings (then no function name goes before it). */
export function isSpecWording(message: string): boolean {
  return WORDINGS.has(message) || SPEC_PATTERNS.some((p) => p.test(message));
}

/** The message of something thrown: an Error's, else its text. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
