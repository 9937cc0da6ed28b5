/**
 * Differential corpus: every case of test/fixtures/template/corpus/cases.txt was rendered by real
 * FreeMarker 2.3.31 (generate.mjs) and the answer committed in expected.jsonl. flowmark must give
 * the same output, or fail where FreeMarker fails (at the same line and column).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile, optionsFromSettings, TemplateError } from '../../src/template/index.js';
import { dataFromJson } from '../../src/template/data.js';

interface Case {
  id: string;
  template: string;
  data: unknown;
  settings?: Record<string, string>;
  templates?: Record<string, string>;
  name?: string;
  /** Compare the error message (without the FTL stack trace) too. */
  exactMessage?: boolean;
  ok: boolean;
  output?: string;
  errorType?: string;
  error?: string;
  line?: number;
  column?: number;
}

const cases: Case[] = readFileSync(
  new URL('../fixtures/template/corpus/expected.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

export async function runCorpusCase(c: Case): Promise<{ output?: string; error?: TemplateError }> {
  // The oracle's settings: parser-level ones go to compile, the rest to render.
  const opts = optionsFromSettings(c.settings ?? {});
  try {
    const t = compile(c.template, { name: c.name ?? 't.ftl', strict: true, ...opts.compile });
    const output = await t.render(dataFromJson(JSON.stringify(c.data ?? {}), 'UTC'), {
      ...opts.render,
      loader: { load: (n) => c.templates?.[n] },
      now: () => Date.UTC(2024, 0, 15, 12, 0, 0),
    });
    return { output };
  } catch (e) {
    if (e instanceof TemplateError) return { error: e };
    throw e;
  }
}

/** FreeMarker's getMessageWithoutStackTop: the message without the "FTL stack trace" block. */
function withoutFtlStack(message: string): string {
  const i = message.indexOf('\n\n----\nFTL stack trace');
  return i < 0 ? message : message.slice(0, i);
}

describe('differential corpus (answers of FreeMarker 2.3.31)', () => {
  it('has at least 300 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(300);
  });

  for (const c of cases) {
    it(c.id, async () => {
      const r = await runCorpusCase(c);
      if (c.ok) {
        expect(r.error?.message).toBeUndefined();
        expect(r.output).toBe(c.output);
      } else {
        expect(r.output, `FreeMarker failed with: ${c.error}`).toBeUndefined();
        if (c.line !== undefined) {
          expect([r.error!.line, r.error!.column], r.error!.message).toEqual([c.line, c.column]);
        }
        if (c.exactMessage) expect(withoutFtlStack(r.error!.message)).toBe(c.error);
      }
    });
  }
});
