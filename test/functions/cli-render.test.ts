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

  it('reaches every Utilities function', () => {
    const calls: Record<string, string> = {
      bubble_babble: 'bubble_babble("x")',
      cipher: 'cipher("x", generate_key("k")).ciphered?length',
      decipher: 'decipher(c.ciphered, c.iv, k)',
      generate_key: 'generate_key("k")?length',
      csv_to_json: 'csv_to_json("a,b")',
      json_to_csv: 'json_to_csv([["a", "b"]])?trim',
      load: 'load("a=1", "URL").a',
      date_format: 'date_format("2024-01-15", "yyyy-MM-dd", "dd/MM/yy")',
      date_offset: 'date_offset("2024-01-31", 1)',
      get_date: 'get_date(0)',
      get_time: 'get_time("1970-01-02")?c',
      now: 'now()?length',
      timestamp: '(timestamp() > 0)?c',
      decode: 'decode("Base64", "eA==")',
      R_encode: 'R_encode("URL", "a b")',
      encrypt: 'encrypt("MD5", "x")',
      password_digest: 'password_digest("x")?length',
      R_hmac_hash: 'R_hmac_hash("x", "k", "MD5", "HEXA")?length',
      R_rsa_hash: 'R_rsa_hash("x", pem)?length',
      get_random: '(get_random() < 1)?c',
      get_random_gaussian: 'get_random_gaussian("5", "0")?c',
      uuid: 'uuid()?length',
      safe_get: 'safe_get("nokey", "none") + safe_get("c.iv", "")?length',
      to_xml: 'to_xml("r", {"a": 1})',
      transpose: 'transpose({"a": [1]})',
      P_json_accumulate: 'P_json_accumulate({"a": 1}, "a", 2)',
      P_json_accumulateAll: 'P_json_accumulateAll({"a": 1}, {"a": 2})',
      P_json_parse: 'P_json_parse("[1]")',
      P_json_put: 'P_json_put({}, "a", 1)',
      P_json_put_ext: 'P_json_put_ext({}, "a.b", 1)',
      P_json_putAll: 'P_json_putAll({"a": 1}, {"b": 2})',
      P_json_remove: 'P_json_remove({"a": 1}, "a")',
      P_json_remove_ext: 'P_json_remove_ext({"a": {"b": 1}}, "a.b")',
      P_json_stringify: 'P_json_stringify({"a": [1]})',
      P_markdown_to_html: 'P_markdown_to_html("*x*")?contains("<em>x</em>")?c',
      P_quoted: 'P_quoted("x")',
      P_to_array: 'P_to_array({"a": 1}, "a")',
    };
    const template =
      '<#assign k = generate_key("k")><#assign c = cipher("secret", k)>' +
      Object.entries(calls)
        .map(([name, expr]) => `${name}=\${${expr}}\n`)
        .join('');
    const pem = fixture<{ keys: { pkcs8: string } }>('rsa').keys.pkcs8;
    const r = flowmark(['render', '-', '--data', JSON.stringify({ pem })], template);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.split('\n').slice(0, -1)).toEqual([
      'bubble_babble=xivax',
      'cipher=24',
      'decipher=secret',
      'generate_key=44',
      'csv_to_json=[["a","b"]]',
      'json_to_csv=a,b',
      'load=1',
      'date_format=15/01/24',
      'date_offset=2024-02-01',
      'get_date=1970-01-01',
      'get_time=86400',
      'now=10',
      'timestamp=true',
      'decode=x',
      'R_encode=a+b',
      'encrypt=9dd4e461268c8034f5c8564e155c67a6',
      'password_digest=64',
      'R_hmac_hash=32',
      'R_rsa_hash=344',
      'get_random=true',
      'get_random_gaussian=5',
      'uuid=36',
      'safe_get=none24',
      'to_xml=<r><a>1</a></r>',
      'transpose=[{"a":1}]',
      'P_json_accumulate={"a":[1,2]}',
      'P_json_accumulateAll={"a":[1,2]}',
      'P_json_parse=[1]',
      'P_json_put={"a":1}',
      'P_json_put_ext={"a":{"b":1}}',
      'P_json_putAll={"a":1,"b":2}',
      'P_json_remove={}',
      'P_json_remove_ext={"a":{}}',
      'P_json_stringify={"a":[1]}',
      'P_markdown_to_html=true',
      "P_quoted='x'",
      'P_to_array=[1]',
    ]);
    expect(Object.keys(calls)).toHaveLength(37);
  });

  it('prints a function error on stderr and exits 1', () => {
    const r = flowmark(['render', '-'], '${get_time("31/02/2024", "dd/MM/yyyy")}');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('get_time: argument 1 (date) Unparseable date: "31/02/2024"');
  });

  it('asks "did you mean …?" for a call of a misspelled library function, and only then', () => {
    const tip =
      "Tip: If the failing expression is known to legally refer to something that's sometimes null or missing, " +
      'either specify a default value like myOptionalVar!myDefault, or use <#if myOptionalVar??>when-present' +
      '<#else>when-missing</#if>. (These only cover the last step of the expression; to cover the whole ' +
      'expression, use parenthesis: (myOptionalVar.foo)!myDefault, (myOptionalVar.foo)??';
    const misspelled = flowmark(['render', '-'], '${list_object({"a":1}, "c")}');
    expect(misspelled.code).toBe(1);
    expect(misspelled.out).toBe('');
    expect(misspelled.err).toBe(
      [
        'The following has evaluated to null or missing:',
        '==> list_object  [in template "template" at line 1, column 3]',
        '',
        '----',
        'Tip: There is no function list_object: did you mean list_objects?',
        '----',
        tip,
        '----',
        '',
        '----',
        'FTL stack trace ("~" means nesting-related):',
        '\t- Failed at: ${list_object({"a": 1}, "c")}  [in template "template" at line 1, column 1]',
        '----',
        '',
      ].join('\n'),
    );
    expect(flowmark(['render', '-'], '${get_lane_user(1)}').err).toContain(
      'Tip: There is no function get_lane_user: did you mean get_lane_users?\n',
    );
    expect(flowmark(['render', '-'], '${UUID()}').err).toContain('did you mean uuid?');
    // far from every library name, or not a call: FreeMarker's message alone
    for (const template of ['${frobnicate(1)}', '${list_object}', '${x.list_object(1)}']) {
      const r = flowmark(['render', '-'], template);
      expect(r.code).toBe(1);
      expect(r.err).not.toContain('did you mean');
      expect(r.err).toContain(`----\n${tip}\n----`);
    }
  });
});
