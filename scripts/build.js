// `npm run build`: src/ bundled by esbuild into dist/, one entry (main.js) and chunks for
// what is imported lazily (the HTTP client, the sandbox, conf…), so that a command loads only
// what it uses and Node parses one file instead of hundreds. Type checking is `tsc` (npm run
// typecheck), which esbuild does not do. dist/THIRD_PARTY_NOTICES holds the licences of the
// bundled packages.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { defines } from './defines.js';
import { writeNotices } from './notices.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist');
rmSync(outdir, { recursive: true, force: true });

const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: [join(root, 'src/main.ts')],
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
  // The few licence comments in the code (e.g. code undici took from ws) stay with it.
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});

const { name } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
writeNotices(metafile, root, join(outdir, 'THIRD_PARTY_NOTICES'), name);
