/**
 * ZIP archives: written with yazl, read with yauzl under hard limits. Reading never trusts the
 * sizes the archive declares: they are checked first (a refusal costs nothing), then every
 * entry's inflated bytes are counted as they stream, and the read stops the moment the entry
 * count, the total inflated size or an entry's inflated/compressed ratio goes past its limit.
 * Memory therefore stays within what the limits allow, whatever the archive claims.
 */
import type { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import type yauzl from 'yauzl';
import { PlatformError } from '../errors.js';
import type { FileLimits } from './limits.js';
import { errorMessage } from '../../errors/index.js';

export interface ZipInput {
  name: string;
  content: Buffer;
  /** Epoch ms. */
  mtime: number;
}

export interface ZipEntryContent {
  /** The entry's path inside the archive (`dir/file.txt`). */
  name: string;
  content: Buffer;
}

export type ZipLimits = Pick<
  FileLimits,
  'maxZipEntries' | 'maxZipUncompressedBytes' | 'maxZipRatio' | 'zipRatioGraceBytes' | 'maxFileBytes'
>;

/** A deflated archive of the inputs; equal names get a ` (2)`, ` (3)` … before their extension. */
export async function buildZip(inputs: readonly ZipInput[]): Promise<Buffer> {
  const { default: yazl } = await import('yazl'); // loaded with the first archive, not at startup
  const zip = new yazl.ZipFile();
  const used = new Set<string>();
  for (const input of inputs) {
    const name = uniqueName(entryName(input.name), used);
    zip.addBuffer(input.content, name, { mtime: new Date(input.mtime), compress: true });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Every file entry of an archive with its content (directories are skipped), within the limits. */
export async function extractZip(archive: Buffer, limits: ZipLimits): Promise<ZipEntryContent[]> {
  const entries: ZipEntryContent[] = [];
  await walkZip(archive, limits, (name, content) => entries.push({ name, content }));
  return entries;
}

/** Inflates every entry and throws away the bytes: checks an archive against the limits (xlsx). */
export async function checkZip(archive: Buffer, limits: ZipLimits): Promise<void> {
  await walkZip(archive, limits, undefined);
}

export class ZipLimitError extends PlatformError {
  constructor(message: string) {
    super('invalid', message);
  }
}

async function walkZip(
  archive: Buffer,
  limits: ZipLimits,
  keep: ((name: string, content: Buffer) => void) | undefined,
): Promise<void> {
  const { default: unzip } = await import('yauzl'); // loaded with the first archive, not at startup
  let zipfile: yauzl.ZipFile;
  try {
    zipfile = await unzip.fromBufferPromise(archive, {
      lazyEntries: true,
      decodeStrings: true,
      // Sizes are checked here, against the bytes actually inflated (inflateEntry).
      validateEntrySizes: false,
      strictFileNames: false,
    });
  } catch (e) {
    throw invalidArchive(e);
  }
  try {
    if (zipfile.entryCount > limits.maxZipEntries)
      throw new ZipLimitError(
        `the archive has ${zipfile.entryCount} entries, more than ${limits.maxZipEntries} (maxZipEntries)`,
      );
    let total = 0;
    let declaredTotal = 0;
    for await (const entry of iterateEntries(zipfile)) {
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      if (entry.isEncrypted()) throw new ZipLimitError(`entry ${name} is encrypted, which is not supported`);
      declaredTotal += entry.uncompressedSize;
      checkDeclared(name, entry.uncompressedSize, entry.compressedSize, declaredTotal, limits);
      const content = await inflateEntry(zipfile, entry, limits, total, keep !== undefined);
      total += content.counted;
      keep?.(name, content.bytes!);
    }
  } finally {
    zipfile.close();
  }
}

function checkDeclared(
  name: string,
  size: number,
  compressed: number,
  declaredTotal: number,
  limits: ZipLimits,
): void {
  if (declaredTotal > limits.maxZipUncompressedBytes) throw totalExceeded(limits);
  if (size > limits.maxFileBytes) throw entryTooLarge(name, limits);
  if (size > limits.zipRatioGraceBytes && size / Math.max(compressed, 1) > limits.maxZipRatio)
    throw ratioExceeded(name, limits);
}

/**
 * Inflates one entry itself (yauzl hands over the raw bytes) so that the ratio is measured
 * against the compressed bytes consumed so far, not the size the archive declares: a bomb is
 * refused after its first MiB whatever its headers say.
 */
async function inflateEntry(
  zipfile: yauzl.ZipFile,
  entry: yauzl.Entry,
  limits: ZipLimits,
  totalBefore: number,
  collect: boolean,
): Promise<{ counted: number; bytes?: Buffer }> {
  const name = entry.fileName;
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
    throw new ZipLimitError(
      `entry ${name} uses compression method ${entry.compressionMethod}, which is not supported`,
    );
  let raw: Readable;
  try {
    raw = await zipfile.openReadStreamPromise(entry, { decodeFileData: false });
  } catch (e) {
    throw invalidArchive(e);
  }
  // Compressed bytes the inflater has consumed so far (zlib counts them per output chunk).
  let consumed = () => Infinity;
  let inflated: Readable = raw;
  if (entry.compressionMethod === 8) {
    const inflater = createInflateRaw();
    consumed = () => inflater.bytesWritten;
    inflated = raw.pipe(inflater);
    raw.on('error', (e) => inflater.destroy(e));
  }
  const chunks: Buffer[] = [];
  let counted = 0;
  try {
    for await (const chunk of inflated as AsyncIterable<Buffer>) {
      counted += chunk.length;
      if (counted > entry.uncompressedSize) throw sizeMismatch(entry, counted, 'more than ');
      if (totalBefore + counted > limits.maxZipUncompressedBytes) throw totalExceeded(limits);
      if (counted > limits.maxFileBytes) throw entryTooLarge(name, limits);
      if (counted > limits.zipRatioGraceBytes && counted / Math.max(consumed(), 1) > limits.maxZipRatio)
        throw ratioExceeded(name, limits);
      if (collect) chunks.push(chunk);
    }
  } catch (e) {
    raw.destroy();
    inflated.destroy();
    if (e instanceof PlatformError) throw e;
    throw invalidArchive(e);
  }
  if (counted !== entry.uncompressedSize) throw sizeMismatch(entry, counted, '');
  return { counted, bytes: collect ? Buffer.concat(chunks, counted) : undefined };
}

async function* iterateEntries(zipfile: yauzl.ZipFile): AsyncGenerator<yauzl.Entry> {
  try {
    for await (const entry of zipfile.eachEntry()) yield entry;
  } catch (e) {
    if (e instanceof PlatformError) throw e;
    throw invalidArchive(e);
  }
}

function sizeMismatch(entry: yauzl.Entry, counted: number, more: string): ZipLimitError {
  return new ZipLimitError(
    `entry ${entry.fileName} inflates to ${more}${counted} bytes where the archive declares ${entry.uncompressedSize}`,
  );
}

function totalExceeded(limits: ZipLimits): ZipLimitError {
  return new ZipLimitError(
    `the archive inflates to more than ${limits.maxZipUncompressedBytes} bytes (maxZipUncompressedBytes)`,
  );
}

function entryTooLarge(name: string, limits: ZipLimits): ZipLimitError {
  return new ZipLimitError(`entry ${name} inflates to more than ${limits.maxFileBytes} bytes (maxFileBytes)`);
}

function ratioExceeded(name: string, limits: ZipLimits): ZipLimitError {
  return new ZipLimitError(
    `entry ${name} inflates more than ${limits.maxZipRatio} times its compressed size (maxZipRatio): refused as a zip bomb`,
  );
}

function invalidArchive(e: unknown): PlatformError {
  const reason = errorMessage(e);
  return new PlatformError('invalid', `the file is not a valid zip archive: ${reason}`);
}

/** A name yazl accepts as one entry at the archive's root. */
function entryName(name: string): string {
  const flat = name.replace(/[\\/]/g, '_').replace(/^[A-Za-z]:/, (d) => d.replace(':', '_'));
  return flat === '.' || flat === '..' || flat === '' ? '_' : flat;
}

function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; used.has(candidate); n++) candidate = `${stem} (${n})${ext}`;
  used.add(candidate);
  return candidate;
}
