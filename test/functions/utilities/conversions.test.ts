import { describe, expect, it } from 'vitest';
import { call, caseName, checkJavaCase, errorOf, fixture } from '../helpers.js';

const numbers = fixture('numbers').filter((c) => c.call[0] === 'json_to_csv');
const json = (text: unknown) => JSON.parse(text as string) as unknown;

describe('json_to_csv writes numbers (Double.toString) and dates (SimpleDateFormat) like Java', () => {
  it.each(numbers.map((c) => [caseName(c), c] as const))('%s', (_n, c) => checkJavaCase(c));
});

describe('csv_to_json', () => {
  it('gives arrays of strings without a header', () => {
    expect(json(call('csv_to_json', ['a,b\r\n1,"x,y"\r\n2,\r\n']))).toEqual([
      ['a', 'b'],
      ['1', 'x,y'],
      ['2', ''],
    ]);
  });

  it('gives objects with header true, and returns JSON text', () => {
    const out = call('csv_to_json', ['id,name\n1,Ann\n2,Bob', { header: true }]);
    expect(out).toBe('[{"id":"1","name":"Ann"},{"id":"2","name":"Bob"}]');
  });

  it('applies separator, delimiter, trim, empty and the parse options', () => {
    const csv = "name;age;big;ok;score\n'Bob ''B''';42; 9007199254740993;TRUE;1.5\n  Al  ;;;no;-2e3\nshort\n";
    const out = call('csv_to_json', [
      csv,
      {
        header: 'true',
        separator: ';',
        delimiter: "'",
        trim: true,
        empty: '-',
        parse_numbers: ['age', 4],
        parse_longs: '[2]',
        parse_booleans: ['ok'],
      },
    ]);
    // the long keeps all its digits in the JSON text
    expect(out).toBe(
      '[{"name":"Bob \'B\'","age":42,"big":9007199254740993,"ok":true,"score":1.5},' +
        '{"name":"Al","age":"-","big":"-","ok":false,"score":-2000},' +
        '{"name":"short","age":"-","big":"-","ok":"-","score":"-"}]',
    );
  });

  it('pads short rows without a header, and reads tab-separated text', () => {
    expect(json(call('csv_to_json', ['a\tb\tc\n1', { separator: '\t', empty: 'NULL' }]))).toEqual([
      ['a', 'b', 'c'],
      ['1', 'NULL', 'NULL'],
    ]);
  });

  it('accepts LF, CRLF and CR line ends, skips blank lines', () => {
    expect(json(call('csv_to_json', ['a\r\nb\n\nc\rd']))).toEqual([['a'], ['b'], ['c'], ['d']]);
  });

  it('reports bad data with the row and column', () => {
    expect(errorOf('csv_to_json', ['n\nabc', { header: true, parse_numbers: ['n'] }])).toBe(
      'csv_to_json: argument 1 (input) row 2, column "n": "abc" is not a number',
    );
    expect(errorOf('csv_to_json', ['1.5', { parse_longs: [0] }])).toBe(
      'csv_to_json: argument 1 (input) row 1, column 0: "1.5" is not a long integer',
    );
    expect(errorOf('csv_to_json', ['99999999999999999999', { parse_longs: [0] }])).toBe(
      'csv_to_json: argument 1 (input) row 1, column 0: "99999999999999999999" is not a long integer',
    );
    expect(errorOf('csv_to_json', ['a,"b'])).toMatch(
      /^csv_to_json: argument 1 \(input\) invalid CSV: Quote Not Closed/,
    );
    expect(errorOf('csv_to_json', ['a', { parse_numbers: ['a'] }])).toBe(
      'csv_to_json: argument 1 (input) option parse_numbers: column names ("a") need a header row',
    );
    expect(errorOf('csv_to_json', ['__proto__\n1', { header: true }])).toBe(
      'csv_to_json: argument 1 (input) the column name "__proto__" is not allowed',
    );
  });

  it('checks its options', () => {
    expect(errorOf('csv_to_json', ['a', { headers: true }])).toBe(
      'csv_to_json: argument 2 (options) has an unknown option "headers" (known: header, trim, charset, delimiter, separator, empty, parse_numbers, parse_longs, parse_booleans)',
    );
    expect(errorOf('csv_to_json', ['a', { header: 'yes' }])).toBe(
      'csv_to_json: argument 2 (options) option "header" expected a boolean (true or false), got the string "yes"',
    );
    expect(errorOf('csv_to_json', ['a', { delimiter: '""' }])).toBe(
      'csv_to_json: argument 2 (options) option "delimiter" must be a single character, got the string "\\"\\""',
    );
    expect(errorOf('csv_to_json', ['a', { charset: 'KLINGON-8' }])).toBe(
      'csv_to_json: argument 2 (options) option "charset" names an unknown character set "KLINGON-8"',
    );
    expect(call('csv_to_json', ['a', { charset: 'ISO-8859-1' }])).toBe('[["a"]]');
    expect(errorOf('csv_to_json', ['a', { separator: '' }])).toBe(
      'csv_to_json: argument 2 (options) option "separator" must not be empty',
    );
  });
});

