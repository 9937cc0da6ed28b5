import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../src/functions/registry.js';
import { scriptApiMarkdown, withGeneratedApi } from '../../src/script/docs.js';
import { scriptApi, SCRIPT_OBJECTS } from '../../src/script/index.js';

describe('docs/script.md', () => {
  const committed = readFileSync(new URL('../../docs/script.md', import.meta.url), 'utf8');

  it('holds the current RMP* reference (run `npx tsx src/script/write-docs.ts` when this fails)', () => {
    expect(
      committed === withGeneratedApi(committed, defaultRegistry()),
      'docs/script.md is stale: npx tsx src/script/write-docs.ts',
    ).toBe(true);
  });

  it('documents every method of every object', () => {
    const md = scriptApiMarkdown(defaultRegistry());
    const api = scriptApi(defaultRegistry());
    for (const object of SCRIPT_OBJECTS) {
      expect(md).toContain(`### ${object}\n`);
      for (const m of api.objects[object]) expect(md).toContain(`\`${m.name}(`);
    }
    expect(md).toContain('| `lock(lockname, wait_timeout?, exec_timeout?)` | `R_lock` | boolean |');
  });
});
