/** Writes docs/functions.md from the registry: `npm run docs:functions`. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { functionsMarkdown } from './docs.js';
import { defaultRegistry } from './registry.js';
import { sourceIndex } from './source-index.js';

const target = new URL('../../docs/functions.md', import.meta.url);
const root = fileURLToPath(new URL('../..', import.meta.url));
writeFileSync(target, functionsMarkdown(defaultRegistry(), sourceIndex(root)));
console.log(`wrote ${target.pathname}`);
