/**
 * Hand-made ZIP archives for the limit tests: any declared sizes (honest or lying), encrypted
 * flags, and a zip bomb (a deflate stream of zeros made of one compressed MiB repeated, so a
 * gigabyte costs a millisecond and a megabyte to build).
 */
import { constants, deflateRawSync } from 'node:zlib';

export interface RawEntry {
  name: string;
  /** The entry's data as stored: deflated (method 8) or plain (method 0). */
  data: Buffer;
  method?: 0 | 8;
  /** What the headers declare (default: the truth for stored data, else required). */
  uncompressedSize: number;
  crc32?: number;
  encrypted?: boolean;
}

export function handmadeZip(entries: readonly RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const flags = (e.encrypted ? 0x1 : 0) | 0x800;
    const method = e.method ?? 8;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(e.crc32 ?? 0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.uncompressedSize, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(e.crc32 ?? 0, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.uncompressedSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

const MIB = 1024 * 1024;

/** A raw deflate stream inflating to `mebibytes` MiB of zeros (about 1 KB per MiB). */
export function zeroStream(mebibytes: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(MIB), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const last = deflateRawSync(Buffer.alloc(0));
  return Buffer.concat([...Array.from({ length: mebibytes }, () => block), last]);
}

/** A zip bomb: one entry of `mebibytes` MiB of zeros, declaring `declared` bytes (default: the truth). */
export function zipBomb(mebibytes: number, declared = mebibytes * MIB): Buffer {
  return handmadeZip([{ name: 'bomb.bin', data: zeroStream(mebibytes), uncompressedSize: declared }]);
}

export function deflated(text: string | Buffer): Buffer {
  return deflateRawSync(typeof text === 'string' ? Buffer.from(text) : text);
}
