/**
 * The bounded engines of the file service, against their unbounded references, in one run:
 * - file_replace with a regex: RE2 (re2js) in the worker vs V8's RegExp on the main thread, on
 *   a text of 1 and 4 MB; then a pattern that backtracks catastrophically in V8 (`(a|aa)+b` over
 *   28 a's and over 1 MB of a's in RE2), showing what the linear engine buys;
 * - file_replace with plain text: split/join (in place) vs String.replaceAll;
 * - unzip: extractZip of a 64 MiB text archive vs one zlib.inflateRawSync of the same entries;
 * - a 1.1 GiB zip bomb: time to refusal and RSS growth.
 *
 *   npm run bench -- files
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { buildZip, DEFAULT_FILE_LIMITS, extractZip, replaceText } from '../src/platform/files/index.js';
import { zipBomb } from '../test/platform/files/zips.js';

const MB = 1024 * 1024;

async function time<T>(fn: () => Promise<T> | T, runs = 3): Promise<{ ms: number; result: T }> {
  let best = Infinity;
  let result!: T;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    result = await fn();
    best = Math.min(best, performance.now() - started);
  }
  return { ms: best, result };
}

const fmt = (ms: number) => `${ms.toFixed(1).padStart(8)} ms`;
const rx = { regex: true, first: false, ignoreCase: false, multiline: false, dotAll: false };

async function regexes(): Promise<void> {
  console.log('file_replace, regex: RE2 in the worker vs V8 RegExp on the main thread');
  for (const size of [1, 4]) {
    const text = 'lorem ipsum dolor sit amet, 2024-01-15 consectetur '.repeat(Math.ceil((size * MB) / 52));
    for (const [search, replacement, native] of [
      ['(\\d+)-(\\d+)-(\\d+)', '$3/$2/$1', /(\d+)-(\d+)-(\d+)/g],
      ['\\b(\\w+)m\\b', '[$1]', /\b(\w+)m\b/g],
      ['[a-z ]*[0-9]{5}', 'x', /[a-z ]*[0-9]{5}/g],
    ] as const) {
      const re2 = await time(() => replaceText(text, { ...rx, search, replacement }, DEFAULT_FILE_LIMITS));
      const v8 = await time(() => text.replace(native, replacement));
      if (re2.result !== v8.result) throw new Error(`different results for ${search}`);
      console.log(
        `  ${size} MB  ${search.padEnd(22)} RE2 ${fmt(re2.ms)}   V8 ${fmt(v8.ms)}   ratio ${(re2.ms / v8.ms).toFixed(1)}×`,
      );
    }
  }
  const evil = 'a'.repeat(28);
  const v8 = await time(() => /(a|aa)+b/.test(evil), 1);
  const re2 = await time(
    () => replaceText(evil, { ...rx, search: '(a|aa)+b', replacement: 'x' }, DEFAULT_FILE_LIMITS),
    1,
  );
  const re2Big = await time(
    () => replaceText('a'.repeat(MB), { ...rx, search: '(a|aa)+b', replacement: 'x' }, DEFAULT_FILE_LIMITS),
    1,
  );
  console.log(
    `  (a|aa)+b over 28 a's: V8 ${fmt(v8.ms)} (exponential), RE2 ${fmt(re2.ms)}; RE2 over 1 MB of a's ${fmt(re2Big.ms)}`,
  );
  const worst = 'lorem ipsum dolor sit amet '.repeat(Math.ceil((16 * MB) / 27));
  const bounded = await time(async () => {
    try {
      await replaceText(
        worst,
        { ...rx, search: '[a-z ]*[0-9]', replacement: 'x' },
        { ...DEFAULT_FILE_LIMITS, regexTimeoutMs: 1000 },
      );
      return 'finished';
    } catch (e) {
      return (e as Error).message;
    }
  }, 1);
  console.log(`  16 MB, [a-z ]*[0-9] with a 1000 ms bound: ${bounded.result} after ${fmt(bounded.ms)}`);
}

async function plain(): Promise<void> {
  const text = 'lorem ipsum dolor sit amet '.repeat(Math.ceil((16 * MB) / 27));
  const mine = await time(() =>
    replaceText(text, { ...rx, regex: false, search: 'ipsum', replacement: 'IPSUM' }, DEFAULT_FILE_LIMITS),
  );
  const ref = await time(() => text.replaceAll('ipsum', 'IPSUM'));
  if (mine.result !== ref.result) throw new Error('different plain results');
  console.log(
    `file_replace, plain text, 16 MB: split/join ${fmt(mine.ms)}   replaceAll ${fmt(ref.ms)}   ratio ${(mine.ms / ref.ms).toFixed(2)}×`,
  );
}

async function unzip(): Promise<void> {
  const inputs = Array.from({ length: 16 }, (_, i) => ({
    name: `part${i}.csv`,
    content: Buffer.from(
      Array.from({ length: (4 * MB) / 32 }, (_, j) => `${i};${j};${(j * 7919) % 1000};ok\n`).join(''),
    ),
    mtime: 0,
  }));
  const total = inputs.reduce((n, f) => n + f.content.length, 0);
  const archive = await buildZip(inputs);
  const deflated = inputs.map((f) => deflateRawSync(f.content));
  const mine = await time(() => extractZip(archive, DEFAULT_FILE_LIMITS));
  const ref = await time(() => deflated.map((d) => inflateRawSync(d)));
  console.log(
    `unzip ${(total / MB).toFixed(0)} MiB in ${inputs.length} entries (${(archive.length / MB).toFixed(1)} MiB zipped): ` +
      `extractZip ${fmt(mine.ms)}   inflateRawSync ${fmt(ref.ms)}   ratio ${(mine.ms / ref.ms).toFixed(2)}×`,
  );
  const bomb = zipBomb(1100, 60 * MB);
  global.gc?.();
  const rss = process.memoryUsage().rss;
  const refused = await time(async () => {
    try {
      await extractZip(bomb, DEFAULT_FILE_LIMITS);
      return 'NOT REFUSED';
    } catch (e) {
      return (e as Error).message;
    }
  }, 1);
  console.log(
    `zip bomb, 1.1 GiB of zeros in ${(bomb.length / MB).toFixed(1)} MiB, lying headers: refused in ${fmt(refused.ms)}, ` +
      `RSS +${((process.memoryUsage().rss - rss) / MB).toFixed(1)} MiB: ${refused.result}`,
  );
}

await regexes();
await plain();
await unzip();
