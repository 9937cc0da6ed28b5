/**
 * POST /api/v1/collections/:name/import: a CSV or JSON file imported like import_objects (all or
 * nothing), what the console's import form sends. Hostile: a read-only collection refused to a
 * user, a bad row leaves nothing, unknown parts and options refused, the upload limit, another
 * account's collection out of reach.
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

function form(content: string, name = 'data.csv', options?: string): FormData {
  const data = new FormData();
  if (options !== undefined) data.append('options', options);
  data.append('file', new Blob([content]), name);
  return data;
}

describeEachEngine('server: collection import', (engine) => {
  const server = useServer(engine, { uploadLimit: 4096 });
  const as = (who: 'admin' | 'user') => server.acme[who].token;
  const c = '/api/v1/collections';

  it('imports a CSV file with import_objects options, and a JSON file', async () => {
    await call(server.url, 'POST', c, { token: as('user'), body: { name: 'prices' } });
    const csv = 'item;price\npen;1.5\nbook;12\n';
    const imported = await call(server.url, 'POST', `${c}/prices/import`, {
      token: as('user'),
      body: form(csv, 'prices.csv', '{"separator": ";", "parse_numbers": ["price"]}'),
    });
    expect(imported).toMatchObject({ status: 201, body: { imported: 2 } });
    const json = await call(server.url, 'POST', `${c}/prices/import`, {
      token: as('user'),
      body: form('[{"item": "ink", "price": 3}]', 'more.json', '{"format": "JSON"}'),
    });
    expect(json.body).toEqual({ imported: 1 });
    const found = await call(server.url, 'POST', `${c}/prices/find`, {
      token: as('user'),
      body: { query: {}, sort: { price: 1 } },
    });
    expect(found.body.items.map((d: { item: string; price: number }) => [d.item, d.price])).toEqual([
      ['pen', 1.5],
      ['ink', 3],
      ['book', 12],
    ]);
  });

  /** The streamed import's status, type and lines (the call helper would parse the body as one JSON). */
  async function streamedImport(name: string, body: FormData) {
    const response = await fetch(`${server.url}${c}/${name}/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${as('user')}`, accept: 'application/x-ndjson' },
      body,
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      lines: (await response.text()).split('\n'),
    };
  }

  it('streams the counts as it imports, and an error as the last line', async () => {
    await call(server.url, 'POST', c, { token: as('user'), body: { name: 'stream' } });
    const rows = Array.from({ length: 1200 }, () => '1').join('\n');
    const streamed = await streamedImport(
      'stream',
      form(`n\n${rows}\n`, 'n.csv', '{"parse_numbers": ["n"]}'),
    );
    expect(streamed).toEqual({
      status: 200,
      type: 'application/x-ndjson; charset=utf-8',
      lines: ['{"documents":500}', '{"documents":1000}', '{"documents":1200}', '{"imported":1200}', ''],
    });
    const failed = await streamedImport('stream', form('[{"a": 1}, 7]', 'x.json', '{"format": "JSON"}'));
    expect(failed.status).toBe(200);
    expect(failed.lines.at(-1)).toBe('');
    expect(JSON.parse(failed.lines.at(-2)!)).toMatchObject({ status: 400, code: 'import' });
    expect(
      (await call(server.url, 'POST', `${c}/stream/count`, { token: as('user'), body: { query: {} } })).body,
    ).toMatchObject({ count: 1200 });
    const refused = await streamedImport('stream', form('a\n1\n', 'a.csv', '{"nope": 1}'));
    expect(refused.status).toBe(400);
  });

  it('refuses bad input, imports all or nothing, and checks the rights', async () => {
    await call(server.url, 'POST', c, { token: as('admin'), body: { name: 'frozen', isReadonly: true } });
    const readOnly = await call(server.url, 'POST', `${c}/frozen/import`, {
      token: as('user'),
      body: form('a\n1\n'),
    });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.code).toBe('read-only');

    await call(server.url, 'POST', c, { token: as('user'), body: { name: 'rows' } });
    const badRow = await call(server.url, 'POST', `${c}/rows/import`, {
      token: as('user'),
      body: form('[{"a": 1}, 7]', 'x.json', '{"format": "JSON"}'),
    });
    expect(badRow.status).toBe(400);
    const count = await call(server.url, 'POST', `${c}/rows/count`, {
      token: as('user'),
      body: { query: {} },
    });
    expect(count.body).toMatchObject({ count: 0 });

    const badOption = await call(server.url, 'POST', `${c}/rows/import`, {
      token: as('user'),
      body: form('a\n1\n', 'a.csv', '{"$where": "1"}'),
    });
    expect(badOption.status).toBe(400);
    expect(badOption.body.message).toContain("unknown option '$where'");
    const notJson = await call(server.url, 'POST', `${c}/rows/import`, {
      token: as('user'),
      body: form('a\n1\n', 'a.csv', '[1]'),
    });
    expect(notJson.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'options: a JSON object is expected',
    });
    const protoKey = await call(server.url, 'POST', `${c}/rows/import`, {
      token: as('user'),
      body: form('a\n1\n', 'a.csv', '{"\\u005f_proto__": {"polluted": true}}'),
    });
    expect(protoKey.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'options: the key "__proto__" is not allowed',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const extra = new FormData();
    extra.append('drop', 'true');
    extra.append('file', new Blob(['a\n1\n']), 'a.csv');
    const unknown = await call(server.url, 'POST', `${c}/rows/import`, { token: as('user'), body: extra });
    expect(unknown.body).toEqual({
      status: 400,
      code: 'invalid',
      message: 'unknown field "drop" (file, options)',
    });
    const noFile = new FormData();
    noFile.append('options', '{}');
    expect(
      (await call(server.url, 'POST', `${c}/rows/import`, { token: as('user'), body: noFile })).body,
    ).toEqual({ status: 400, code: 'invalid', message: 'no file: send it in the part named "file"' });
    const json = await call(server.url, 'POST', `${c}/rows/import`, { token: as('user'), body: { a: 1 } });
    expect(json.status).toBe(415);
    const tooLarge = await call(server.url, 'POST', `${c}/rows/import`, {
      token: as('user'),
      body: form(`a\n${'1\n'.repeat(4096)}`),
    });
    expect(tooLarge.status).toBe(413);
    expect(
      (await call(server.url, 'POST', `${c}/rows/count`, { token: as('user'), body: { query: {} } })).body,
    ).toMatchObject({ count: 0 });

    const otherAccount = await call(server.url, 'POST', `${c}/rows/import`, {
      token: server.globex.admin.token,
      body: form('a\n1\n'),
    });
    expect(otherAccount.status).toBe(201);
    expect(
      (await call(server.url, 'POST', `${c}/rows/count`, { token: as('user'), body: { query: {} } })).body,
    ).toMatchObject({ count: 0 });
    const anonymous = await call(server.url, 'POST', `${c}/rows/import`, { body: form('a\n1\n') });
    expect(anonymous.status).toBe(401);
  });
});
