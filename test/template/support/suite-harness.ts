/**
 * Runs one case of FreeMarker's own template test suite (test/fixtures/template/suite, copied from
 * Apache FreeMarker 2.3.31) the way its TemplateTestCase does: locale en_US, time zone GMT+1, the
 * harness directives (assert, assertEquals, assertFails, noOutput), copyright comments stripped.
 */
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import {
  compile,
  DIRECTIVE,
  TemplateError,
  type CompileOptions,
  type RenderOptions,
} from '../../../src/template/index.js';
import { harnessEquals, harnessDescribe } from '../../../src/template/testing.js';

export const SUITE_DIR = new URL('../../fixtures/template/suite/', import.meta.url).pathname;

export interface SuiteCase {
  name: string;
  template: string;
  expected: string | null;
  noOutput: boolean;
  icis: string[];
  settings: Record<string, string>;
}

export function loadManifest(): SuiteCase[] {
  return (JSON.parse(readFileSync(join(SUITE_DIR, 'manifest.json'), 'utf8')) as { cases: SuiteCase[] }).cases;
}

/** TestUtil.removeFTLCopyrightComment. */
export function removeFtlCopyrightComment(ftl: string): string {
  let idx = ftl.indexOf('copyright');
  if (idx === -1) idx = ftl.indexOf('Copyright');
  if (idx === -1) return ftl;
  const before = ftl.slice(0, idx);
  const ab = before.lastIndexOf('<#--');
  const sb = before.lastIndexOf('[#--');
  const square = sb > ab;
  const first = square ? sb : ab;
  const endStart = ftl.indexOf(square ? '--]' : '-->', idx);
  const last = endStart + 2;
  let nl = 0;
  if (last + 1 < ftl.length) {
    const c = ftl[last + 1];
    if (c === '\n' || c === '\r') nl = c === '\r' && last + 2 < ftl.length && ftl[last + 2] === '\n' ? 2 : 1;
  }
  return ftl.slice(0, first) + ftl.slice(last + nl + 1);
}

/** TestUtil.removeTxtCopyrightComment. */
export function removeTxtCopyrightComment(s: string): string {
  if (!s.startsWith('/*')) return s;
  let end = s.indexOf('*/');
  if (end === -1) return s;
  end += 2;
  if (end < s.length) {
    const c = s[end];
    if (c === '\n' || c === '\r') {
      end++;
      if (c === '\r' && end < s.length && s[end] === '\n') end++;
    }
  }
  const comment = s.slice(0, end);
  if (!comment.includes('copyright') && !comment.includes('Copyright')) return s;
  return s.slice(end);
}

function readTemplate(name: string): string | undefined {
  const p = join(SUITE_DIR, 'templates', name);
  if (!existsSync(p)) return undefined;
  return removeFtlCopyrightComment(readFileSync(p, 'utf8'));
}

/** FreeMarker's localized lookup: name_en_AU.ftl, name_en.ftl, name.ftl. */
function localizedName(name: string, locale: string): string {
  const dot = name.lastIndexOf('.');
  const base = dot < 0 ? name : name.slice(0, dot);
  const ext = dot < 0 ? '' : name.slice(dot);
  const parts = locale.split('_');
  for (let i = parts.length; i > 0; i--) {
    const candidate = `${base}_${parts.slice(0, i).join('_')}${ext}`;
    if (existsSync(join(SUITE_DIR, 'templates', candidate))) return candidate;
  }
  return name;
}

function directive(invoke: (params: Record<string, unknown>, body: any) => unknown): unknown {
  return { [DIRECTIVE]: true, rawParams: true, invoke };
}

function fail(msg: string): never {
  throw new Error(msg);
}

