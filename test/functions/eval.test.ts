import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/hosts/evaluate.js';
import { fixture, testContext, type JavaCase } from './helpers.js';

const javaCase = (cases: JavaCase[], pred: (c: JavaCase) => boolean) => {
  const c = cases.find(pred);
  if (!c) throw new Error('fixture case not found');
  return c;
};
const hmac = javaCase(
  fixture('hmac'),
  (c) => c.call.length === 3 && c.call[1] === 'abc' && c.call[2] === 'key',
);
const paris = javaCase(
  fixture('dates'),
  (c) =>
    c.call[0] === 'date_offset' && c.call[1] === '2024-03-30 02:30' && c.context?.timeZone === 'Europe/Paris',
);

describe('templates calling Utilities functions through the eval host', () => {
  it('renders dates with the context\u2019s clock, time zone and locale', async () => {
    const ctx = testContext({
      timeZone: 'Europe/Paris',
      locale: 'fr_FR',
      clock: () => Date.UTC(2024, 0, 15, 23, 30),
    });
    const { output } = await evaluate(
      '${now("EEEE d MMMM yyyy HH:mm")} | ${get_time("15/01/2024", "dd/MM/yyyy")?c} | ${get_date(0, "yyyy-MM-dd HH:mm z")} | ${date_offset("2024-03-30 02:30", 1, "yyyy-MM-dd HH:mm")}',
      ctx,
    );
    expect(output).toBe(`mardi 16 janvier 2024 00:30 | 1705273200 | 1970-01-01 01:00 CET | ${paris.expect}`);
  });

  it('hashes and signs as Java does', async () => {
    const { output } = await evaluate(
      '${R_hmac_hash("abc", "key")} ${encrypt("MD5", "a")} ${R_encode("URL", "a b&c")}',
      testContext(),
    );
    expect(output).toBe(`${hmac.expect} 0cc175b9c0f1b6a831c399e269772661 a+b%26c`);
  });

  it('passes objects as hashes or JSON text and assigns the results', async () => {
    const source = [
      '<#assign q>{"status": "${status}"}</#assign>',
      '<#assign m = P_json_put(q, "count", "12")>',
      '<#assign m = P_json_put_ext(m, "meta.tags", \'["a","b"]\')>',
      '<#global rows = load("id;qty\\n1;2\\n3;4", "CSV_HEAD", "UTF-8", {"parse_numbers": ["qty"]}).list>',
      '${m.count + 1} ${m.meta.tags?join("+")} ${rows?size} ${rows[1].qty * 10} ${m}',
    ].join('');
    const { output, globals } = await evaluate(source, testContext(), { status: 'open' });
    expect(output).toBe('13 a+b 2 40 {"status":"open","count":12,"meta":{"tags":["a","b"]}}');
    expect(globals.m).toEqual({ status: 'open', count: 12, meta: { tags: ['a', 'b'] } });
    expect(globals.rows).toEqual([
      { id: '1', qty: 2 },
      { id: '3', qty: 4 },
    ]);
  });

  it('lets attempt/recover catch a function error, whose message names function and argument', async () => {
    const { output } = await evaluate(
      '<#attempt>${get_time("not a date")}<#recover>failed</#attempt>',
      testContext(),
    );
    expect(output).toBe('failed');
    await expect(evaluate('${get_time("not a date")}', testContext())).rejects.toThrow(
      'get_time: argument 1 (date) Unparseable date: "not a date"',
    );
    await expect(evaluate('${P_json_put({}, "__proto__", 1)}', testContext())).rejects.toThrow(
      'P_json_put: argument 2 (field) the key "__proto__" is not allowed',
    );
  });

  it('reads variables with safe_get and gives data precedence over functions', async () => {
    const { output } = await evaluate(
      '${safe_get("user.name", "?")} ${safe_get("nobody", "?")} ${now}',
      testContext(),
      {
        user: { name: 'Ann' },
        now: 'shadowed',
      },
    );
    expect(output).toBe('Ann ? shadowed');
  });

  it('draws randomness and uuids from the context', async () => {
    const bytes = new Uint8Array(16).fill(0xab);
    const ctx = testContext({ random: () => 0.1234567, randomBytes: (n) => bytes.subarray(0, n) });
    const { output } = await evaluate('${get_random()?c} ${uuid()}', ctx);
    expect(output).toBe('0.123457 abababab-abab-4bab-abab-abababababab');
  });

  it('emits safe JavaScript literals in a web interface, and refuses non-2.1 functions there', async () => {
    const web = testContext({ surface: 'web-interface' });
    const { output } = await evaluate('<script>var s = ${P_quoted(label)};</script>', web, {
      label: "it's </script>",
    });
    expect(output).toBe("<script>var s = 'it\\'s \\x3C/script>';</script>");
    await expect(evaluate('${uuid()}', web)).rejects.toThrow(
      'function uuid is not available in a web interface',
    );
  });
});

describe('evaluationScope', () => {
  it('takes the data as a Map too', async () => {
    const { output } = await evaluate('${x} ${encrypt("MD5", x)}', testContext(), new Map([['x', 'a']]));
    expect(output).toBe('a 0cc175b9c0f1b6a831c399e269772661');
  });
});
