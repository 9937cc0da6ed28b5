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

  it('highlights a Python body inside <@script env="python"> as Python, up to </@script>', () => {
    const body = [
      '',
      '# total ${x}',
      "if n > 1.5 and s != r'a\\'b':",
      '    RMPData.setOutput(f"{n}" + """x',
      'y""")',
      'else: pass',
      '',
    ].join('\n');
    expect(pairs(`<@script env="python"><#noparse>${body}</#noparse></@script>\${n}`)).toEqual([
      ['tag', '<@script'],
      ['name', 'env'],
      ['operator', '='],
      ['string', '"python"'],
      ['tag', '>'],
      ['tag', '<#noparse'],
      ['tag', '>'],
      ['comment', '# total ${x}'],
      ['keyword', 'if'],
      ['name', 'n'],
      ['operator', '>'],
      ['number', '1.5'],
      ['keyword', 'and'],
      ['name', 's'],
      ['operator', '!'],
      ['operator', '='],
      ['string', "r'a\\'b'"],
      ['operator', ':'],
      ['function', 'RMPData'],
      ['operator', '.'],
      ['name', 'setOutput'],
      ['operator', '('],
      ['string', 'f"{n}"'],
      ['operator', '+'],
      ['string', '"""x\ny"""'],
      ['operator', ')'],
      ['keyword', 'else'],
      ['operator', ':'],
      ['keyword', 'pass'],
      ['tag', '</#noparse'],
      ['tag', '>'],
      ['tag', '</@script'],
      ['tag', '>'],
      ['interpolation', '${'],
      ['name', 'n'],
      ['interpolation', '}'],
    ]);
  });

  it('highlights a JavaScript body (env="js" or no env) as JavaScript; other bodies stay template text', () => {
    const js = [
      ['keyword', 'const'],
      ['name', 'o'],
      ['operator', '='],
      ['function', 'RMPData'],
      ['operator', '.'],
      ['name', 'getVariable'],
      ['operator', '('],
      ['string', '`a${b}`'],
      ['operator', ')'],
      ['operator', ';'],
      ['comment', '// # not python'],
      ['tag', '</@script'],
      ['tag', '>'],
    ];
    const body = 'const o = RMPData.getVariable(`a${b}`); // # not python</@script>';
    expect(pairs('<@script env="js">' + body).slice(5)).toEqual(js);
    expect(pairs("<@script env='JS'>" + body).slice(5)).toEqual(js);
    expect(pairs('<@script>' + body).slice(2)).toEqual(js);
    // an unknown language, and a self-closed tag: the template's own highlighting goes on
    expect(pairs('<@script env="ruby"># ${x}</@script>').slice(5, 8)).toEqual([
      ['text', '# '],
      ['interpolation', '${'],
      ['name', 'x'],
    ]);
    expect(pairs('<@script env="python"/># ${x}').slice(5, 8)).toEqual([
      ['text', '# '],
      ['interpolation', '${'],
      ['name', 'x'],
    ]);
    // a body never closed is script to the end
    expect(pairs('<@script env="python">x = "open').slice(5)).toEqual([
      ['name', 'x'],
      ['operator', '='],
      ['string', '"open'],
    ]);
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
            '<@script env="python">',
            '<@script>',
            '</@script>',
            '<#noparse>',
            '</#noparse>',
            '"""',
            '`',
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
