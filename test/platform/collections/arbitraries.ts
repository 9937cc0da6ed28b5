/**
 * Random documents and queries for the property tests (property.test.ts through the service,
 * property-functions.test.ts through the library functions): both compare with plain mingo.
 */
import fc from 'fast-check';
import type { SortSpec } from '../../../src/platform/collections/index.js';

const PATHS = ['a', 'a', 'a', 'b', 'b', 'c.d', 'c.e', 'c', '_id', 'zz'];

// Small pools, so that the collisions SQL must avoid (true vs 1, an object's JSON text vs a
// string, UTF-16 vs code-point order, null vs missing) occur often.
const str = fc.constantFrom('', 'a', 'b', 'B', 'é', '\uE000', '😀', 'a😀', 'd1', '{"d":1}');
const num = fc.oneof(
  fc.constantFrom(0, 1, 2, -1, 1.5),
  fc.double({ min: -4, max: 4, noNaN: true, noDefaultInfinity: true }),
);
const scalar = fc.oneof(fc.constant(null), num, str, fc.boolean());
const object = fc.oneof(
  fc.constantFrom({ d: 1 }, { d: 'a' }, {}),
  fc.record({ d: scalar, e: scalar }, { requiredKeys: [] }),
);
const array = fc.oneof(fc.constantFrom([1], [], ['a', 2], [null]), fc.array(scalar, { maxLength: 3 }));
const mixedValue = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: array },
  { weight: 2, arbitrary: object },
);
const scalarValue = fc.oneof({ weight: 6, arbitrary: scalar }, { weight: 1, arbitrary: object });
/** Three flavours: arrays anywhere (little pushdown), objects but no arrays, scalars only (sorts pushed too). */
const mixedDoc = fc.record({ a: mixedValue, b: mixedValue, c: mixedValue }, { requiredKeys: [] });
const scalarDoc = fc.record({ a: scalarValue, b: scalarValue, c: scalarValue }, { requiredKeys: [] });
const flatDoc = fc.record({ a: scalar, b: scalar, c: object }, { requiredKeys: [] });
const path = fc.constantFrom(...PATHS);

/** Conditions SQL can take (equality, ranges, $in, $exists): weighted up so whole filters get pushed. */
const pushable: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.tuple(path, scalar).map(([p, v]) => ({ [p]: v })),
  fc
    .tuple(path, fc.constantFrom('$eq', '$gt', '$gte', '$lt', '$lte'), scalar)
    .map(([p, op, v]) => ({ [p]: { [op]: v } })),
  fc.tuple(path, num, num).map(([p, lo, hi]) => ({ [p]: { $gte: Math.min(lo, hi), $lt: Math.max(lo, hi) } })),
  fc
    .tuple(path, str, str)
    .map(([p, lo, hi]) => ({ [p]: { $gt: lo < hi ? lo : hi, $lte: lo < hi ? hi : lo } })),
  fc.tuple(path, fc.array(scalar, { maxLength: 3 })).map(([p, v]) => ({ [p]: { $in: v } })),
  // Several bounds on one path (merged into one interval by the pushdown).
  fc
    .tuple(
      path,
      fc.array(fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte'), fc.oneof(num, str)), {
        minLength: 2,
        maxLength: 4,
      }),
    )
    .map(([p, conds]) => ({ $and: conds.map(([op, v]) => ({ [p]: { [op]: v } })) })),
  fc.tuple(path, fc.boolean()).map(([p, v]) => ({ [p]: { $exists: v } })),
);
/** Conditions only mingo answers. */
const residual: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.tuple(path, scalar).map(([p, v]) => ({ [p]: { $ne: v } })),
  fc.tuple(path, fc.array(scalar, { maxLength: 3 })).map(([p, v]) => ({ [p]: { $nin: v } })),
  fc
    .tuple(path, fc.constantFrom('string', 'number', 'bool', 'null', 'array', 'object'))
    .map(([p, t]) => ({ [p]: { $type: t } })),
  fc.tuple(path, num).map(([p, v]) => ({ [p]: { $not: { $gt: v } } })),
  fc.tuple(path, num).map(([p, v]) => ({ [p]: { $elemMatch: { $lt: v } } })),
);
const leaf = fc.oneof({ weight: 3, arbitrary: pushable }, { weight: 1, arbitrary: residual });
const filter: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ f: Record<string, unknown> }>((tie) => ({
  f: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(leaf, leaf).map(([x, y]) => ({ ...x, ...y })),
    fc.array(tie('f'), { minLength: 1, maxLength: 3 }).map((fs) => ({ $and: fs })),
    fc.array(leaf, { minLength: 1, maxLength: 2 }).map((fs) => ({ $or: fs })),
  ),
})).f;
export const sort: fc.Arbitrary<SortSpec> = fc
  .uniqueArray(fc.constantFrom('a', 'a', 'b', 'c.d', 'c', '_id'), { maxLength: 2 })
  .chain((ps) => fc.tuple(...ps.map((p) => fc.constantFrom<[string, 1 | -1]>([p, 1], [p, -1]))))
  .map((entries) => entries as SortSpec);

export const scenario = fc.record({
  docs: fc.oneof(
    { weight: 1, arbitrary: fc.array(mixedDoc, { maxLength: 25 }) },
    { weight: 1, arbitrary: fc.array(scalarDoc, { maxLength: 25 }) },
    { weight: 2, arbitrary: fc.array(flatDoc, { maxLength: 25 }) },
  ),
  indexes: fc.subarray(['a', 'c.d', 'b']),
  queries: fc.array(
    fc.record({
      filter,
      sort,
      skip: fc.integer({ min: 0, max: 4 }),
      limit: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
      tail: fc.constantFrom<Array<Record<string, unknown>>>(
        [],
        [{ $project: { a: 1 } }],
        [{ $group: { _id: '$b', n: { $sum: 1 } } }],
      ),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

/** A sort as the object mingo and $sort take. */
export const toObject = (s: SortSpec) => Object.fromEntries(s) as Record<string, 1 | -1>;
