/**
 * The Atom format shared by the client and the server: the XML it writes (exactly), the server's
 * reader giving the same document back (for any document: a property test), and what both
 * readers refuse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  atomFromJson,
  atomToXml,
  AtomFormatError,
  parseResourceUrn,
  resourceUrn,
  type AtomDocument,
} from '../../src/atom/format.js';
import { readAtomXml } from '../../src/server/atom/xml.js';
import { atomEntry } from './support/arbitraries.js';

const refusal = (text: string) => {
  try {
    readAtomXml(text);
  } catch (e) {
    const error = e as { status: number; code: string; message: string };
    return [error.status, error.code, error.message];
  }
  return 'accepted';
};

describe('Atom format', () => {
  it('writes a feed with its paging, links, categories, typed summary/content and extensions', () => {
    const document: AtomDocument = {
      feed: {
        id: 'urn:flowmark:acme:feed:/config/acme/project',
        title: 'Projects',
        updated: '2025-01-02T03:04:05.000Z',
        link: [{ rel: 'self', href: 'http://h/config/acme/project?first=0&nb=1' }],
        totalResults: 2,
        startIndex: 0,
        itemsPerPage: 1,
        entry: [
          {
            id: 'urn:flowmark:acme:project:1',
            title: 'A & <B>',
            author: { name: 'Ann "Admin"', email: 'ann@acme.example', uri: 'http://h/config/acme/user/1' },
            category: [{ term: 'PROCESS', label: 'type', scheme: 'urn:x' }],
            link: [
              {
                rel: 'self',
                href: 'http://h/config/acme/project/1',
                type: 'application/atom+xml',
                title: "it's",
              },
            ],
            summary: 'plain text',
            content: { list: [1, 'two'], nested: { ok: true } },
            metadata: { owner: 'sales' },
          },
        ],
      },
    };
    expect(atomToXml(document)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:fm="urn:flowmark:atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">',
        '  <id>urn:flowmark:acme:feed:/config/acme/project</id>',
        '  <title>Projects</title>',
        '  <updated>2025-01-02T03:04:05.000Z</updated>',
        '  <link href="http://h/config/acme/project?first=0&amp;nb=1" rel="self"/>',
        '  <opensearch:totalResults>2</opensearch:totalResults>',
        '  <opensearch:startIndex>0</opensearch:startIndex>',
        '  <opensearch:itemsPerPage>1</opensearch:itemsPerPage>',
        '  <entry>',
        '    <id>urn:flowmark:acme:project:1</id>',
        '    <title>A &amp; &lt;B&gt;</title>',
        '    <author><name>Ann &quot;Admin&quot;</name><email>ann@acme.example</email><uri>http://h/config/acme/user/1</uri></author>',
        '    <category term="PROCESS" label="type" scheme="urn:x"/>',
        '    <link href="http://h/config/acme/project/1" rel="self" type="application/atom+xml" title="it&apos;s"/>',
        '    <summary type="text">plain text</summary>',
        '    <content type="application/json">{&quot;list&quot;:[1,&quot;two&quot;],&quot;nested&quot;:{&quot;ok&quot;:true}}</content>',
        '    <fm:metadata>{&quot;owner&quot;:&quot;sales&quot;}</fm:metadata>',
        '  </entry>',
        '</feed>',
        '',
      ].join('\n'),
    );
    expect(readAtomXml(atomToXml(document))).toEqual(document);
  });

  it('reads any entry back as it was written (XML round trip)', () => {
    fc.assert(
      fc.property(atomEntry, (e) => {
        expect(readAtomXml(atomToXml({ entry: e }))).toEqual({ entry: e });
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what is not well-formed, not Atom, or carries a DTD', () => {
    expect(refusal('<entry><title>x</entry>')).toEqual([
      400,
      'invalid-xml',
      "Invalid XML at line 1, column 16: Expected closing tag 'title' (opened in line 1, col 8) instead of closing tag 'entry'.",
    ]);
    expect(refusal('<!DOCTYPE entry [<!ENTITY a "b">]><entry>&a;</entry>')).toEqual([
      400,
      'invalid-xml',
      'Invalid XML: document type declarations are not accepted.',
    ]);
    expect(refusal('<html/>')).toEqual([
      400,
      'invalid-xml',
      'Invalid Atom document: expected an Atom <entry> or <feed>, not <html>',
    ]);
    expect(refusal('<entry><content type="application/json">{nope</content></entry>')).toEqual([
      400,
      'invalid-xml',
      expect.stringMatching(/^Invalid Atom document: <content>: invalid JSON \(/),
    ]);
    expect(refusal('<entry><content type="html">x</content></entry>')).toEqual([
      400,
      'invalid-xml',
      'Invalid Atom document: <content>: unsupported type "html" (text or application/json)',
    ]);
    expect(refusal('<entry><category label="type"/></entry>')).toEqual([
      400,
      'invalid-xml',
      'Invalid Atom document: <category> without a term attribute',
    ]);
    expect(refusal('<entry><__proto__>{}</__proto__></entry>')).toEqual([
      400,
      'invalid-xml',
      'Invalid XML: [SECURITY] Invalid name: "__proto__" is a reserved JavaScript keyword that could cause prototype pollution',
    ]);
    expect(refusal('<entry><constructor>{}</constructor></entry>')).toEqual([
      400,
      'invalid-xml',
      expect.stringMatching(/^Invalid (XML|Atom document): /),
    ]);
  });

  it('reads namespaced documents by local names, CDATA and character references included', () => {
    const xml =
      '<a:entry xmlns:a="http://www.w3.org/2005/Atom" xmlns:x="urn:other"><a:title>caf&#233; <![CDATA[<raw>]]></a:title>' +
      '<x:note>{"n":1}</x:note><a:content type="application/json">{"k":"\\u00e9"}</a:content></a:entry>';
    expect(readAtomXml(xml)).toEqual({ entry: { title: 'café <raw>', note: { n: 1 }, content: { k: 'é' } } });
  });

  it('drops __proto__, constructor and prototype keys inside JSON values', () => {
    const xml =
      '<entry><content type="application/json">{"a":{"__proto__":{"x":1},"constructor":2,"prototype":3,"b":4}}</content></entry>';
    expect(readAtomXml(xml)).toEqual({ entry: { content: { a: { b: 4 } } } });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('checks the JSON form', () => {
    expect(atomFromJson({ entry: { title: 'x', content: [1] } })).toEqual({
      entry: { title: 'x', content: [1] },
    });
    expect(atomFromJson({ feed: { title: 'f' } })).toEqual({ feed: { title: 'f', entry: [] } });
    const failures = [
      [],
      { entries: [] },
      { entry: { title: 3 } },
      { entry: { category: [{ label: 'x' }] } },
      { entry: { link: 'http://x' } },
      JSON.parse('{"entry": {"__proto__": {"polluted": true}}}'),
      { feed: { entry: [1] } },
    ].map((value) => {
      try {
        atomFromJson(value);
        return 'accepted';
      } catch (e) {
        return e instanceof AtomFormatError ? e.message : String(e);
      }
    });
    expect(failures).toEqual([
      'expected {"entry": {…}} or {"feed": {…}}',
      'expected {"entry": {…}} or {"feed": {…}}',
      'entry.title must be a string',
      'entry.category: each needs a string term',
      'entry.link must be an array',
      '<__proto__>: not an extension name',
      'feed.entry: entries are objects',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names resources by URN', () => {
    expect(resourceUrn('acme', 'customlist', 'a:b')).toBe('urn:flowmark:acme:customlist:a:b');
    expect(parseResourceUrn('urn:flowmark:acme:customlist:a:b')).toEqual({
      account: 'acme',
      kind: 'customlist',
      id: 'a:b',
    });
    expect(parseResourceUrn('tag:other')).toBeUndefined();
  });
});
