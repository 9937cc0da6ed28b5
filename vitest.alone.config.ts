import { defineConfig } from 'vitest/config';
import { ALONE } from './test/alone.js';

// The files that measure time or latency (test/alone.ts), the load tests among them: they run
// after the main suite, one file at a time, with the machine to themselves.
export default defineConfig({
  test: {
    include: [...ALONE],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // never the developer's ./data or DATABASE_URL (test/support/isolated-store.ts)
    globalSetup: ['test/support/isolated-store.ts'],
    setupFiles: ['test/support/file-store.ts'],
    fileParallelism: false,
  },
});
