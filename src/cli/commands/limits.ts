/**
 * The `--data-document-limit SIZE` option of `flowmark serve` and `flowmark run`, over the
 * deployment's FLOWMARK_DATA_DOCUMENT_LIMIT (src/config), and the limits of one evaluation from
 * FLOWMARK_EVAL_* (src/limits): the evaluation limits a command's hosts get. The data document's
 * limit is absent when neither is set (the hosts' default, 5 MiB).
 */
import { dataDocumentLimit, parseByteSize } from '../../config/index.js';
import type { ExecutionLimits } from '../../functions/context.js';
import { evaluationLimitsFromEnv } from '../../limits/index.js';

/** The limits from the option, else the environment; throws ConfigError naming the bad one. */
export function evaluationLimits(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Partial<ExecutionLimits> {
  const bytes =
    option !== undefined ? parseByteSize(option, '--data-document-limit') : dataDocumentLimit(env);
  const evaluation = evaluationLimitsFromEnv(env);
  return bytes === undefined ? { evaluation } : { dataDocumentBytes: bytes, evaluation };
}
