/**
 * The budget one evaluation carries (a template render, a collection query, a script, an import):
 * steps, wall time, bytes allocated into values and output bytes. Whoever is about to build a
 * large value asks the budget first (`allocate`), so a hostile script is refused *before* the
 * string, sequence or array exists; the error names what asked and the limit it would pass.
 *
 * Allocation is an allocation budget, not a live-heap measure: bytes are charged when a value is
 * built and never given back, so a loop that keeps building large values ends too. A string
 * counts 2 bytes a character (V8's two-byte strings), a slot of a sequence or hash 8 bytes.
 *
 * A leaf module: template/, platform/, functions/, script/ and hosts/ all import it.
 */

export interface EvaluationLimits {
  /** Steps of the template engine (directives, interpolations, loop iterations, lambda calls). */
  maxSteps: number;
  /** Wall time of one evaluation, in ms. */
  wallTimeMs: number;
  /** Bytes one evaluation may allocate into values (strings, sequences, hashes, function results). */
  maxAllocBytes: number;
  /** Characters one evaluation may output (`${}` and static text, JSON/XML printed for a response). */
  maxOutputChars: number;
  /**
   * Wall time of one regular expression run off the main thread (a pattern with back-references or
   * look-arounds), in ms: within the evaluation's own wall time, so one pattern holds a regex
   * thread for seconds, not for the whole evaluation.
   */
  regexTimeMs: number;
}

export const DEFAULT_EVALUATION_LIMITS: Readonly<EvaluationLimits> = Object.freeze({
  maxSteps: 5_000_000,
  wallTimeMs: 60_000,
  maxAllocBytes: 256 * 1024 * 1024,
  maxOutputChars: 20_000_000,
  regexTimeMs: 5_000,
});

/** Bytes a string of `length` characters is charged. */
export const STRING_CHAR_BYTES = 2;
/** Bytes a sequence item, a hash entry or an array slot is charged. */
export const SLOT_BYTES = 8;

export type BudgetLimitName = 'memory' | 'time' | 'steps' | 'output';

/** An evaluation went past one of its limits. `what` is the function, built-in or operator that asked. */
export class BudgetExceededError extends Error {
  override name = 'BudgetExceededError';
  readonly code = 'budget-exceeded';
  constructor(
    message: string,
    readonly limit: BudgetLimitName,
    readonly what: string,
  ) {
    super(message);
  }
}

/** Steps between two looks at the clock in `step`. */
const STEPS_PER_TIME_CHECK = 4096;

export class Budget {
  readonly limits: Readonly<EvaluationLimits>;
  /** Bytes charged so far. */
  allocated = 0;
  /** Steps charged so far by `step` (collection-expression iterations …; the template engine counts its own). */
  steps = 0;
  private readonly deadline: number;

  constructor(
    limits: Partial<EvaluationLimits> = DEFAULT_EVALUATION_LIMITS,
    private readonly now: () => number = performanceNow,
  ) {
    // Limits resolved once and frozen (resolvedLimits) are shared as they are: no copy per evaluation.
    this.limits = Object.isFrozen(limits) && isComplete(limits) ? limits : resolvedLimits(limits);
    const room = evaluationStarted?.(this.limits.wallTimeMs) ?? this.limits.wallTimeMs;
    this.deadline = this.now() + Math.min(room, this.limits.wallTimeMs);
  }

  /**
   * Charges `bytes` about to be allocated by `what` (e.g. `?split`, `list_objects`, `$range`);
   * throws before the caller builds the value when the evaluation's allocation limit would pass.
   */
  allocate(bytes: number, what: string): void {
    if (!(bytes > 0)) return;
    const total = this.allocated + bytes;
    if (total > this.limits.maxAllocBytes) throw this.memoryError(what);
    this.allocated = total;
  }

  /** `allocate` for a string of `length` characters. */
  allocateString(length: number, what: string): void {
    this.allocate(length * STRING_CHAR_BYTES, what);
  }

  /** `allocate` for `count` sequence items / hash entries / array slots. */
  allocateSlots(count: number, what: string): void {
    this.allocate(count * SLOT_BYTES, what);
  }

  /**
   * Charges `count` steps of work `what` is about to do (an operator's iterations over an array,
   * documents leaving a stage): past the step limit the evaluation stops, and the wall time is
   * looked at every few thousand steps.
   */
  step(count: number, what: string): void {
    if (!(count > 0)) return;
    const before = this.steps;
    this.steps = before + count;
    if (this.steps > this.limits.maxSteps) throw this.stepsError(what);
    if (Math.floor(before / STEPS_PER_TIME_CHECK) !== Math.floor(this.steps / STEPS_PER_TIME_CHECK))
      this.checkTime(what);
  }

