/** Writes docs/functions.md from the registry: `npm run docs:functions`. */
import { writeFileSync } from 'node:fs';
import { functionsMarkdown } from './docs.js';
import { defaultRegistry } from './registry.js';

const target = new URL('../../docs/functions.md', import.meta.url);
writeFileSync(target, functionsMarkdown(defaultRegistry()));
console.log(`wrote ${target.pathname}`);
