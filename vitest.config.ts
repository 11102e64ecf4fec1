import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // nock's rules for every file: no connection off loopback, no unused or unexpected request.
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
