/**
 * Stopping both script backends at once. Its own module so that the JavaScript backend
 * (run.ts) and the Python one (python/run.ts, which imports run.ts) do not import each other.
 */
import { closePythonScripts } from './python/run.js';
import { closeJavaScriptScripts } from './run.js';

/** Stops every sandbox worker, JavaScript and Python (the next script starts new ones). */
export async function closeScripts(): Promise<void> {
  await Promise.all([closeJavaScriptScripts(), closePythonScripts()]);
}
