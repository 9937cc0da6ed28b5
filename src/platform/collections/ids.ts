import { randomBytes } from 'node:crypto';

const processUnique = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * A new document id: 24 hex digits laid out like a MongoDB ObjectId (4 bytes of seconds, 5 bytes
 * unique to the process, a 3-byte counter), so ids sort roughly by creation time.
 */
export function newDocumentId(now: number = Date.now()): string {
  counter = (counter + 1) & 0xffffff;
  const seconds = Math.floor(now / 1000) >>> 0;
  return seconds.toString(16).padStart(8, '0') + processUnique + counter.toString(16).padStart(6, '0');
}
