#!/usr/bin/env node
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  // a fresh clone before its first build: say what to do rather than print a module-not-found trace
  console.error(
    'flowmark: this checkout is not built yet (dist/ is missing): run `npm run build` first ' +
      '(or `npm start`, which builds and then serves)',
  );
  process.exit(1);
}
const { runCli } = await import(main.href);

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  },
);
