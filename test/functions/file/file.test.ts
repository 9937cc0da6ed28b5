import { beforeAll, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../../src/functions/registry.js';
import { createPlatform } from '../../../src/platform/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, call, errorOf, NOW, type World } from '../../platform/world.js';
import { zipBomb } from '../../platform/files/zips.js';
import { as, contentOf, createBinary, createText } from './support.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describeEachEngine('File functions', (engine) => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
  });

  describe('create_file', () => {
    it('creates a text file owned by the caller, with fileoptions', async () => {
      const ann = await as(w, 'ann');
      const id = await createText(ann, 'notes.txt', 'Grüße', {
        charset: 'ISO-8859-1',
        visibility: 'public',
        metadata: { topic: 'greetings' },
      });
      expect(id).toMatch(UUID);
      expect(await call(ann, 'R_file_desc', id)).toEqual({
        id,
        name: 'notes.txt',
        content_type: 'text/plain',
        charset: 'ISO-8859-1',
        size: 5,
        created: NOW,
        updated: NOW,
        owner: w.ids.ann,
        visibility: 'PUBLIC',
        metadata: { topic: 'greetings' },
      });
      expect(await call(ann, 'R_file_content', id, 'HEXA')).toBe('4772fc9f65'.replace('9f', 'df'));
      expect(await contentOf(ann, id)).toBe('Grüße');
    });

    it('takes fileoptions as JSON text, binary content as BASE64 or HEXA, and a content type', async () => {
      const ann = await as(w, 'ann');
      const pdf = await call(
        ann,
        'create_file',
        'scan',
        Buffer.from('%PDF-1.4\n\u0000').toString('base64'),
        '{"algorithm": "base64"}',
      );
      expect(await call(ann, 'R_file_desc', pdf)).toMatchObject({
        content_type: 'application/pdf',
        charset: null,
        size: 10,
      });
      const hex = await call(ann, 'create_file', 'bytes.bin', 'ff00', {
        algorithm: 'HEXA',
        content_type: 'application/x-thing',
      });
      expect(await call(ann, 'R_file_desc', hex)).toMatchObject({
        content_type: 'application/x-thing',
        size: 2,
      });
      const csv = await call(ann, 'create_file', 'a', 'x;y', { contentType: 'text/csv' });
      expect(await call(ann, 'R_file_desc', csv)).toMatchObject({
        content_type: 'text/csv',
        charset: 'UTF-8',
      });
    });

    it('keeps the deprecated form (charset, contentType)', async () => {
      const ann = await as(w, 'ann');
      const plain = (await call(ann, 'create_file', 'a.json', '{"a":1}')) as string;
      expect(await call(ann, 'R_file_desc', plain)).toMatchObject({
        content_type: 'application/json',
        charset: 'UTF-8',
      });
      const latin = (await call(ann, 'create_file', 'b.txt', 'é', 'ISO-8859-1', 'text/x-custom')) as string;
      expect(await call(ann, 'R_file_desc', latin)).toMatchObject({
        content_type: 'text/x-custom',
        charset: 'ISO-8859-1',
        size: 1,
      });
      const spec = defaultRegistry().get('create_file')!;
      expect(spec.forms.map((f) => f.deprecated === true)).toEqual([false, true]);
    });

    it('names the argument at fault', async () => {
      const ann = await as(w, 'ann');
      expect(await errorOf(ann, 'create_file', 'a', 'x', { colour: 'red' })).toBe(
        'create_file: argument 3 (options) has an unknown option "colour": charset, content_type, algorithm, visibility, metadata',
      );
      expect(await errorOf(ann, 'create_file', 'a', 'x', { charset: 'x-klingon' })).toBe(
        'create_file: argument 3 (options) option charset: unsupported charset "x-klingon"',
      );
      expect(await errorOf(ann, 'create_file', 'a', 'x', { algorithm: 'ROT13' })).toBe(
        'create_file: argument 3 (options) option algorithm: unknown algorithm "ROT13": NONE, BASE64, BASE64URL or HEXA',
      );
      expect(await errorOf(ann, 'create_file', 'a', 'x', { visibility: 'team' })).toBe(
        'create_file: argument 3 (options) option visibility must be PRIVATE or PUBLIC, got "team"',
      );
      expect(await errorOf(ann, 'create_file', 'a', 'x', { metadata: [1] })).toBe(
        'create_file: argument 3 (options) option metadata must be an object',
      );
      expect(await errorOf(ann, 'create_file', 'a', 'not base64!', { algorithm: 'BASE64' })).toBe(
        'create_file: argument 2 (content) is not valid BASE64',
      );
      expect(await errorOf(ann, 'create_file', 'a', 'x', 'x-klingon')).toBe(
        'create_file: argument 3 (charset) unsupported charset "x-klingon"',
      );
      expect(await errorOf(ann, 'create_file', '', 'x', {})).toBe(
        'create_file: a file name may not be empty',
      );
      expect(await errorOf(ann, 'create_file', 'a', 'x', { metadata: { constructor: 1 } })).toBe(
        'create_file: the metadata may not have a key named constructor',
      );
    });

    it('gives a file made with nobody connected to the request', async () => {
      const nobody = await as(w, null, { requestId: w.request });
      const id = (await createText(nobody, 'r.txt', 'x')) as string;
      expect(await call(nobody, 'R_file_desc', id)).toMatchObject({ owner: null });
      const elsewhere = await as(w, null, { requestId: 'other-request' });
      expect(await errorOf(elsewhere, 'R_file_desc', id)).toBe(
        `R_file_desc: Access denied: no READ right on file ${id}.`,
      );
    });
  });

  describe('reading', () => {
    let ann: Awaited<ReturnType<typeof as>>;
    let id: string;
    beforeAll(async () => {
      ann = await as(w, 'ann');
      id = await createText(ann, 'text.txt', 'abc-abc-é');
    });

    it('R_file_content (also file_content) decodes or encodes the content', async () => {
      expect(await call(ann, 'R_file_content', id, 'NONE')).toBe('abc-abc-é');
      expect(await call(ann, 'file_content', id, 'none')).toBe('abc-abc-é');
      expect(await call(ann, 'R_file_content', id, 'BASE64')).toBe(
        Buffer.from('abc-abc-é').toString('base64'),
      );
      expect(await call(ann, 'R_file_content', id, 'BASE64URL')).toBe(
        Buffer.from('abc-abc-é').toString('base64url'),
      );
      expect(await call(ann, 'R_file_content', id, 'NONE', 'ISO-8859-1')).toBe('abc-abc-Ã©');
      expect(await errorOf(ann, 'R_file_content', id)).toBe(
        'R_file_content: argument 2 (algorithm) is missing: expected a string',
      );
      expect(await errorOf(ann, 'R_file_content', id, 'SHA1')).toBe(
        'R_file_content: argument 2 (algorithm) unknown algorithm "SHA1": NONE, BASE64, BASE64URL or HEXA',
      );
      expect(await errorOf(ann, 'R_file_content', id, 'NONE', 'EBCDIC-X')).toBe(
        'R_file_content: argument 3 (charset) unsupported charset "EBCDIC-X"',
      );
      expect(await errorOf(ann, 'R_file_content', 'nope', 'NONE')).toBe("Uploaded file nope doesn't exist.");
      expect(await errorOf(ann, 'R_file_content', ' ', 'NONE')).toBe(
        'R_file_content: argument 1 (fileId) is empty: a file id is expected',
      );
    });

    it('reads a file in its own charset by default', async () => {
      const latin = await createText(ann, 'l.txt', 'é', { charset: 'windows-1252' });
      expect(await contentOf(ann, latin)).toBe('é');
      expect(await call(ann, 'R_file_content', latin, 'HEXA')).toBe('e9');
    });

    it('R_file_size gives KBytes rounded up', async () => {
      const sizes: Array<[number, number]> = [
        [0, 0],
        [1, 1],
        [1024, 1],
        [1025, 2],
        [10 * 1024, 10],
      ];
      for (const [bytes, kb] of sizes) {
        const f = await createText(ann, 's', 'x'.repeat(bytes));
        expect(await call(ann, 'R_file_size', f)).toBe(kb);
      }
    });

    it('R_file_index_of and R_file_last_index_of follow Java, -1 when not found', async () => {
      expect(await call(ann, 'R_file_index_of', id, 'abc')).toBe(0);
      expect(await call(ann, 'R_file_index_of', id, 'abc', 1)).toBe(4);
      expect(await call(ann, 'R_file_index_of', id, 'abc', '-5')).toBe(0);
      expect(await call(ann, 'R_file_index_of', id, 'é')).toBe(8);
      expect(await call(ann, 'R_file_index_of', id, 'zzz')).toBe(-1);
      expect(await call(ann, 'R_file_index_of', id, 'abc', 99)).toBe(-1);
      expect(await call(ann, 'R_file_index_of', id, 'YWJj', 0, 'BASE64')).toBe(0);
      expect(await call(ann, 'R_file_index_of', id, 'Ã©', 0, 'NONE', 'ISO-8859-1')).toBe(8);
      expect(await call(ann, 'R_file_last_index_of', id, 'abc')).toBe(4);
      expect(await call(ann, 'R_file_last_index_of', id, 'abc', 3)).toBe(0);
      expect(await call(ann, 'R_file_last_index_of', id, 'abc', -1)).toBe(-1);
      expect(await call(ann, 'R_file_last_index_of', id, 'zzz')).toBe(-1);
      expect(await errorOf(ann, 'R_file_index_of', id, 'a', 'x')).toBe(
        'R_file_index_of: argument 3 (from) expected an integer, got the string "x"',
      );
    });

    it('R_file_substring finds an occurrence lying wholly between from and to', async () => {
      expect(await call(ann, 'R_file_substring', id, 'abc')).toBe(0);
      expect(await call(ann, 'R_file_substring', id, 'abc', 1)).toBe(4);
      expect(await call(ann, 'R_file_substring', id, 'abc', 1, 7)).toBe(4);
      expect(await call(ann, 'R_file_substring', id, 'abc', 1, 6)).toBe(-1);
      expect(await call(ann, 'R_file_substring', id, 'abc', 5, 2)).toBe(-1);
      expect(await call(ann, 'R_file_substring', id, 'é', 0, 100)).toBe(8);
      expect(await call(ann, 'R_file_substring', id, 'LWFi', 0, 100, 'BASE64')).toBe(4); // YWJjLWFiYy3DqQ==
      expect(await call(ann, 'R_file_substring', id, 'LWFi', 0, 7, 'BASE64')).toBe(-1);
    });
  });

  describe('changing', () => {
    it('save_file overwrites with fileoptions or the deprecated charset', async () => {
      const ann = await as(w, 'ann');
      const id = await createText(ann, 's.txt', 'old', { charset: 'ISO-8859-1' });
      expect(await call(ann, 'save_file', id, 'né', {})).toBe(id);
      expect(await call(ann, 'R_file_content', id, 'HEXA')).toBe('6ee9');
      expect(
        await call(ann, 'save_file', id, 'né', {
          charset: 'UTF-8',
          visibility: 'PUBLIC',
          metadata: { v: 2 },
        }),
      ).toBe(id);
      expect(await call(ann, 'R_file_desc', id)).toMatchObject({
        charset: 'UTF-8',
        size: 3,
        visibility: 'PUBLIC',
        metadata: { v: 2 },
      });
      expect(await call(ann, 'save_file', id, 'ü', 'UTF-16LE')).toBe(id);
      expect(await call(ann, 'R_file_content', id, 'HEXA')).toBe('fc00');
      expect(await call(ann, 'save_file', id, 'AAE=', { algorithm: 'BASE64' })).toBe(id);
      expect(await call(ann, 'R_file_content', id, 'HEXA')).toBe('0001');
      expect(await errorOf(ann, 'save_file', 'missing', 'x', {})).toBe(
        "Uploaded file missing doesn't exist.",
      );
      expect(
        defaultRegistry()
          .get('save_file')!
          .forms.map((f) => f.deprecated === true),
      ).toEqual([false, true]);
    });

    it('append_file appends, or creates untitled.txt for an empty id', async () => {
      const ann = await as(w, 'ann');
      const id = await createText(ann, 'log.txt', 'a', { charset: 'ISO-8859-1' });
      expect(await call(ann, 'append_file', id, 'é')).toBe(id);
      expect(await call(ann, 'R_file_content', id, 'HEXA')).toBe('61e9');
      expect(await call(ann, 'append_file', id, 'é', 'UTF-8')).toBe(id);
      expect(await call(ann, 'R_file_content', id, 'HEXA')).toBe('61e9c3a9');
      const created = (await call(ann, 'append_file', '', 'first line')) as string;
      expect(created).toMatch(UUID);
      expect(await call(ann, 'R_file_desc', created)).toMatchObject({
        name: 'untitled.txt',
        content_type: 'text/plain',
        owner: w.ids.ann,
        size: 10,
      });
      expect(await errorOf(ann, 'append_file', 'missing', 'x')).toBe("Uploaded file missing doesn't exist.");
    });

    it('delete_file deletes, false for an unknown file', async () => {
      const ann = await as(w, 'ann');
      const id = await createText(ann, 'd.txt', 'x');
      expect(await call(ann, 'delete_file', id)).toBe(true);
      expect(await call(ann, 'delete_file', id)).toBe(false);
      expect(await errorOf(ann, 'R_file_desc', id)).toBe(`Uploaded file ${id} doesn't exist.`);
    });

    it('save_file_desc changes the writable fields and accepts the read-only ones unchanged', async () => {
      const ann = await as(w, 'ann');
      const id = await createText(ann, 'desc.txt', 'x');
      const desc = (await call(ann, 'R_file_desc', id)) as Record<string, unknown>;
      const changed = await call(ann, 'save_file_desc', id, {
        ...desc,
        name: 'renamed.csv',
        content_type: 'text/csv',
        charset: 'ISO-8859-1',
        visibility: 'PUBLIC',
        metadata: { tags: ['a'] },
      });
      expect(changed).toEqual({
        ...desc,
        name: 'renamed.csv',
        content_type: 'text/csv',
        charset: 'ISO-8859-1',
        visibility: 'PUBLIC',
        metadata: { tags: ['a'] },
      });
      expect(await call(ann, 'save_file_desc', id, '{"name": "again.csv"}')).toMatchObject({
        name: 'again.csv',
      });
      expect(await errorOf(ann, 'save_file_desc', id, { size: 99 })).toBe(
        'save_file_desc: argument 2 (metadata) field size cannot be changed (read-only fields: id, size, created, updated, owner)',
      );
      expect(await errorOf(ann, 'save_file_desc', id, { colour: 'red' })).toBe(
        'save_file_desc: argument 2 (metadata) has an unknown field "colour": name, content_type, charset, visibility, metadata can be changed',
      );
      expect(await errorOf(ann, 'save_file_desc', id, { name: 3 })).toBe(
        'save_file_desc: argument 2 (metadata) field name must be a string',
      );
      expect(await errorOf(ann, 'save_file_desc', id, { visibility: 'x' })).toBe(
        'save_file_desc: invalid visibility "x": PRIVATE or PUBLIC',
      );
    });

    it('update_file (deprecated) renames and retypes', async () => {
      const ann = await as(w, 'ann');
      const id = await createText(ann, 'u.txt', '<a/>');
      expect(await call(ann, 'update_file', id, 'u.xml', 'application/xml')).toBe(id);
      expect(await call(ann, 'R_file_desc', id)).toMatchObject({
        name: 'u.xml',
        content_type: 'application/xml',
        charset: 'UTF-8',
      });
      expect(defaultRegistry().get('update_file')!.flags).toEqual({ deprecated: true });
      expect(await errorOf(ann, 'update_file', id, 'u', 'nonsense')).toBe(
        'update_file: invalid content type "nonsense"',
      );
    });
  });

  describe('file_replace', () => {
    it('replaces text, first or all, case-insensitive or regex, and saves', async () => {
      let now = NOW;
      const platform = createPlatform(engine.store, { clock: () => now });
      const ann = await as(w, 'ann', { platform });
      const id = await createText(ann, 'r.txt', 'Cat cat CAT $1');
      now += 5;
      expect(await call(ann, 'file_replace', id, 'cat', 'dog')).toBe(id);
      expect(await contentOf(ann, id)).toBe('Cat dog CAT $1');
      expect(await call(ann, 'R_file_desc', id)).toMatchObject({ updated: NOW + 5 });
      await call(ann, 'file_replace', id, 'CAT', 'cow', 'ignore_case, first');
      expect(await contentOf(ann, id)).toBe('cow dog CAT $1');
      await call(ann, 'file_replace', id, '$1', '${x}');
      expect(await contentOf(ann, id)).toBe('cow dog CAT ${x}');
      await call(ann, 'file_replace', id, '(\\w)(\\w+)', '$2$1', 'REGEX');
      expect(await contentOf(ann, id)).toBe('owc ogd ATC ${x}');
      now += 5;
      await call(ann, 'file_replace', id, 'nothing', 'x');
      expect(await call(ann, 'R_file_desc', id)).toMatchObject({ updated: NOW + 5 });
    });

    it('works through a charset or an algorithm and writes back the same way', async () => {
      const ann = await as(w, 'ann');
      const latin = await createText(ann, 'l.txt', 'café crème', { charset: 'ISO-8859-1' });
      await call(ann, 'file_replace', latin, 'è', 'e');
      expect(await call(ann, 'R_file_content', latin, 'HEXA')).toBe('636166e9206372656d65');
      const hex = await createBinary(ann, 'b.bin', Buffer.from([1, 2, 3, 2]));
      await call(ann, 'file_replace', hex, '02', 'ff', 'ALL', 'HEXA');
      expect(await call(ann, 'R_file_content', hex, 'HEXA')).toBe('01ff03ff');
      expect(await errorOf(ann, 'file_replace', hex, 'ff', 'zz', '', 'HEXA')).toBe(
        'file_replace: argument 3 (replacedBy) is not valid HEXA',
      );
    });

    it('names the argument at fault', async () => {
      const ann = await as(w, 'ann');
      const id = await createText(ann, 'e.txt', 'x');
      expect(await errorOf(ann, 'file_replace', id, 'x', 'y', 'GLOBAL')).toBe(
        'file_replace: argument 4 (flag) unknown flag "GLOBAL": ALL, FIRST, REGEX, IGNORE_CASE, CASE_INSENSITIVE, MULTILINE, DOTALL',
      );
      expect(await errorOf(ann, 'file_replace', id, 'x', 'y', 'MULTILINE')).toBe(
        'file_replace: argument 4 (flag) MULTILINE and DOTALL apply to a REGEX search only',
      );
      expect(await errorOf(ann, 'file_replace', id, '', 'y')).toBe(
        'file_replace: argument 2 (search) is empty',
      );
      expect(await errorOf(ann, 'file_replace', id, '(x', 'y', 'REGEX')).toBe(
        'file_replace: argument 2 (search) invalid regular expression: error parsing regexp: missing closing ): `(x`',
      );
      expect(await errorOf(ann, 'file_replace', id, 'x', 'y', '', 'ROT13')).toBe(
        'file_replace: argument 5 (algorithm) unknown algorithm "ROT13": NONE, BASE64, BASE64URL or HEXA',
      );
    });
  });

  describe('zip_file and unzip_file', () => {
    it('zips one id, a sequence or a JSON array of ids, and unzips them again', async () => {
      const ann = await as(w, 'ann');
      const a = await createText(ann, 'a.txt', 'alpha');
      const b = await createText(ann, 'b.csv', 'x;y');
      const single = (await call(ann, 'zip_file', a, 'one.zip')) as string;
      expect(await call(ann, 'R_file_desc', single)).toMatchObject({
        name: 'one.zip',
        content_type: 'application/zip',
      });
      const one = (await call(ann, 'unzip_file', single)) as Record<string, unknown>;
      expect(one).toMatchObject({ name: 'a.txt', content_type: 'text/plain', size: 5, owner: w.ids.ann });
      expect(await contentOf(ann, one.id as string)).toBe('alpha');
      for (const ids of [[a, b], JSON.stringify([a, b])]) {
        const zip = (await call(ann, 'zip_file', ids, 'two.zip')) as string;
        const out = (await call(ann, 'unzip_file', zip)) as Array<Record<string, unknown>>;
        expect(out.map((d) => [d.name, d.size])).toEqual([
          ['a.txt', 5],
          ['b.csv', 3],
        ]);
      }
    });

    it('reports what cannot be zipped or unzipped', async () => {
      const ann = await as(w, 'ann');
      const text = await createText(ann, 't.txt', 'not a zip');
      expect(await errorOf(ann, 'zip_file', '[]', 'x.zip')).toBe(
        'zip_file: argument 1 (fileId) names no file',
      );
      expect(await errorOf(ann, 'zip_file', '[1', 'x.zip')).toBe(
        'zip_file: argument 1 (fileId) is not a JSON array of file ids: "[1"',
      );
      expect(await errorOf(ann, 'zip_file', [text, {}], 'x.zip')).toBe(
        'zip_file: argument 1 (fileId) holds {}, which is not a file id',
      );
      expect(await errorOf(ann, 'zip_file', ['nope'], 'x.zip')).toBe("Uploaded file nope doesn't exist.");
      expect(await errorOf(ann, 'unzip_file', text)).toBe(
        'unzip_file: the file is not a valid zip archive: End of central directory record signature not found. Either not a zip file, or file is truncated.',
      );
      const empty = await createBinary(
        ann,
        'empty.zip',
        Buffer.from('504b0506000000000000000000000000000000000000', 'hex'),
      );
      expect(await errorOf(ann, 'unzip_file', empty)).toBe('unzip_file: the archive holds no file');
    });

    it('refuses a zip bomb with a clear error', async () => {
      const ann = await as(w, 'ann');
      const bomb = await createBinary(ann, 'bomb.zip', zipBomb(1100, 60 * 1024 * 1024));
      const started = performance.now();
      expect(await errorOf(ann, 'unzip_file', bomb)).toBe(
        'unzip_file: entry bomb.bin inflates more than 200 times its compressed size (maxZipRatio): refused as a zip bomb',
      );
      expect(performance.now() - started).toBeLessThan(1000);
    });
  });
});