describe('json_to_csv', () => {
  it('writes rows of objects with CRLF line ends, quoting what needs it', () => {
    expect(
      call('json_to_csv', [
        [
          { a: 1.5, b: 'x,y', c: null },
          { a: 2, d: true },
        ],
        { header: true },
      ]),
    ).toBe('a,b,c,d\r\n"1,5","x,y",,\r\n2,,,true\r\n');
    expect(call('json_to_csv', ['[{"q":"say \\"hi\\"","n":"l1\\nl2"}]'])).toBe('"say ""hi""","l1\nl2"\r\n');
  });

  it('writes rows of arrays; header applies to objects only', () => {
    expect(
      call('json_to_csv', [
        [
          ['a', 1],
          ['b', 2.25],
        ],
        { header: true, separator: ';', decimal_separator: '.' },
      ]),
    ).toBe('a;1\r\nb;2.25\r\n');
  });

  it('applies trim, empty and decimal_separator', () => {
    expect(
      call('json_to_csv', [
        [{ s: '  x  ', n: 0.5, m: null }],
        { trim: true, empty: 'NULL', decimal_separator: '.' },
      ]),
    ).toBe('x,0.5,NULL\r\n');
  });

  it('writes epoch-millisecond dates with parse_dates patterns; other text stays', () => {
    const rows = [{ d: 0 }, { d: '86400000' }, { d: { $date: '1970-01-03T00:00:00Z' } }, { d: 'n/a' }, {}];
    expect(call('json_to_csv', [rows, { parse_dates: { d: 'dd/MM/yyyy' } }])).toBe(
      '01/01/1970\r\n02/01/1970\r\n03/01/1970\r\nn/a\r\n\r\n',
    );
  });

  it('takes a single object as one row, and an empty array as nothing', () => {
    expect(call('json_to_csv', [{ a: 'x' }])).toBe('x\r\n');
    expect(call('json_to_csv', [[]])).toBe('');
  });

  it('refuses nested values and mixed rows', () => {
    expect(errorOf('json_to_csv', [[{ a: { b: 1 } }]])).toBe(
      'json_to_csv: argument 1 (input) row 1, attribute "a": nested objects are not allowed, got a hash',
    );
    expect(errorOf('json_to_csv', [[[1, [2]]]])).toBe(
      'json_to_csv: argument 1 (input) row 1, column 1: nested objects are not allowed, got a sequence',
    );
    expect(errorOf('json_to_csv', [[{ a: 1 }, [1]]])).toBe(
      'json_to_csv: argument 1 (input) row 2 is a sequence, expected a hash like row 1',
    );
    expect(errorOf('json_to_csv', [[{ d: true }], { parse_dates: { d: 'yyyy' } }])).toBe(
      'json_to_csv: argument 1 (input) row 1, attribute "d": the boolean true is not a date (epoch milliseconds)',
    );
    expect(errorOf('json_to_csv', [[{ d: 1 }], { parse_dates: { d: 'qq' } }])).toBe(
      'json_to_csv: argument 2 (options) option "parse_dates": the pattern of "d": Illegal pattern character \'q\'',
    );
  });
});