export function harness(caseName: string, ici: string): Record<string, unknown> {
  return {
    message: 'Hello, world!',
    testName: caseName,
    iciIntValue: iciInt(ici),
    assert: directive((params) => {
      for (const k of Object.keys(params)) if (k !== 'test') fail(`Unsupported parameter: ${k}`);
      if (params.test === undefined) fail('Missing required parameter: test');
      const t = params.test;
      if (typeof t !== 'boolean' && !(t && typeof t === 'object' && 'matched' in t)) {
        fail(`Assertion failed:\nThe value had to be boolean, but it was ${harnessDescribe(t)}`);
      }
      const v = typeof t === 'boolean' ? t : (t as { matched: boolean }).matched;
      if (!v) fail('Assertion failed:\nthe value was false.');
    }),
    assertEquals: directive((params) => {
      if (params.actual === undefined) fail('Missing required parameter: actual');
      if (params.expected === undefined) fail('Missing required parameter: expected');
      if (!harnessEquals(params.actual, params.expected)) {
        fail(
          `Assertion failed:\nExpected: ${harnessDescribe(params.expected)}\nActual: ${harnessDescribe(params.actual)}`,
        );
      }
    }),
    assertFails: directive(async (params, body) => {
      const message = params.message as string | undefined;
      const messageRegexp = params.messageRegexp as string | undefined;
      const exception = params.exception as string | undefined;
      const nesting = params.causeNestingLevel;
      for (const k of Object.keys(params)) {
        if (!['message', 'messageRegexp', 'exception', 'causeNestingLevel'].includes(k))
          fail(`Unsupported parameter: ${k}`);
      }
      if (!body) return;
      let failed = false;
      try {
        await body.render();
      } catch (e) {
        failed = true;
        let err = e as TemplateError;
        // FreeMarker's harness checks the n-th cause (getCause()) instead of the error itself
        for (let n = nesting === undefined ? 0 : Math.trunc(Number(nesting)); n > 0; n--) {
          const cause = (err as { cause?: unknown }).cause;
          if (!(cause instanceof Error)) fail('Failure is not like expected: cause nesting too shallow');
          err = cause as TemplateError;
        }
        const text = err.description ?? err.message;
        if (message !== undefined && !text.toLowerCase().includes(message.toLowerCase())) {
          fail(
            `Failure is not like expected. The exception message:\n${JSON.stringify(text)}\ndoesn't contain:\n${JSON.stringify(message)}.`,
          );
        }
        if (
          messageRegexp !== undefined &&
          !new RegExp(messageRegexp.replace(/^\(\?s\)/, ''), 'is').test(err.message)
        ) {
          fail(
            `Failure is not like expected. The exception message:\n${JSON.stringify(err.message)}\ndoesn't match this regexp:\n${messageRegexp}.`,
          );
        }
        const kind = err.kind ?? err.constructor.name;
        if (exception !== undefined && !kind.includes(exception)) {
          fail(
            `Failure is not like expected. The exception class name ${kind} doesn't contain ${exception}.`,
          );
        }
      }
      if (!failed) fail("Block was expected to fail, but it didn't.");
    }),
    noOutput: directive(async (params, body) => {
      if (Object.keys(params).length) fail("This directive doesn't support any parameters.");
      if (body) await body.render();
    }),
    javaObjectInfo: {
      info: (o: unknown) => (o === undefined ? 'null' : `java.util.Locale ${JSON.stringify(String(o))}`),
    },
  };
}

export function iciInt(ici: string): number {
  const [a, b, c] = ici.split('.').map(Number);
  return a * 1_000_000 + b * 1_000 + c;
}

export interface CaseResult {
  ok: boolean;
  detail: string;
}

/** Runs `c` at one of its incompatible_improvements levels (the manifest asks for each of `c.icis`). */
export async function runCase(c: SuiteCase, ici: string): Promise<CaseResult> {
  const s = c.settings ?? {};
  const locale = s.locale ?? 'en_US';
  const compileOptions: CompileOptions = {
    name: localizedName(c.template, locale),
    strict: true,
    incompatibleImprovements: ici,
    strictSyntax: s.strict_syntax ? !/^(n|no|false|f)$/i.test(s.strict_syntax) : undefined,
  };
  const settings: Record<string, string> = {};
  for (const k of [
    'url_escaping_charset',
    'output_encoding',
    'auto_import',
    'number_format',
    'boolean_format',
  ]) {
    if (s[k] !== undefined) settings[k] = s[k];
  }
  const renderOptions: RenderOptions = {
    locale,
    timeZone: 'GMT+1',
    settings,
    loader: { load: (name) => readTemplate(localizedName(name, locale)) },
  };
  const source = readTemplate(compileOptions.name!);
  if (source === undefined) return { ok: false, detail: `template ${compileOptions.name} not found` };
  let output: string;
  try {
    output = await compile(source, compileOptions).render(harness(c.name, ici), renderOptions);
  } catch (e) {
    const cause =
      (e as TemplateError).kind === 'InternalError'
        ? `\n${((e as TemplateError).cause as Error)?.stack}`
        : '';
    return {
      ok: false,
      detail: `error: ${(e as Error).message}${cause}${process.env.SUITE_STACK ? (e as Error).stack : ''}`,
    };
  }
  if (c.noOutput) return { ok: true, detail: '' };
  // the expected file is read in the output encoding, like the suite's own harness
  const bytes = readFileSync(join(SUITE_DIR, 'expected', c.expected!));
  const expected = removeTxtCopyrightComment(iconv.decode(bytes, s.output_encoding ?? 'UTF-8'));
  const norm = (x: string): string => x.replace(/\r\n/g, '\n').replace(/\r/g, '\n');
  let ne = norm(expected);
  const na = norm(output);
  if (na.endsWith('\n') && !ne.endsWith('\n')) ne += '\n';
  else if (!na.endsWith('\n') && ne.endsWith('\n')) ne = ne.slice(0, -1);
  if (process.env.SUITE_DUMP) {
    writeFileSync('/tmp/suite-expected.txt', ne);
    writeFileSync('/tmp/suite-actual.txt', na);
  }
  if (ne === na) return { ok: true, detail: '' };
  return { ok: false, detail: firstDifference(ne, na) };
}

function firstDifference(expected: string, actual: string): string {
  const el = expected.split('\n');
  const al = actual.split('\n');
  for (let i = 0; i < Math.max(el.length, al.length); i++) {
    if (el[i] !== al[i]) {
      return `output differs at line ${i + 1}:\n  expected: ${JSON.stringify(el[i])}\n  actual:   ${JSON.stringify(al[i])}`;
    }
  }
  return 'output differs';
}
