/**
 * The regex replacement thread's program (replace.ts starts it): one job at a time, RE2's
 * linear-time matcher on the whole text; a job past its time bound is stopped by terminating the
 * thread (replace.ts).
 */
import { parentPort } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { errorMessage } from '../../errors/index.js';

export interface ReplaceJob {
  id: number;
  pattern: string;
  flags: number;
  replacement: string;
  text: string;
  first: boolean;
}

const port = parentPort!;
port.on('message', (job: ReplaceJob) => {
  try {
    const matcher = RE2JS.compile(job.pattern, job.flags).matcher(job.text);
    const text = job.first
      ? matcher.replaceFirst(job.replacement, true)
      : matcher.replaceAll(job.replacement, true);
    port.postMessage({ id: job.id, text });
  } catch (e) {
    port.postMessage({ id: job.id, error: errorMessage(e) });
  }
});
