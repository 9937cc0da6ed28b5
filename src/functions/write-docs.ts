/**
 * Writes docs/functions.md and src/functions/declarations.ts (the declarations the registry loads
 * before the implementations) from the group modules themselves: `npm run docs:functions`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { declarationsModule } from './declarations-source.js';
import { functionsMarkdown } from './docs.js';
import { libraryGroups } from './library.js';
import { FunctionRegistry } from './registry.js';
import { sourceIndex } from './source-index.js';

const target = new URL('../../docs/functions.md', import.meta.url);
const declarations = new URL('./declarations.ts', import.meta.url);
const root = fileURLToPath(new URL('../..', import.meta.url));
writeFileSync(declarations, await declarationsModule());
console.log(`wrote ${declarations.pathname}`);
writeFileSync(target, functionsMarkdown(new FunctionRegistry(libraryGroups().flat()), sourceIndex(root)));
console.log(`wrote ${target.pathname}`);
