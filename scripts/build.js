// `npm run build`: src/ bundled by esbuild into dist/: store.cjs, the whole program, and
// table.cjs, the terminal table and chalk, which only a table needs. bin/store.js runs them
// through vm.Script with V8 code caches made after a run (see there why), so they are
// CommonJS files: vm runs scripts, not ES modules. What the program imports lazily (the
// HTTP client, the sandbox, conf…) is in store.cjs but runs only when imported. Type
// checking is `tsc` (npm run typecheck), which esbuild does not do. dist/THIRD_PARTY_NOTICES
// holds the licences of the bundled packages.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './bundle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist');
rmSync(outdir, { recursive: true, force: true });

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// The first line of store.cjs, read by bin/store.js for --version and to name code caches;
// the id is filled in below, once the output is known (same length: lines do not move).
const PLACEHOLDER = '0'.repeat(16);
const header = `// ${pkg.name} ${pkg.version} build ${PLACEHOLDER}`;

/** output.ts imports the table lazily: in store.cjs that becomes require('./table.cjs'). */
const tableOutside = {
  name: 'table-outside',
  setup(build) {
    build.onResolve({ filter: /^\.\/table\.js$/ }, (args) =>
      /[\\/]src[\\/]render[\\/]output\.ts$/.test(args.importer)
        ? { path: './table.cjs', external: true }
        : undefined,
    );
  },
};

const shared = {
  format: 'cjs',
  target: 'node22.19',
  // In CommonJS, import() of table.cjs becomes require(): vm.Script has no module loader.
  supported: { 'dynamic-import': false },
  // Source maps beside the bundle (only a comment in it): read by Node only under --debug
  // or STORE_DEBUG (bin/store.js), so that an internal error's stack trace points into src/.
  sourcemap: 'linked',
  // Paths and lines are enough for a stack trace; the sources themselves are in src/.
  sourcesContent: false,
};
const program = join(outdir, 'store.cjs');
const table = join(outdir, 'table.cjs');
await bundle(
  [
    {
      ...shared,
      entryPoints: [join(root, 'src/main.ts')],
      outfile: program,
      banner: { js: header },
      plugins: [tableOutside],
    },
    { ...shared, entryPoints: [join(root, 'src/render/table.ts')], outfile: table },
  ],
  join(outdir, 'THIRD_PARTY_NOTICES'),
);

// The build id: a hash of both files, so that a code cache is never used with other code.
const text = readFileSync(program, 'utf8');
const build = createHash('sha256')
  .update(text)
  .update(readFileSync(table))
  .digest('hex')
  .slice(0, PLACEHOLDER.length);
writeFileSync(program, text.replace(header, header.replace(PLACEHOLDER, build)));
