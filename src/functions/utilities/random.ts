/** Randomness: get_random, get_random_gaussian, uuid — all drawn from the context (injectable). */
import { javaMathRound } from '../../jdk/index.js';
import { strongRandomBytes, type ExecutionContext } from '../context.js';
import { FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';

/**
 * Java's `Math.round(x * 1e6) / 1e6`: halves toward +infinity, NaN to 0, and the long result
 * saturating at Long.MIN_VALUE / Long.MAX_VALUE (so 1e13 gives 9.223372036854775E12).
 */
export function roundTo6Decimals(x: number): number {
  return javaMathRound(x * 1e6) / 1e6;
}

/** A standard normal deviate from the context's uniform source (Marsaglia's polar method, as java.util.Random). */
export function gaussian(ctx: ExecutionContext): number {
  // A draw is rejected with probability 1 - π/4; 1000 rejections in a row mean a broken source.
  for (let attempt = 0; attempt < 1000; attempt++) {
    const v1 = 2 * ctx.random() - 1;
    const v2 = 2 * ctx.random() - 1;
    const s = v1 * v1 + v2 * v2;
    if (s < 1 && s !== 0) return v1 * Math.sqrt((-2 * Math.log(s)) / s);
  }
  throw new FunctionError('get_random_gaussian', 'the random source gives no usable values');
}

/** RFC 4122 version 4 from 16 strong random bytes. */
export function uuidV4(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.subarray(0, 16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const randomFunctions: FunctionSpec[] = [
  defineFunction({
    name: 'get_random',
    group: 'Utilities',
    rights: 'none',
    doc: 'A number drawn uniformly from [0, 1), rounded to 6 decimals (Java: Math.round(x * 1e6) / 1e6).',
    returns: 'number',
    flags: { webInterface: true },
    forms: [{ params: [], impl: (ctx) => roundTo6Decimals(ctx.random()) }],
  }),
  defineFunction({
    name: 'get_random_gaussian',
    group: 'Utilities',
    rights: 'none',
    doc: 'A number drawn from the normal distribution of mean `average` and standard deviation `stdv` (both may be given as text), rounded to 6 decimals.',
    returns: 'number',
    flags: { webInterface: true },
    forms: [
      {
        params: [
          { name: 'average', type: 'number' },
          { name: 'stdv', type: 'number' },
        ],
        impl(ctx, args) {
          const [average, stdv] = args;
          return roundTo6Decimals(average + stdv * gaussian(ctx));
        },
      },
    ],
  }),
  defineFunction({
    name: 'uuid',
    group: 'Utilities',
    rights: 'none',
    doc: 'A random (version 4) UUID in lower case, e.g. 3f2b8c1e-9a4d-4e7f-8b21-5c6d7e8f9a0b.',
    returns: 'string',
    forms: [{ params: [], impl: (ctx) => uuidV4(strongRandomBytes(ctx, 16)) }],
  }),
];
