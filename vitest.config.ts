import { defineConfig } from 'vitest/config';

// Test files at once: vitest's default (one less than the cores; one on a 2-core machine, where
// two side by side stretched the timing tests past their bounds), or FLOWMARK_TEST_FORKS.
const forks = Number(process.env.FLOWMARK_TEST_FORKS) || undefined;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the load tests run alone, after this suite (vitest.load.config.ts)
    exclude: ['test/load/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The storage suites open real databases; keep files isolated in their own processes.
    pool: 'forks',
    ...(forks ? { poolOptions: { forks: { maxForks: forks, minForks: 1 } } } : {}),
    // never the developer's ./data or DATABASE_URL (test/support/isolated-store.ts)
    globalSetup: ['test/support/isolated-store.ts'],
    // …and each file a store of its own inside it, so files may run side by side
    setupFiles: ['test/support/file-store.ts'],
  },
});
