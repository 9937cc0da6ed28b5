/** A bundle's files as a zip archive and back: entries in path order, one fixed date, so equal files give equal bytes. */
import { errorMessage } from '../../errors/index.js';
import { PlatformError } from '../errors.js';
import { DEFAULT_FILE_LIMITS } from '../files/index.js';
import { extractZip, type ZipLimits } from '../files/zip.js';
import { badBundle, type BundleFiles } from './format.js';

/** The date every entry carries (a bundle's bytes depend only on its files). */
const ENTRY_DATE = new Date(Date.UTC(2000, 0, 1));

const LIMITS: ZipLimits = {
  ...DEFAULT_FILE_LIMITS,
  maxZipEntries: 100_000,
  maxZipUncompressedBytes: 1024 * 1024 * 1024,
};

export async function packBundle(files: BundleFiles): Promise<Buffer> {
  const { default: yazl } = await import('yazl');
  const zip = new yazl.ZipFile();
  for (const [path, text] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    zip.addBuffer(Buffer.from(text, 'utf8'), path, { mtime: ENTRY_DATE, compress: true });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** The files of a bundle archive; a damaged archive is refused naming `bundleName`. */
export async function unpackBundle(archive: Buffer, bundleName: string): Promise<BundleFiles> {
  let entries;
  try {
    entries = await extractZip(archive, LIMITS);
  } catch (e) {
    if (e instanceof PlatformError) throw badBundle(bundleName, `damaged bundle: ${e.message}`);
    throw badBundle(bundleName, `damaged bundle: ${errorMessage(e)}`);
  }
  const files: BundleFiles = new Map();
  for (const entry of entries) files.set(entry.name, entry.content.toString('utf8'));
  return files;
}
