/** Rewrites the layer table of docs/architecture.md from layers.ts: `npm run docs:architecture`. */
import { readFileSync, writeFileSync } from 'node:fs';
import { withLayerTable } from './layers.js';

const target = new URL('../../docs/architecture.md', import.meta.url);
writeFileSync(target, withLayerTable(readFileSync(target, 'utf8')));
console.log(`wrote ${target.pathname}`);