describe('load', () => {
  it('TEXT and JSON', () => {
    expect(call('load', ['plain text', 'TEXT'])).toBe('plain text');
    expect(call('load', ['{"a":[1]}', 'json'])).toEqual({ a: [1] });
    expect(errorOf('load', ['{a}', 'JSON'])).toMatch(/^load: argument 1 \(input\) is not valid JSON: /);
    expect(errorOf('load', ['{"__proto__":{}}', 'JSON'])).toBe(
      'load: argument 1 (input) is not valid JSON: the key "__proto__" is not allowed',
    );
  });

  it('XML: attributes as @name, text as #text, repeated elements as arrays', () => {
    const xml =
      '<?xml version="1.0"?><order id="7"><item sku="A">2</item><item sku="B">3</item><note>hi &amp; bye</note><empty/><t>&#233;&#x41;&amp;#66;</t></order>';
    expect(call('load', [xml, 'XML'])).toEqual({
      order: {
        '@id': '7',
        item: [
          { '@sku': 'A', '#text': '2' },
          { '@sku': 'B', '#text': '3' },
        ],
        note: 'hi & bye',
        empty: '',
        t: 'éA&#66;',
      },
    });
  });

  it('XML: refuses any DTD, so no entity expansion and no external entity', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>';
    expect(errorOf('load', [xxe, 'XML'])).toBe(
      'load: argument 1 (input) a DTD (<!DOCTYPE …> or <!ENTITY …>) is not allowed in XML input',
    );
    const bomb = '<!doctype lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><lolz>&lol2;</lolz>';
    expect(errorOf('load', [bomb, 'XML'])).toContain('a DTD');
    expect(errorOf('load', ['<a><b></a>', 'XML'])).toBe(
      "load: argument 1 (input) invalid XML at line 1, column 7: Expected closing tag 'b' (opened in line 1, col 4) instead of closing tag 'a'.",
    );
  });

  it('EDI: UN/EDIFACT segments with the UNA separators and the release character', () => {
    const edi =
      "UNA:+.? 'UNB+UNOA:1+SENDER+RECEIVER+240115:1200+1'\nUNH+1+ORDERS:D:96A:UN'\r\nFTX+AAI+++Price ?+ 10?:00?' incl'\nUNT+3+1'";
    expect(call('load', [edi, 'EDI'])).toEqual({
      separators: { component: ':', element: '+', decimal: '.', release: '?', repetition: ' ', segment: "'" },
      segments: [
        { tag: 'UNB', elements: [['UNOA', '1'], ['SENDER'], ['RECEIVER'], ['240115', '1200'], ['1']] },
        { tag: 'UNH', elements: [['1'], ['ORDERS', 'D', '96A', 'UN']] },
        { tag: 'FTX', elements: [['AAI'], [''], [''], ["Price + 10:00' incl"]] },
        { tag: 'UNT', elements: [['3'], ['1']] },
      ],
    });
  });

  it('EDI: custom separators, default ones without UNA, and errors', () => {
    const custom = call('load', ['UNA*|,\\ ~UNH|1|ORDERS*D~', 'EDI']) as { segments: unknown[] };
    expect(custom.segments).toEqual([{ tag: 'UNH', elements: [['1'], ['ORDERS', 'D']] }]);
    expect((call('load', ["UNH+1'", 'EDI']) as { segments: unknown[] }).segments).toEqual([
      { tag: 'UNH', elements: [['1']] },
    ]);
    expect(call('load', ['', 'EDI'])).toEqual({ separators: expect.any(Object), segments: [] });
    expect(errorOf('load', ["UNH+1'bad+x'", 'EDI'])).toBe(
      'load: argument 1 (input) segment 2 has an invalid tag "bad"',
    );
    expect(errorOf('load', ['UNH+1?', 'EDI'])).toBe(
      'load: argument 1 (input) the text ends with a release character',
    );
  });

  it('CSV_HEAD and CSV_NOHEAD give the rows under .list (separator ; by default)', () => {
    expect(call('load', ['a;b\n1;2\n3;4', 'CSV_HEAD'])).toEqual({
      list: [
        { a: '1', b: '2' },
        { a: '3', b: '4' },
      ],
    });
    expect(
      call('load', [
        '7!x!2.5\n1!!',
        'CSV_NOHEAD',
        'UTF-8',
        { separator: '!', empty: '0', parse_numbers: [0, '2'] },
      ]),
    ).toEqual({
      list: [
        [7, 'x', 2.5],
        [1, '0', '0'],
      ],
    });
    expect(errorOf('load', ['a;b', 'CSV_NOHEAD', 'UTF-8', { parse_numbers: [1] }])).toBe(
      'load: argument 1 (input) row 1, column 1: "b" is not a number',
    );
  });

  it('CSV with the platform idiom load(content, "CSV_HEAD", "UTF-8", {"delimiter": "!"})', () => {
    expect(call('load', ['name;note\nAnn;!a;b!', 'CSV_HEAD', 'UTF-8', '{"delimiter": "!"}'])).toEqual({
      list: [{ name: 'Ann', note: 'a;b' }],
    });
  });

  it('ESKV: key=value lines with escapes, comments and repeated keys', () => {
    expect(
      call('load', ['# order\nid = 42\nnote=a\\=b\\nline \\u00e9\ntag=red\n\ntag=blue\ntag=green', 'ESKV']),
    ).toEqual({
      id: '42',
      note: 'a=b\nline é',
      tag: ['red', 'blue', 'green'],
    });
    expect(call('load', ['path\\=x=1', 'ESKV'])).toEqual({ 'path=x': '1' });
    expect(errorOf('load', ['novalue', 'ESKV'])).toBe(
      'load: argument 1 (input) line 1 has no "=" between a key and a value',
    );
    expect(errorOf('load', ['a=\\q', 'ESKV'])).toBe('load: argument 1 (input) line 1: unknown escape \\q');
    expect(errorOf('load', ['=1', 'ESKV'])).toBe('load: argument 1 (input) line 1 has an empty key');
    expect(errorOf('load', ['constructor=1', 'ESKV'])).toBe(
      'load: argument 1 (input) line 1: the key "constructor" is not allowed',
    );
  });

  it('URL: a query string (or a URL with one) to an object', () => {
    expect(call('load', ['https://x.test/p?a=1&b=x+y&b=%C3%A9&flag#frag', 'URL'])).toEqual({
      a: '1',
      b: ['x y', 'é'],
      flag: '',
    });
    expect(call('load', ['a=%E9', 'URL', 'ISO-8859-1'])).toEqual({ a: 'é' });
    expect(errorOf('load', ['__proto__=1', 'URL'])).toBe(
      'load: argument 1 (input) the key "__proto__" is not allowed',
    );
  });

  it('checks format, charset and options', () => {
    expect(errorOf('load', ['x', 'YAML'])).toBe(
      'load: argument 2 (format) expected TEXT, JSON, XML, EDI, CSV_HEAD, CSV_NOHEAD, ESKV or URL, got the string "YAML"',
    );
    expect(errorOf('load', ['x', 'TEXT', 'NOPE'])).toBe(
      'load: argument 3 (charset) names an unknown character set "NOPE"',
    );
    expect(errorOf('load', ['x', 'JSON', 'UTF-8', { separator: ';' }])).toBe(
      'load: argument 4 (options) apply only to the formats CSV_HEAD and CSV_NOHEAD',
    );
    expect(errorOf('load', ['x', 'CSV_HEAD', 'UTF-8', { header: true }])).toBe(
      'load: argument 4 (options) has an unknown option "header" (known: separator, delimiter, empty, parse_numbers)',
    );
  });
});

