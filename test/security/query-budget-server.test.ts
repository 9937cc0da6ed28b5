/**
 * Issue 13 over HTTP: the collection routes run each request under a budget of the deployment's
 * limits (FLOWMARK_EVAL_*, read when the routes are registered): a hostile query is a 413 with the
 * operator and the limit, an answer over the output limit a 413 instead of a 500 (or an abort),
 * and /health answers while and after they are refused.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from '../server/support.js';

const saved = { memory: process.env.FLOWMARK_EVAL_MEMORY, output: process.env.FLOWMARK_EVAL_OUTPUT_CHARS };
beforeAll(() => {
  process.env.FLOWMARK_EVAL_MEMORY = String(16 * 1024 * 1024);
  process.env.FLOWMARK_EVAL_OUTPUT_CHARS = '5000000';
});
afterAll(() => {
  for (const [name, value] of [
    ['FLOWMARK_EVAL_MEMORY', saved.memory],
    ['FLOWMARK_EVAL_OUTPUT_CHARS', saved.output],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

const MEMORY = 'the value would exceed the 16 MB limit for one evaluation';
const RANGE = { $expr: { $gt: [{ $size: { $range: [0, 150000000] } }, 1] } };

describeEachEngine('query budget: REST routes', (engine) => {
  const server = useServer(engine);
  const token = () => server.acme.user.token;
  const c = '/api/v1/collections';
  const health = async () => (await fetch(`${server.url}/health`)).status;

  beforeAll(async () => {
    const docs = [
      { n: 1, s: 'ab' },
      { n: 2, s: 'cd' },
    ];
    expect(
      (await call(server.url, 'POST', `${c}/small/documents`, { token: token(), body: docs })).status,
    ).toBe(201);
    // Twelve documents of 1 MB: 24 MB charged to read them all, over the 16 MB budget.
    const big = Array.from({ length: 12 }, (_, i) => ({
      i,
      text: String.fromCharCode(97 + i).repeat(1_000_000),
    }));
    for (const doc of big)
      expect(
        (await call(server.url, 'POST', `${c}/big/documents`, { token: token(), body: doc })).status,
      ).toBe(201);
  });

  /** A request, timed, with /health asked while it runs and after it. */
  const timed = async (method: string, path: string, body?: unknown) => {
    const t0 = Date.now();
    const during = health();
    const reply = await call(server.url, method, path, { token: token(), body });
    const ms = Date.now() - t0;
    expect(await during).toBe(200);
    expect(await health()).toBe(200);
    expect(ms).toBeLessThan(5000);
    return reply;
  };

  it('GET …/documents?query= with $range of 150 million items: 413, operator and limit named', async () => {
    const r = await timed('GET', `${c}/small/documents?query=${encodeURIComponent(JSON.stringify(RANGE))}`);
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ status: 413, code: 'too-large', message: `$range: ${MEMORY}` });
  });

  it('POST …/find, …/count, …/update and …/remove run the same guarded filter', async () => {
    for (const [path, body] of [
      ['find', { query: RANGE }],
      ['count', { query: RANGE }],
      ['update', { query: RANGE, update: { $set: { x: 1 } } }],
      ['remove', { query: RANGE }],
    ] as const) {
      const r = await timed('POST', `${c}/small/${path}`, body);
      expect([path, r.body]).toEqual([
        path,
        { status: 413, code: 'too-large', message: `$range: ${MEMORY}` },
      ]);
    }
  });

  it('POST …/aggregate: $project with $range, $reduce doubling, $densify', async () => {
    const cases: Array<[unknown[], string]> = [
      [[{ $project: { r: { $range: [0, 150000000] } } }], `$range: ${MEMORY}`],
      [
        [
          {
            $project: {
              r: {
                $reduce: {
                  input: { $range: [0, 40] },
                  initialValue: 'ab',
                  in: { $concat: ['$$value', '$$value'] },
                },
              },
            },
          },
        ],
        `$concat: ${MEMORY}`,
      ],
      [[{ $densify: { field: 'n', range: { step: 1, bounds: [0, 1e9] } } }], `$densify: ${MEMORY}`],
    ];
    for (const [pipeline, message] of cases) {
      const r = await timed('POST', `${c}/small/aggregate`, { pipeline });
      expect(r.body).toEqual({ status: 413, code: 'too-large', message });
    }
  });

  it('GET …/documents?nb=100 over large documents: 413 before the answer is built, not a 500', async () => {
    const r = await timed('GET', `${c}/big/documents?nb=100`);
    expect(r.body).toEqual({
      status: 413,
      code: 'too-large',
      message: `documents of collection 'big': ${MEMORY}`,
    });
    // A page that fits is answered.
    const page = await timed('GET', `${c}/big/documents?nb=2`);
    expect(page.status).toBe(200);
    expect(page.body.items.map((d: { i: number }) => d.i)).toEqual([0, 1]);
    // Large documents are read one at a time: a scan over all of them (mingo decides) keeps only
    // the one it holds, and charges only those it keeps.
    const long = { $expr: { $gt: [{ $strLenCP: '$text' }, 999_999] } };
    const counted = await timed('POST', `${c}/big/count`, { query: long });
    expect(counted.body).toEqual({ count: 12 });
    const found = await timed('POST', `${c}/big/find`, { query: long, nb: 3, first: 4 });
    expect(found.body.items.map((d: { i: number; text: string }) => [d.i, d.text.length])).toEqual([
      [4, 1_000_000],
      [5, 1_000_000],
      [6, 1_000_000],
    ]);
    const tooMany = await timed('POST', `${c}/big/find`, { query: long, nb: 12 });
    expect(tooMany.body).toEqual({
      status: 413,
      code: 'too-large',
      message: `documents of collection 'big': ${MEMORY}`,
    });
  });

  it('an aggregation whose answer repeats a large field past the output limit: 413', async () => {
    const r = await timed('POST', `${c}/big/aggregate`, {
      pipeline: [{ $limit: 2 }, { $project: { a: '$text', b: '$text', c: '$text' } }],
    });
    expect(r.body).toEqual({
      status: 413,
      code: 'too-large',
      message: 'aggregate: the output would exceed the limit of 5000000 characters for one evaluation',
    });
  });

  it('regex back-references are refused with 400 before anything runs', async () => {
    const query = { s: { $regex: '(a+)+\\1b' } };
    const r = await timed('GET', `${c}/small/documents?query=${encodeURIComponent(JSON.stringify(query))}`);
    expect(r.body).toEqual({
      status: 400,
      code: 'invalid',
      message:
        '$regex "(a+)+\\\\1b" uses a back-reference, which collection queries do not support (only patterns that run in linear time)',
    });
  });
});
