import type { Command } from '../main.js';
import { collections } from './collections.js';
import { files } from './files.js';
import { functions } from './functions.js';
import { render } from './render.js';
import { renderBatch } from './render-batch.js';
import { run } from './run.js';
import { seed } from './seed.js';
import { serve } from './serve.js';
import { token } from './token.js';
import { version } from './version.js';

/** Every CLI command, in the order `flowmark --help` lists them. One module per command. */
export const commands: Command[] = [
  version,
  functions,
  render,
  renderBatch,
  run,
  serve,
  token,
  seed,
  collections,
  files,
];