describe('to_xml', () => {
  it('writes @ fields as attributes, arrays as repeated elements, null as an empty element', () => {
    expect(
      call('to_xml', [
        'order',
        {
          '@id': 7,
          item: [
            { '@sku': 'A', '#text': 2 },
            { '@sku': 'B&', '#text': '3<' },
          ],
          note: 'a&b',
          empty: null,
          f: 1.5e-7,
          ok: true,
        },
      ]),
    ).toBe(
      '<order id="7"><item sku="A">2</item><item sku="B&amp;">3&lt;</item><note>a&amp;b</note><empty/><f>1.5E-7</f><ok>true</ok></order>',
    );
  });

  it('uses the single field as the root when root is ""', () => {
    expect(call('to_xml', ['', '{"root":{"a":1}}'])).toBe('<root><a>1</a></root>');
    expect(errorOf('to_xml', ['', { a: 1, b: 2 }])).toBe(
      'to_xml: argument 2 (input) with an empty root, the input must have exactly one element field, got 2 fields',
    );
  });

  it('round-trips through load XML', () => {
    const doc = { a: { '@x': '1', b: ['2', '3'], c: { '#text': 'hi', '@y': 'z' } } };
    expect(call('load', [call('to_xml', ['', doc]), 'XML'])).toEqual(doc);
  });

  it('refuses names XML cannot hold', () => {
    expect(errorOf('to_xml', ['1bad', {}])).toBe(
      'to_xml: argument 1 (root) "1bad" is not a valid XML element name',
    );
    expect(errorOf('to_xml', ['r', { 'a b': 1 }])).toBe(
      'to_xml: argument 2 (input) "a b" (in r) is not a valid XML name',
    );
    expect(errorOf('to_xml', ['r', { a: { '<x': 1 } }])).toBe(
      'to_xml: argument 2 (input) "<x" (in r.a) is not a valid XML name',
    );
    expect(errorOf('to_xml', ['r', { '@a': { b: 1 } }])).toBe(
      'to_xml: argument 2 (input) the attribute @a (in r) must be a simple value, got a hash',
    );
    expect(errorOf('to_xml', ['r', { a: [[1]] }])).toBe(
      'to_xml: argument 2 (input) r.a[0] is a sequence inside a sequence, which XML cannot hold',
    );
  });
});

