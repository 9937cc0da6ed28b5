import { describe, expect, it } from 'vitest';
import {
  bytesToText,
  detectContentType,
  isCharset,
  isTextType,
  parseAlgorithm,
  textToBytes,
} from '../../../src/platform/files/index.js';
import { buildZip } from '../../../src/platform/files/index.js';

describe('text views of bytes (algorithm × charset)', () => {
  const bytes = Buffer.from('Grüße €', 'utf8');

  it('decodes and encodes characters in a charset', () => {
    expect(bytesToText(bytes, 'NONE', 'UTF-8')).toBe('Grüße €');
    expect(bytesToText(Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65]), 'NONE', 'ISO-8859-1')).toBe('Grüße');
    expect(bytesToText(Buffer.from([0x80]), 'NONE', 'windows-1252')).toBe('€');
    expect(textToBytes('Grüße €', 'NONE', 'ISO-8859-1')).toEqual(
      Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65, 0x20, 0x3f]),
    );
    expect(textToBytes('é', 'NONE', 'UTF-16LE')).toEqual(Buffer.from([0xe9, 0x00]));
    expect(bytesToText(Buffer.from([0x82, 0xa0]), 'NONE', 'Shift_JIS')).toBe('あ');
  });

  it('keeps a byte-order mark so that text written back gives the same bytes', () => {
    const withBom = Buffer.from([0xef, 0xbb, 0xbf, 0x41]);
    const text = bytesToText(withBom, 'NONE', 'UTF-8');
    expect(text).toBe('\ufeffA');
    expect(textToBytes(text, 'NONE', 'UTF-8')).toEqual(withBom);
  });

  it('encodes bytes as BASE64, BASE64URL or HEXA and decodes them back', () => {
    const binary = Buffer.from([0xfb, 0xff, 0x00, 0x10]);
    expect(bytesToText(binary, 'BASE64', 'UTF-8')).toBe('+/8AEA==');
    expect(bytesToText(binary, 'BASE64URL', 'UTF-8')).toBe('-_8AEA');
    expect(bytesToText(binary, 'HEXA', 'UTF-8')).toBe('fbff0010');
    expect(textToBytes('+/8A\nEA==', 'BASE64', 'UTF-8')).toEqual(binary);
    expect(textToBytes('-_8AEA', 'BASE64URL', 'UTF-8')).toEqual(binary);
    expect(textToBytes('FB FF 00 10', 'HEXA', 'UTF-8')).toEqual(binary);
  });

  it('refuses text that is not of the algorithm', () => {
    expect(() => textToBytes('ab$c', 'BASE64', 'UTF-8')).toThrow('the content is not valid BASE64');
    expect(() => textToBytes('abcde', 'BASE64', 'UTF-8')).toThrow('the content is not valid BASE64');
    expect(() => textToBytes('+/8A', 'BASE64URL', 'UTF-8')).toThrow('the content is not valid BASE64URL');
    expect(() => textToBytes('abc', 'HEXA', 'UTF-8')).toThrow('the content is not valid HEXA');
    expect(() => textToBytes('zz', 'HEXA', 'UTF-8')).toThrow('the content is not valid HEXA');
  });

  it('names algorithms in any case and knows iconv-lite charsets', () => {
    expect(parseAlgorithm('base64')).toBe('BASE64');
    expect(parseAlgorithm(' None ')).toBe('NONE');
    expect(parseAlgorithm('MD5')).toBeUndefined();
    expect(
      ['UTF-8', 'utf8', 'ISO-8859-1', 'latin1', 'windows-1252', 'UTF-16LE', 'Shift_JIS'].every(isCharset),
    ).toBe(true);
    expect(isCharset('x-unknown')).toBe(false);
    expect(isCharset('')).toBe(false);
  });
});

describe('content type detection', () => {
  it('prefers a recognised signature over the name', async () => {
    expect(await detectContentType('report.txt', Buffer.from('%PDF-1.7\n%âãÏÓ\n'))).toBe('application/pdf');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    expect(await detectContentType('x.bin', png)).toBe('image/png');
  });

  it('lets the name refine a container signature (zip, xml)', async () => {
    const zip = await buildZip([{ name: 'a', content: Buffer.from('a'), mtime: 0 }]);
    expect(await detectContentType('lib.jar', zip)).toBe('application/java-archive');
    expect(await detectContentType('archive', zip)).toBe('application/zip');
    const xml = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>');
    expect(await detectContentType('logo.svg', xml)).toBe('image/svg+xml');
    expect(await detectContentType('data', xml)).toBe('application/xml');
  });

  it('falls back on the extension, then on text or binary', async () => {
    expect(await detectContentType('rows.csv', Buffer.from('a;b\n1;2\n'))).toBe('text/csv');
    expect(await detectContentType('data.json', Buffer.from('{"a":1}'))).toBe('application/json');
    expect(await detectContentType('README', Buffer.from('plain words'))).toBe('text/plain');
    expect(await detectContentType('blob', Buffer.from([1, 0, 2]))).toBe('application/octet-stream');
    expect(await detectContentType('empty', Buffer.alloc(0))).toBe('text/plain');
  });

  it('tells text types from binary ones', () => {
    for (const t of [
      'text/plain',
      'text/csv; charset=x',
      'application/json',
      'application/xml',
      'image/svg+xml',
    ])
      expect(isTextType(t)).toBe(true);
    for (const t of ['application/pdf', 'image/png', 'application/zip', 'application/octet-stream'])
      expect(isTextType(t)).toBe(false);
  });
});
