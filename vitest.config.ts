import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import pkg from './package.json' with { type: 'json' };

export default defineConfig({
  // As scripts/defines.js does for the builds: src/version.ts reads no file at run time.
  define: { __STORE_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    // nock's rules for every file: no connection off loopback, no unused or unexpected request.
    setupFiles: ['test/setup.ts'],
    // A worker runs file after file in one module graph, not a fresh one per file (no
    // helper keeps hooks or state across files: see test/helpers/cleanup.ts and test/setup.ts).
    isolate: false,
    // One worker per core, not vitest's cores - 1 (a single worker on 2 cores): much of the suite
    // waits on child processes and loopback servers, and the main process is idle meanwhile.
    maxWorkers: availableParallelism(),
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
