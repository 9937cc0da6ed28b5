import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The storage suites open real databases; keep files isolated in their own processes.
    pool: 'forks',
  },
});
