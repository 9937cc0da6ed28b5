import { defineConfig } from 'vitest/config';

// Test files at once: vitest's default (one less than the cores; one on a 2-core machine, where
// two side by side stretched the timing tests past their bounds), or FLOWMARK_TEST_FORKS.
const forks = Number(process.env.FLOWMARK_TEST_FORKS) || undefined;
// FLOWMARK_TEST_ISOLATE=0: the files of a fork share its process and modules (src/ evaluated once,
// not once per file; test/support/file-store.ts gives each file its environment back). On 31
// files (store, server, template, hosts) it cut collect from 118 s to 18 s and the wall time from
// 401 s to 148 s, every test passing; not the default until the whole suite has passed with it.
const isolate = process.env.FLOWMARK_TEST_ISOLATE !== '0';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the load tests run alone, after this suite (vitest.load.config.ts)
    exclude: ['test/load/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The storage suites open real databases; keep files isolated in their own processes.
    pool: 'forks',
    poolOptions: { forks: { isolate, ...(forks ? { maxForks: forks, minForks: 1 } : {}) } },
    // never the developer's ./data or DATABASE_URL (test/support/isolated-store.ts)
    globalSetup: ['test/support/isolated-store.ts'],
    // …and each file a store of its own inside it, so files may run side by side
    setupFiles: ['test/support/file-store.ts'],
  },
});