describe('markdown_to_html (P_markdown_to_html)', () => {
  it('renders a complete document with title and stylesheet link', async () => {
    expect(
      await call('markdown_to_html', [
        '# Title\n\nSome *text*.',
        { title: 'My <doc>', css: 'https://cdn.test/s.css' },
      ]),
    ).toBe(
      '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="UTF-8">\n<title>My &#60;doc&#62;</title>\n' +
        '<link rel="stylesheet" href="https://cdn.test/s.css">\n</head>\n<body>\n<h1>Title</h1>\n<p>Some <em>text</em>.</p>\n</body>\n</html>\n',
    );
  });

  it('inlines CSS text in a style element it cannot escape', async () => {
    const html = (await call('P_markdown_to_html', [
      'x',
      { css: 'body { color: red } </style><script>alert(1)</script>' },
    ])) as string;
    expect(html).toContain(
      '<style>\nbody { color: red } \\3c /style>\\3c script>alert(1)\\3c /script>\n</style>',
    );
    expect(html).not.toContain('<script');
  });

  it('sanitises: no script, event handler or javascript: link survives', async () => {
    const html = (await call('markdown_to_html', [
      'hi <script>alert(1)</script> [l](javascript:alert(1)) <img src=x onerror=alert(1)> <a href="https://ok.test" onclick="x()">ok</a>\n\n| a |\n|---|\n| 1 |\n\n- [x] done',
    ])) as string;
    expect(html).not.toMatch(/<script|onerror|onclick|javascript:/i);
    expect(html).toContain('<a href="https://ok.test">ok</a>');
    expect(html).toContain('<table>');
    expect(html).toContain('<li><input checked disabled type="checkbox" /> done</li>');
    expect(html).toContain('<title></title>');
  });

  it('checks its options', () => {
    expect(errorOf('P_markdown_to_html', ['x', { theme: 'dark' }])).toBe(
      'P_markdown_to_html: argument 2 (options) has an unknown option "theme" (known: css, title)',
    );
  });
});
