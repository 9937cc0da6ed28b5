/**
 * The regex thread's program (regex-worker.ts starts it): runs one job at a time, as the main
 * thread's matcher would, and answers its matches or the error's message. The main thread
 * terminates it when a job passes its time bound, which interrupts the match wherever it is.
 */
import { parentPort } from 'node:worker_threads';
import type { RegexJob, RegexMatch, RegexResult } from './regex-worker.js';

/** What the thread answers: the result, or why the pattern could not run. */
export type RegexAnswer = RegexResult | { error: string };

function run({ source, flags, input, op, maxMatches }: RegexJob): RegexResult {
  const matches: RegexMatch[] = [];
  let tooMany = false;
  const bare = flags.replace(/[gy]/g, '');
  if (op === 'last') {
    const re = new RegExp(source, bare + 'y');
    for (let i = input.length; i >= 0; i--) {
      re.lastIndex = i;
      const m = re.exec(input);
      if (m) {
        matches.push([m.index, ...m]);
        break;
      }
    }
  } else if (op === 'first') {
    const m = new RegExp(source, bare).exec(input);
    if (m) matches.push([m.index, ...m]);
  } else {
    const re = new RegExp(source, bare + 'g');
    let m: RegExpExecArray | null;
    while ((m = re.exec(input)) !== null) {
      if (matches.length >= maxMatches) {
        tooMany = true;
        break;
      }
      matches.push([m.index, ...m]);
      if (m[0].length === 0) re.lastIndex++;
    }
  }
  return { matches, tooMany };
}

const port = parentPort!;
port.on('message', (job: RegexJob) => {
  let answer: RegexAnswer;
  try {
    answer = run(job);
  } catch (e) {
    answer = { error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(answer);
});
