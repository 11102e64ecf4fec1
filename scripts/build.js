// `npm run build`: src/ bundled by esbuild into dist/, one entry (main.js) and chunks for
// what is imported lazily (the HTTP client, the sandbox, conf…), so that a command loads only
// what it uses and Node parses one file instead of hundreds. Type checking is `tsc` (npm run
// typecheck), which esbuild does not do. dist/THIRD_PARTY_NOTICES holds the licences of the
// bundled packages.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './bundle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist');
rmSync(outdir, { recursive: true, force: true });

await bundle(
  {
    entryPoints: [join(root, 'src/main.ts')],
    outdir,
    splitting: true,
    format: 'esm',
    target: 'node22.19',
    // Some dependencies are CommonJS and call require(): give each chunk one.
    banner: {
      // Through process.getBuiltinModule: an ES import of a built-in builds its namespace.
      js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);",
    },
    // Source maps beside the bundle (only a comment in it): read by Node only under --debug
    // or STORE_DEBUG (bin/store.js), so that an internal error's stack trace points into src/.
    sourcemap: 'linked',
    // Paths and lines are enough for a stack trace; the sources themselves are in src/.
    sourcesContent: false,
  },
  join(outdir, 'THIRD_PARTY_NOTICES'),
);
