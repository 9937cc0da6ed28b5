/** Rewrites the generated part of docs/script.md (the RMP* reference): `npx tsx src/script/write-docs.ts`. */
import { readFileSync, writeFileSync } from 'node:fs';
import { defaultRegistry } from '../functions/registry.js';
import { withGeneratedApi } from './docs.js';

const target = new URL('../../docs/script.md', import.meta.url);
writeFileSync(target, withGeneratedApi(readFileSync(target, 'utf8'), defaultRegistry()));
console.log(`wrote ${target.pathname}`);
