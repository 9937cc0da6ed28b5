import { defineConfig } from 'vitest/config';

// The load tests (test/load/): each starts a real server and measures latencies under load, so
// they run after the main suite, one file at a time, with the machine to themselves.
export default defineConfig({
  test: {
    include: ['test/load/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // never the developer's ./data or DATABASE_URL (test/support/isolated-store.ts)
    globalSetup: ['test/support/isolated-store.ts'],
    fileParallelism: false,
  },
});
