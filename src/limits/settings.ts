/**
 * The deployment's evaluation limits from the environment (docs/server.md "Limits"):
 * FLOWMARK_EVAL_STEPS, FLOWMARK_EVAL_TIME_MS, FLOWMARK_EVAL_MEMORY (bytes, or with KiB/MiB) and
 * FLOWMARK_EVAL_OUTPUT_CHARS, and FLOWMARK_REGEX_TIME_MS. An unset variable keeps the default; a bad one is a ConfigError
 * naming it.
 */
import { ConfigError, parseByteSize } from '../config/index.js';
import { DEFAULT_EVALUATION_LIMITS, type EvaluationLimits } from './budget.js';

export function evaluationLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): EvaluationLimits {
  const out: EvaluationLimits = { ...DEFAULT_EVALUATION_LIMITS };
  const steps = env.FLOWMARK_EVAL_STEPS;
  if (steps?.trim()) out.maxSteps = positiveInteger(steps, 'FLOWMARK_EVAL_STEPS', 1e9);
  const time = env.FLOWMARK_EVAL_TIME_MS;
  if (time?.trim()) out.wallTimeMs = positiveInteger(time, 'FLOWMARK_EVAL_TIME_MS', 3_600_000);
  const memory = env.FLOWMARK_EVAL_MEMORY;
  if (memory?.trim()) out.maxAllocBytes = parseByteSize(memory, 'FLOWMARK_EVAL_MEMORY');
  const output = env.FLOWMARK_EVAL_OUTPUT_CHARS;
  if (output?.trim()) out.maxOutputChars = positiveInteger(output, 'FLOWMARK_EVAL_OUTPUT_CHARS', 1e9);
  const regex = env.FLOWMARK_REGEX_TIME_MS;
  if (regex?.trim()) out.regexTimeMs = positiveInteger(regex, 'FLOWMARK_REGEX_TIME_MS', 3_600_000);
  return out;
}

function positiveInteger(text: string, name: string, max: number): number {
  const n = /^\s*\d{1,10}\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max)
    throw new ConfigError(`${name}: expected an integer from 1 to ${max}, got ${JSON.stringify(text)}`);
  return n;
}
