import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FILE_LIMITS,
  fileLimits,
  replaceText,
  type ReplaceRequest,
} from '../../../src/platform/files/index.js';

const plain: ReplaceRequest = {
  search: '',
  replacement: '',
  regex: false,
  first: false,
  ignoreCase: false,
  multiline: false,
  dotAll: false,
};
const run = (text: string, request: Partial<ReplaceRequest>, limits = DEFAULT_FILE_LIMITS) =>
  replaceText(text, { ...plain, ...request }, limits);

describe('file_replace engine', () => {
  it('replaces literal text, every occurrence or the first, taking $ and \\ literally', async () => {
    expect(await run('a.b.c', { search: '.', replacement: '$1\\' })).toBe('a$1\\b$1\\c');
    expect(await run('a.b.c', { search: '.', replacement: '-', first: true })).toBe('a-b.c');
    expect(await run('abc', { search: 'x', replacement: '-', first: true })).toBe('abc');
    expect(await run('Hello HELLO hello', { search: 'hello', replacement: '[$0]', ignoreCase: true })).toBe(
      '[$0] [$0] [$0]',
    );
    expect(await run('a(b)a(b)', { search: '(B)', replacement: 'x', ignoreCase: true, first: true })).toBe(
      'axa(b)',
    );
    await expect(run('abc', { search: '' })).rejects.toThrow('the text to search may not be empty');
  });

  it('replaces regular expressions with Java replacement syntax', async () => {
    expect(
      await run('2024-01-15', { regex: true, search: '(\\d+)-(\\d+)-(\\d+)', replacement: '$3/$2/$1' }),
    ).toBe('15/01/2024');
    expect(
      await run('john smith', {
        regex: true,
        search: '(?P<first>\\w+) (?<last>\\w+)',
        replacement: '${last}, ${first}',
      }),
    ).toBe('smith, john');
    expect(await run('cost: 5', { regex: true, search: '\\d', replacement: '\\$$0' })).toBe('cost: $5');
    expect(await run('aaa', { regex: true, search: 'a', replacement: 'b', first: true })).toBe('baa');
    expect(await run('abc', { regex: true, search: '', replacement: '-' })).toBe('-a-b-c-');
    expect(
      await run('Ab\naB', {
        regex: true,
        search: '^ab$',
        replacement: 'x',
        ignoreCase: true,
        multiline: true,
      }),
    ).toBe('x\nx');
    expect(await run('a\nb', { regex: true, search: 'a.b', replacement: 'x' })).toBe('a\nb');
    expect(await run('a\nb', { regex: true, search: 'a.b', replacement: 'x', dotAll: true })).toBe('x');
  });

  it('refuses invalid and oversized patterns before running them', async () => {
    await expect(run('x', { regex: true, search: '(a' })).rejects.toThrow(
      'invalid regular expression: error parsing regexp: missing closing ): `(a`',
    );
    await expect(run('x', { regex: true, search: '(a)\\1' })).rejects.toThrow(
      /^invalid regular expression: /,
    );
    await expect(run('x', { regex: true, search: 'a{1001}' })).rejects.toThrow(
      'invalid regular expression: error parsing regexp: invalid repeat count: `{1001}`',
    );
    await expect(
      run('x', { regex: true, search: 'a'.repeat(11) }, fileLimits({ maxPatternLength: 10 })),
    ).rejects.toThrow('the pattern has more than 10 characters (maxPatternLength)');
  });

  it('runs classic catastrophic-backtracking patterns in linear time', async () => {
    const text = 'a'.repeat(100_000) + '!';
    for (const search of ['(a+)+$', '(a|aa)+b', '(a*)*b', '(.*a){12}x'])
      expect(await run(text, { regex: true, search, replacement: 'x' })).toBe(text);
  });

  it('stops a run past its time bound, keeps the event loop free meanwhile, and recovers', async () => {
    const text = 'lorem ipsum dolor sit amet '.repeat(200_000); // 5.4 MB
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    await expect(
      run(
        text,
        { regex: true, search: '[a-z ]*[0-9]', replacement: 'x' },
        fileLimits({ regexTimeoutMs: 200 }),
      ),
    ).rejects.toThrow('the replacement took longer than 200 ms (regexTimeoutMs) and was stopped');
    clearInterval(timer);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(ticks).toBeGreaterThan(5); // the main thread kept running timers while the worker searched
    expect(await run('abc', { regex: true, search: 'b', replacement: 'x' })).toBe('axc');
  });
});
