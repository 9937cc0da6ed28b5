/** `flowmark render` and `flowmark render-batch`. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

async function cli(args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(args, { stdin: Readable.from([stdin]), stdout, stderr });
  return { code, out, err };
}

const dir = mkdtempSync(join(tmpdir(), 'flowmark-render-'));
writeFileSync(join(dir, 'main.ftl'), '<#import "lib.ftl" as l><@l.hi name/> ${total?string("0.00")}');
writeFileSync(join(dir, 'lib.ftl'), '<#macro hi who>Hi ${who}!</#macro>');
writeFileSync(join(dir, 'data.json'), '{"name": "Ann", "total": 1234.5}');

describe('flowmark render', () => {
  it('renders a file with data from a file, resolving imports next to it', async () => {
    const r = await cli(['render', join(dir, 'main.ftl'), '--data', join(dir, 'data.json')]);
    expect(r).toEqual({ code: 0, out: 'Hi Ann! 1234.50', err: '' });
  });

  it('reads the template from stdin, inline JSON data with dates, exact decimals and null as missing', async () => {
    const r = await cli(
      [
        'render',
        '-',
        '--data',
        '{"d": {"$datetime": "2024-02-29T13:45:00"}, "x": 0.1, "n": null}',
        '--time-zone',
        'Europe/Berlin',
      ],
      '${d?iso_local} ${x + 0.2} ${n!"missing"} ${.now?is_datetime?c}',
    );
    expect(r).toEqual({ code: 0, out: '2024-02-29T13:45:00+01:00 0.3 missing true', err: '' });
  });

  it('applies --locale and --setting; prints hashes as compact JSON unless --strict', async () => {
    const src = '${1234.5} ${h}';
    const data = ['--data', '{"h": {"a": [1, "x"]}}'];
    expect((await cli(['render', '-', ...data, '--locale', 'de_DE'], src)).out).toBe('1.234,5 {"a":[1,"x"]}');
    expect((await cli(['render', '-', ...data, '--setting', 'number_format=0.00'], src)).out).toBe(
      '1234.50 {"a":[1,"x"]}',
    );
    const strict = await cli(['render', '-', ...data, '--strict'], src);
    expect(strict.code).toBe(1);
    expect(strict.err).toContain('Expected a string or something automatically convertible to string');
  });

  it('prints template errors with position on stderr and exits 1; usage errors exit 2', async () => {
    const r = await cli(['render', '-', '--name', 'x.ftl'], 'a\n${missing}');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('The following has evaluated to null or missing');
    expect(r.err).toContain('[in template "x.ftl" at line 2, column 3]');
    expect((await cli(['render'])).code).toBe(2);
    expect((await cli(['render', '-', '--bogus'])).code).toBe(2);
    expect((await cli(['render', join(dir, 'nope.ftl')])).code).toBe(1);
    const bad = await cli(['render', '-', '--data', '{"a":'], 'x');
    expect([bad.code, bad.err]).toEqual([1, expect.stringContaining('the data is not valid JSON')]);
  });
});

describe('flowmark render-batch', () => {
  it('answers one JSON line per request, in order, with errors as data', async () => {
    const lines = [
      { id: 1, template: '${x} ${y?c}' },
      { id: 'two', template: '${a + 1}', data: { a: 41 } },
      {
        id: 3,
        template: '<#include "inc.ftl">',
        templates: { 'inc.ftl': 'inc ${.locale}' },
        locale: 'de_DE',
      },
      { id: 4, template: '${' },
      { id: 5, template: '${h}', data: { h: { k: true } }, strict: true },
      { id: 6, template: '${1.5}', settings: { number_format: '0.000' } },
    ];
    const input =
      '{"id":0,"template":"${x} ${y?c}","data":{"x":0.10,"y":12345678901234567890123}}\n' +
      lines.map((l) => JSON.stringify(l)).join('\n') +
      '\n\nnot json\n';
    const r = await cli(['render-batch'], input);
    expect(r.code).toBe(0);
    const out = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out[0]).toEqual({ id: 0, ok: true, output: '0.1 12345678901234567890123' });
    expect(out[1]).toMatchObject({
      id: 1,
      ok: false,
      errorType: 'InvalidReferenceException',
      line: 1,
      column: 3,
    });
    expect(out[2]).toEqual({ id: 'two', ok: true, output: '42' });
    expect(out[3]).toEqual({ id: 3, ok: true, output: 'inc de_DE' });
    expect(out[4]).toMatchObject({ id: 4, ok: false, errorType: 'ParseException' });
    expect(out[5]).toMatchObject({ id: 5, ok: false });
    expect(out[6]).toEqual({ id: 6, ok: true, output: '1.500' });
    expect(out[7]).toMatchObject({ id: null, ok: false, errorType: 'BadRequest' });
    expect(out).toHaveLength(8);
  });
});
