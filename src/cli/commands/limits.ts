/**
 * The `--data-document-limit SIZE` option of `flowmark serve` and `flowmark run`, over the
 * deployment's FLOWMARK_DATA_DOCUMENT_LIMIT (src/config): the evaluation limits a command's hosts
 * get. Empty when neither is set (the hosts' default, 5 MiB).
 */
import { dataDocumentLimit, parseByteSize } from '../../config/index.js';
import type { ExecutionLimits } from '../../functions/context.js';

/** The limits from the option, else the environment; throws ConfigError naming the bad one. */
export function evaluationLimits(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Partial<ExecutionLimits> {
  const bytes =
    option !== undefined ? parseByteSize(option, '--data-document-limit') : dataDocumentLimit(env);
  return bytes === undefined ? {} : { dataDocumentBytes: bytes };
}
