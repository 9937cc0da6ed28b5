/** The playground's highlighter and completion matching (pure functions, no browser). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchFunctions, type FunctionInfo } from '../../src/console/completion.js';
import { tokenize } from '../../src/console/highlight.js';

const pairs = (source: string, functions: string[] = []) =>
  tokenize(source, new Set(functions))
    .filter((t) => t.kind !== 'text' || t.text.trim() !== '')
    .map((t) => [t.kind, t.text]);

describe('highlighting', () => {
  it('tells text, comments, tags, interpolations and expression tokens apart', () => {
    expect(
      pairs(
        'Hi <#-- note --><#if total gt 10 && ok>${list_objects({"a": r"x"}, \'c\')?size}</#if><@m x=1/>',
        ['list_objects'],
      ),
    ).toEqual([
      ['text', 'Hi '],
      ['comment', '<#-- note -->'],
      ['tag', '<#if'],
      ['name', 'total'],
      ['keyword', 'gt'],
      ['number', '10'],
      ['operator', '&'],
      ['operator', '&'],
      ['name', 'ok'],
      ['tag', '>'],
      ['interpolation', '${'],
      ['function', 'list_objects'],
      ['operator', '('],
      ['operator', '{'],
      ['string', '"a"'],
      ['operator', ':'],
      ['string', 'r"x"'],
      ['operator', '}'],
      ['operator', ','],
      ['string', "'c'"],
      ['operator', ')'],
      ['builtin', '?size'],
      ['interpolation', '}'],
      ['tag', '</#if'],
      ['tag', '>'],
      ['tag', '<@m'],
      ['name', 'x'],
      ['operator', '='],
      ['number', '1'],
      ['tag', '/>'],
    ]);
  });

  it('ends a tag at > only outside parentheses, and survives unfinished input', () => {
    expect(pairs('<#if (a > b)>x')).toEqual([
      ['tag', '<#if'],
      ['operator', '('],
      ['name', 'a'],
      ['operator', '>'],
      ['name', 'b'],
      ['operator', ')'],
      ['tag', '>'],
      ['text', 'x'],
    ]);
    expect(pairs('${"open')).toEqual([
      ['interpolation', '${'],
      ['string', '"open'],
    ]);
    expect(pairs('<#-- never closed')).toEqual([['comment', '<#-- never closed']]);
  });

  it('gives the text back, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            '<',
            '#',
            '@',
            '/',
            '$',
            '{',
            '}',
            '(',
            ')',
            '>',
            '"',
            "'",
            '-',
            'a',
            ' ',
            '\n',
            '?',
            '1',
          ),
        }),
        (s) => {
          expect(
            tokenize(s)
              .map((t) => t.text)
              .join(''),
          ).toBe(s);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('completion matching', () => {
  const info = (name: string, aliases: string[] = []): FunctionInfo => ({
    name,
    aliases,
    group: 'Utilities',
    rights: 'none',
    doc: '',
    returns: 'string',
    flags: [],
    forms: [],
  });
  const library = [
    info('list_objects'),
    info('load_object'),
    info('R_read_excel_cells', ['read_excel_cells']),
    info('now'),
  ];

  it('lists names and aliases starting with the prefix, in any case, sorted', () => {
    expect(matchFunctions(library, 'l').map((m) => m.name)).toEqual(['list_objects', 'load_object']);
    expect(matchFunctions(library, 'READ').map((m) => [m.name, m.info.name])).toEqual([
      ['read_excel_cells', 'R_read_excel_cells'],
    ]);
    expect(matchFunctions(library, 'r_').map((m) => m.name)).toEqual(['R_read_excel_cells']);
    expect(matchFunctions(library, 'zz')).toEqual([]);
  });
});
