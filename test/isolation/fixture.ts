/** The stand-in evaluation worker the pool tests run (fixtures/worker.mjs), and the tasks it takes. */
import { fileURLToPath } from 'node:url';

export const FIXTURE = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));

/** A host task the stand-in worker carries out: `{ op: 'echo' | 'sleep' | 'busy' | …, … }`. */
export const op = (what: Record<string, unknown>) => ({
  kind: 'host' as const,
  method: 'evaluate' as const,
  args: [what],
});