  stepsError(what: string): BudgetExceededError {
    return new BudgetExceededError(
      `${what}: the evaluation exceeded its limit of ${this.limits.maxSteps} steps`,
      'steps',
      what,
    );
  }

  /** Throws when the evaluation is past its wall time. Cheap enough to call every few hundred steps. */
  checkTime(what: string): void {
    timeChecked?.();
    if (this.now() > this.deadline) throw this.timeError(what);
  }

  /** Milliseconds left before the wall-time limit (never negative). */
  remainingMs(): number {
    return Math.max(0, this.deadline - this.now());
  }

  memoryError(what: string): BudgetExceededError {
    return new BudgetExceededError(
      `${what}: the value would exceed the ${sizeText(this.limits.maxAllocBytes)} limit for one evaluation`,
      'memory',
      what,
    );
  }

  /** A value a function would copy (`what` names the function and argument) is larger than the memory left. */
  tooLargeError(what: string): BudgetExceededError {
    return new BudgetExceededError(
      `${what} is too large: a copy of it would exceed the ${sizeText(this.limits.maxAllocBytes)} limit for one evaluation`,
      'memory',
      what,
    );
  }

  /** Milliseconds one regular expression may run: the regex limit within what is left of the evaluation. */
  regexTimeoutMs(): number {
    return Math.min(this.remainingMs(), this.limits.regexTimeMs);
  }

  regexTimeError(what: string): BudgetExceededError {
    return new BudgetExceededError(
      `${what}: the regular expression ran longer than its limit of ${durationText(this.limits.regexTimeMs)} (FLOWMARK_REGEX_TIME_MS)`,
      'time',
      what,
    );
  }

  timeError(what: string): BudgetExceededError {
    return new BudgetExceededError(
      `${what}: the evaluation exceeded its time limit of ${durationText(this.limits.wallTimeMs)}`,
      'time',
      what,
    );
  }

  outputError(what: string): BudgetExceededError {
    return new BudgetExceededError(
      `${what}: the output would exceed the limit of ${this.limits.maxOutputChars} characters for one evaluation`,
      'output',
      what,
    );
  }
}

/** `256 MB` for whole mebibytes (the wording users see), else KiB or bytes. */
function sizeText(bytes: number): string {
  const mib = 1024 * 1024;
  if (bytes % mib === 0) return `${bytes / mib} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** `60 s`, `1500 ms`. */
function durationText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

const performanceNow = () => performance.now();

let evaluationStarted: ((wallTimeMs: number) => number | undefined) | undefined;
let timeChecked: (() => void) | undefined;

/**
 * Calls `listener` at every wall-time check of every budget in this thread. An evaluation thread
 * sends the replies it holds for the end of the event loop's turn there: an evaluation that keeps
 * the thread busy for long does not hold back the answers its sibling tasks have finished.
 */
export function onTimeCheck(listener: (() => void) | undefined): void {
  timeChecked = listener;
}

/**
 * Tells `listener` of every budget started in this thread, with its wall time; the listener may
 * answer the milliseconds the evaluation has left if fewer (the time its request already waited
 * counts). An evaluation worker publishes the deadline to the thread that watches it
 * (src/isolation), which stops the worker when an evaluation outruns its own checks.
 */
export function onEvaluationStart(listener: ((wallTimeMs: number) => number | undefined) | undefined): void {
  evaluationStarted = listener;
}

/** The limits of an evaluation: the defaults under the given ones, frozen (a Budget shares them as they are). */
export function resolvedLimits(limits: Partial<EvaluationLimits> = {}): Readonly<EvaluationLimits> {
  return Object.freeze({ ...DEFAULT_EVALUATION_LIMITS, ...definedOnly(limits) });
}

function isComplete(limits: Partial<EvaluationLimits>): limits is EvaluationLimits {
  return (
    typeof limits.maxSteps === 'number' &&
    typeof limits.wallTimeMs === 'number' &&
    typeof limits.maxAllocBytes === 'number' &&
    typeof limits.maxOutputChars === 'number' &&
    typeof limits.regexTimeMs === 'number'
  );
}

function definedOnly<T extends object>(o: Partial<T>): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
