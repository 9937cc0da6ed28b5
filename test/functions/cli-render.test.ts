import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixture } from './helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = `${root}bin/flowmark.js`;

/** Runs the built CLI (npm test builds dist/ first). */
function flowmark(args: string[], stdin: string) {
  if (!existsSync(`${root}dist/cli/main.js`))
    throw new Error('dist/ is missing: run `npm run build` (npm test does)');
  const r = spawnSync(process.execPath, [bin, ...args], { input: stdin, encoding: 'utf8', cwd: root });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const hmac = fixture('hmac').find((c) => c.call.length === 3 && c.call[1] === 'abc' && c.call[2] === 'key')!;

describe('flowmark render (the built CLI) calls the Utilities functions', () => {
  it('renders a template using several of them', () => {
    const template = [
      '<#assign rows = csv_to_json("id,qty\\n1,2\\n3,4", {"header": true})?eval>',
      '<#assign order = P_json_put({"id": id}, "total", "12.5")>',
      '${date_format("15/01/2024", "dd/MM/yyyy", "EEEE d MMMM yyyy")}',
      '${get_date(get_time("2024-02-29"), "dd/MM")}',
      '${R_hmac_hash("abc", "key")}',
      '${rows?size} ${rows[1].qty} ${order}',
      '${to_xml("order", order)}',
      '${P_quoted("it\'s")}',
      '${bubble_babble("")} ${decode("Base64", R_encode("BASE64", "é"))}',
      '',
    ].join('\n');
    const r = flowmark(['render', '-', '--data', '{"id": "A7"}', '--locale', 'fr_FR'], template);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        'lundi 15 janvier 2024',
        '29/02',
        hmac.expect,
        '2 4 {"id":"A7","total":12.5}',
        '<order><id>A7</id><total>12.5</total></order>',
        "'it\\'s'",
        'xexax é',
        '',
      ].join('\n'),
    );
  });

  it('prints a function error on stderr and exits 1', () => {
    const r = flowmark(['render', '-'], '${get_time("31/02/2024", "dd/MM/yyyy")}');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('get_time: argument 1 (date) Unparseable date: "31/02/2024"');
  });
});
