/**
 * Test files that measure time or latency against the machine's clock (a deadline + 1 s, /health
 * under a hostile mix, one account's calls beside another's, a limit that must come before the
 * CPU-time limit): `npm test` runs them after the suite, one file at a time, with the machine to
 * themselves (vitest.alone.config.ts), so files running side by side in the suite do not stretch
 * what they measure. The load tests (test/load/) run there too.
 */
export const ALONE: readonly string[] = [
  'test/load/**/*.test.ts',
  'test/security/python-server.test.ts',
  'test/security/fairness.test.ts',
  'test/security/contention.test.ts',
  'test/isolation/serve-pool.test.ts',
  'test/isolation/pool.test.ts',
  'test/isolation/account-share.test.ts',
  'test/script/server.test.ts',
];
