import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // nock's rules for every file: no connection off loopback, no unused or unexpected request.
    setupFiles: ['test/setup.ts'],
    // One worker per core runs file after file without a fresh module graph each time (no
    // helper keeps hooks or state across files: see test/helpers/cleanup.ts and test/setup.ts).
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
