/**
 * Whether this process loaded the script sandboxes (run.ts and python/run.ts, which the `script`
 * directive imports with the first script): a command that ran none has no worker to close and
 * need not load them to find out (src/cli/main.ts).
 */
let loaded = false;

export function scriptsLoaded(): boolean {
  return loaded;
}

/** Called once by python/run.ts as it loads (run.ts imports it). */
export function markScriptsLoaded(): void {
  loaded = true;
}
