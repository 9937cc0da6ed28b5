/**
 * Property: list (find), count and aggregate answer exactly what plain mingo answers over the
 * same documents — whatever part of the query was pushed down to SQL — on every engine.
 */
import fc from 'fast-check';
import { aggregate as mingoAggregate, find as mingoFind } from 'mingo';
import { expect, it } from 'vitest';
import { CollectionService } from '../../../src/platform/collections/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { scenario, toObject } from './arbitraries.js';

const actor = { accountId: 'prop', user: { id: 1, login: 'tester', isAdmin: true } };

describeEachEngine('collections agree with mingo', (engine) => {
  let run = 0;
  it('for list, count and aggregate over random documents and queries', async () => {
    const service = new CollectionService(engine.store);
    await fc.assert(
      fc.asyncProperty(scenario, async ({ docs, indexes, queries }) => {
        const name = `p${run++}`;
        const stored = await service.save(
          actor,
          name,
          (docs as Array<Record<string, unknown>>).map((d, i) => ({ _id: `d${i}`, ...d })),
        );
        for (const key of indexes)
          await service.createIndex(actor, name, `ix_${key}`, {
            keys: [key],
            unique: false,
            ascending: true,
          });
        const plain = JSON.parse(JSON.stringify(stored)) as Record<string, unknown>[];
        for (const q of queries) {
          let cursor = mingoFind(plain, q.filter);
          if (q.sort.length) cursor = cursor.sort(toObject(q.sort));
          cursor = cursor.skip(q.skip);
          if (q.limit !== undefined) cursor = cursor.limit(q.limit);
          const expected = cursor.all();
          const listed = await service.find(actor, name, q.filter, {
            sort: q.sort,
            skip: q.skip,
            limit: q.limit,
          });
          expect(listed).toEqual(expected);

          expect(await service.count(actor, name, q.filter)).toBe(mingoFind(plain, q.filter).all().length);

          const pipeline: Array<Record<string, unknown>> = [{ $match: q.filter }];
          if (q.sort.length) pipeline.push({ $sort: toObject(q.sort) });
          if (q.skip) pipeline.push({ $skip: q.skip });
          if (q.limit !== undefined) pipeline.push({ $limit: q.limit });
          pipeline.push(...q.tail);
          expect(await service.aggregate(actor, name, pipeline)).toEqual(mingoAggregate(plain, pipeline));
        }
        await service.removeCollection(actor, name);
      }),
      { numRuns: Number(process.env.FLOWMARK_PROPERTY_RUNS ?? 100) },
    );
  }, 120_000);
});
