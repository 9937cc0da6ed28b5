/**
 * mingo, required on first use (a filter that SQL cannot take, a pipeline, an update) rather than
 * imported: its ~300 modules stay out of the processes that never evaluate one (`flowmark render`,
 * `flowmark version`; bench/cli.bench.ts). Every collection module takes mingo from here, so they
 * share one copy of it (mingo's Context is checked with instanceof).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface Mingo {
  core: typeof import('mingo/core');
  query: typeof import('mingo/query');
  aggregator: typeof import('mingo/aggregator');
  updater: typeof import('mingo/updater');
  operators: {
    accumulator: typeof import('mingo/operators/accumulator');
    expression: typeof import('mingo/operators/expression');
    pipeline: typeof import('mingo/operators/pipeline');
    projection: typeof import('mingo/operators/projection');
    query: typeof import('mingo/operators/query');
    window: typeof import('mingo/operators/window');
  };
}

let loaded: Mingo | undefined;

export function mingo(): Mingo {
  return (loaded ??= {
    core: require('mingo/core'),
    query: require('mingo/query'),
    aggregator: require('mingo/aggregator'),
    updater: require('mingo/updater'),
    operators: {
      accumulator: require('mingo/operators/accumulator'),
      expression: require('mingo/operators/expression'),
      pipeline: require('mingo/operators/pipeline'),
      projection: require('mingo/operators/projection'),
      query: require('mingo/operators/query'),
      window: require('mingo/operators/window'),
    },
  });
}
