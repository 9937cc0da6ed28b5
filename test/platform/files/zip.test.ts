import { describe, expect, it } from 'vitest';
import {
  buildZip,
  checkZip,
  DEFAULT_FILE_LIMITS,
  extractZip,
  fileLimits,
} from '../../../src/platform/files/index.js';
import { deflated, handmadeZip, zipBomb } from './zips.js';

const MIB = 1024 * 1024;

async function refusal(archive: Buffer, limits = DEFAULT_FILE_LIMITS): Promise<string> {
  try {
    await extractZip(archive, limits);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the archive was not refused');
}

describe('zip archives', () => {
  it('round-trips files, renaming equal names and flattening paths', async () => {
    const archive = await buildZip([
      { name: 'a.txt', content: Buffer.from('first'), mtime: 0 },
      { name: 'a.txt', content: Buffer.from('second'), mtime: 0 },
      { name: 'dir/b.csv', content: Buffer.from('x;y\n1;2\n'), mtime: 0 },
      { name: '..', content: Buffer.alloc(0), mtime: 0 },
      { name: 'noext', content: Buffer.from([0, 1, 2, 255]), mtime: 0 },
      { name: 'noext', content: Buffer.from('again'), mtime: 0 },
    ]);
    expect(archive.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    const entries = await extractZip(archive, DEFAULT_FILE_LIMITS);
    expect(entries.map((e) => [e.name, e.content.toString('latin1')])).toEqual([
      ['a.txt', 'first'],
      ['a (2).txt', 'second'],
      ['dir_b.csv', 'x;y\n1;2\n'],
      ['_', ''],
      ['noext', '\x00\x01\x02\xff'],
      ['noext (2)', 'again'],
    ]);
  });

  it('reads stored and deflated entries of any archive and skips directories', async () => {
    const archive = handmadeZip([
      { name: 'dir/', data: Buffer.alloc(0), method: 0, uncompressedSize: 0 },
      { name: 'dir/plain.txt', data: Buffer.from('stored'), method: 0, uncompressedSize: 6 },
      { name: 'packed.txt', data: deflated('deflated text'), uncompressedSize: 13 },
    ]);
    const entries = await extractZip(archive, DEFAULT_FILE_LIMITS);
    expect(entries.map((e) => [e.name, e.content.toString()])).toEqual([
      ['dir/plain.txt', 'stored'],
      ['packed.txt', 'deflated text'],
    ]);
  });

  it('refuses what is not a zip archive, encrypted entries and unknown methods', async () => {
    expect(await refusal(Buffer.from('not a zip at all'))).toBe(
      'the file is not a valid zip archive: End of central directory record signature not found. Either not a zip file, or file is truncated.',
    );
    expect(
      await refusal(
        handmadeZip([{ name: 's.txt', data: deflated('x'), uncompressedSize: 1, encrypted: true }]),
      ),
    ).toBe('entry s.txt is encrypted, which is not supported');
    const bzip = handmadeZip([{ name: 'b.bz2', data: Buffer.from('BZh9'), uncompressedSize: 4 }]);
    bzip.writeUInt16LE(12, 8); // local header method
    bzip.writeUInt16LE(12, bzip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 10); // central method
    expect(await refusal(bzip)).toBe('entry b.bz2 uses compression method 12, which is not supported');
  });

  it('refuses too many entries from the central directory, before inflating anything', async () => {
    const entries = Array.from({ length: 4 }, (_, i) => ({
      name: `f${i}`,
      data: Buffer.from('x'),
      method: 0 as const,
      uncompressedSize: 1,
    }));
    expect(await refusal(handmadeZip(entries), fileLimits({ maxZipEntries: 3 }))).toBe(
      'the archive has 4 entries, more than 3 (maxZipEntries)',
    );
    expect(await extractZip(handmadeZip(entries.slice(0, 3)), fileLimits({ maxZipEntries: 3 }))).toHaveLength(
      3,
    );
  });

  it('refuses a total inflated size over the limit, declared or counted', async () => {
    const limits = fileLimits({ maxZipUncompressedBytes: 10, maxZipRatio: 1e9 });
    const two = (size: number) =>
      handmadeZip([
        { name: 'a', data: deflated('123456'), uncompressedSize: 6 },
        { name: 'b', data: deflated('7890ab'), uncompressedSize: size },
      ]);
    expect(await refusal(two(6), limits)).toBe(
      'the archive inflates to more than 10 bytes (maxZipUncompressedBytes)',
    );
    // b declares 6 bytes but inflates to 6: the sum (12) is counted while inflating too
    expect(await refusal(two(6), fileLimits({ maxZipUncompressedBytes: 11 }))).toBe(
      'the archive inflates to more than 11 bytes (maxZipUncompressedBytes)',
    );
  });

  it('checks every entry against the size the archive declares for it', async () => {
    const lie = (declared: number) =>
      handmadeZip([{ name: 'x.txt', data: deflated('a'.repeat(5000)), uncompressedSize: declared }]);
    expect(await refusal(lie(100))).toBe(
      'entry x.txt inflates to more than 5000 bytes where the archive declares 100',
    );
    expect(await refusal(lie(6000))).toBe(
      'entry x.txt inflates to 5000 bytes where the archive declares 6000',
    );
  });

  it('allows a very repetitive small entry but refuses a high ratio past the grace size', async () => {
    const zeros = (n: number) =>
      handmadeZip([{ name: 'z', data: deflated(Buffer.alloc(n)), uncompressedSize: n }]);
    expect((await extractZip(zeros(MIB), DEFAULT_FILE_LIMITS))[0]!.content.length).toBe(MIB);
    expect(await refusal(zeros(2 * MIB))).toBe(
      'entry z inflates more than 200 times its compressed size (maxZipRatio): refused as a zip bomb',
    );
  });

  describe('a zip bomb of 1.1 GiB of zeros (about 1 MB compressed)', () => {
    it('is refused from its honest headers at once', async () => {
      const started = performance.now();
      expect(await refusal(zipBomb(1100))).toBe(
        'the archive inflates to more than 268435456 bytes (maxZipUncompressedBytes)',
      );
      expect(performance.now() - started).toBeLessThan(1000);
    });

    it('is refused while inflating when its headers lie, within a second and without holding what it inflated', async () => {
      for (const [declared, message] of [
        // declares 60 MiB: within every declared limit, so only the counted ratio can catch it
        [
          60 * MIB,
          'entry bomb.bin inflates more than 200 times its compressed size (maxZipRatio): refused as a zip bomb',
        ],
        // declares 1000 bytes: caught as soon as it inflates past them
        [1000, 'entry bomb.bin inflates to more than 16384 bytes where the archive declares 1000'],
      ] as const) {
        const bomb = zipBomb(1100, declared);
        global.gc?.();
        const before = process.memoryUsage();
        const started = performance.now();
        expect(await refusal(bomb)).toBe(message);
        expect(performance.now() - started).toBeLessThan(1000);
        const after = process.memoryUsage();
        // The bomb inflates to 1.1 GiB; the refusal holds at most its first few MiB.
        expect(after.rss - before.rss).toBeLessThan(64 * MIB);
        expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(16 * MIB);
      }
    });

    it('is refused by the check-only walk used for xlsx workbooks as well', async () => {
      await expect(checkZip(zipBomb(1100, 60 * MIB), DEFAULT_FILE_LIMITS)).rejects.toThrow(
        'entry bomb.bin inflates more than 200 times its compressed size (maxZipRatio): refused as a zip bomb',
      );
    });
  });
});
