// `npm run build`: src/ bundled by esbuild into dist/, one entry (main.js) and chunks for
// what is imported lazily (the HTTP client, the sandbox, conf…), so that a command loads only
// what it uses and Node parses one file instead of hundreds. Type checking is `tsc` (npm run
// typecheck), which esbuild does not do.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { defines } from './defines.js';

const outdir = new URL('../dist/', import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });

await build({
  entryPoints: [new URL('../src/main.ts', import.meta.url).pathname],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.19',
  define: defines(),
  // Some dependencies are CommonJS and call require(): give each chunk one.
  banner: {
    js: "import { createRequire as __storeCreateRequire } from 'node:module'; const require = __storeCreateRequire(import.meta.url);",
  },
  // Smaller files parse faster; names are kept so that --debug stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});
