// `npm run build`: src/ bundled by esbuild into dist/: store.cjs, the program, the
// side files below (SIDE_FILES), and llhttp's WebAssembly builds (llhttp_simd.wasm,
// llhttp.wasm: undici's HTTP/1 parser, read when undici answers its first request). bin/store.js runs them
// through vm.Script with V8 code caches made after a run (see there why), so they are
// CommonJS files: vm runs scripts, not ES modules. What the program imports lazily (the
// HTTP client, the sandbox, conf…) is in store.cjs but runs only when imported. Type
// checking is `tsc` (npm run typecheck), which esbuild does not do. dist/THIRD_PARTY_NOTICES
// holds the licences of the bundled packages, dist/metafile.json what was bundled.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './bundle.js';
import { LLHTTP_WASM, writeLlhttpWasm } from './esbuild-plugins.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist');
rmSync(outdir, { recursive: true, force: true });

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// The first line of store.cjs, read by bin/store.js for --version and to name code caches;
// the id is filled in below, once the output is known (same length: lines do not move).
const PLACEHOLDER = '0'.repeat(16);
const header = `// ${pkg.name} ${pkg.version} build ${PLACEHOLDER}`;

/**
 * What the program imports lazily and only a few commands use, each a file of its own that
 * store.cjs requires when it is imported: the table and chalk (a table on a terminal), conf
 * (a config write), undici (a request through a proxy) and its Agent alone (the many requests
 * of a bulk add or store mcp; a command's goes by node:http), jq (--jq). Apart, they cost nothing to the other commands: a code cache of
 * store.cjs holds an entry for each function in it, run or not. Each is its own bundle: nothing in them may be shared
 * state with store.cjs (the table's helpers are pure functions, conf and undici packages).
 */
const SIDE_FILES = [
  {
    specifier: './table.js',
    importer: /[\\/]src[\\/]render[\\/]output\.ts$/,
    name: 'table',
    entry: join(root, 'src/render/table.ts'),
  },
  {
    specifier: 'conf',
    importer: /[\\/]src[\\/]config[\\/]file\.ts$/,
    name: 'conf',
    // The class itself as module.exports: `import('conf')` then finds it as its default.
    contents: "module.exports = require('conf').default;",
  },
  {
    // The Model Context Protocol SDK (with full zod) and zod's toJSONSchema: `store mcp` only.
    specifier: './sdk.js',
    importer: /[\\/]src[\\/]mcp[\\/]server\.ts$/,
    name: 'mcp',
    entry: join(root, 'src/mcp/sdk.ts'),
  },
  {
    // jq (WebAssembly, embedded in the file): for --jq only.
    specifier: './jq.js',
    importer: /[\\/]src[\\/]render[\\/]output\.ts$/,
    name: 'jq',
    entry: join(root, 'src/render/jq.ts'),
  },
  {
    specifier: 'undici',
    importer: /[\\/]src[\\/]api[\\/]undici-sender\.ts$/,
    name: 'undici',
    entry: 'undici',
  },
  {
    // undici's Agent alone, without its index (fetch, WebSocket, caches…): a bulk add's pool.
    specifier: 'undici/lib/dispatcher/agent.js',
    importer: /[\\/]src[\\/]api[\\/]undici-sender\.ts$/,
    name: 'agent',
    entry: 'undici/lib/dispatcher/agent.js',
  },
];
const sideFiles = {
  name: 'side-files',
  setup(build) {
    for (const side of SIDE_FILES) {
      const filter = new RegExp(`^${side.specifier.replace(/[./]/g, '\\$&')}$`);
      build.onResolve({ filter }, (args) =>
        side.importer.test(args.importer)
          ? { path: `./${side.name}.cjs`, external: true }
          : undefined,
      );
    }
  },
};

const shared = {
  format: 'cjs',
  // The keyring library is an optional dependency with a native binary (.node) per platform,
  // which no bundle can hold: required from node_modules by the commands that need a key
  // (src/config/key-store.ts; bin/store.js's require resolves it).
  external: ['@napi-rs/keyring'],
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
const metafile = await bundle(
  [
    {
      ...shared,
      entryPoints: [join(root, 'src/main.ts')],
      outfile: program,
      banner: { js: header },
      plugins: [sideFiles],
    },
    ...SIDE_FILES.map((side) => ({
      ...shared,
      ...(side.contents
        ? { stdin: { contents: side.contents, resolveDir: root, sourcefile: `${side.name}.cjs` } }
        : { entryPoints: [side.entry] }),
      outfile: join(outdir, `${side.name}.cjs`),
    })),
  ],
  join(outdir, 'THIRD_PARTY_NOTICES'),
);

writeLlhttpWasm(outdir);
// What esbuild bundled, for the release's SBOM (scripts/sbom.js): each input's path and size.
// Not in the npm package (package.json, files), as the source maps are not.
const inputs = Object.keys(metafile.inputs).sort();
writeFileSync(
  join(outdir, 'metafile.json'),
  `${JSON.stringify({ inputs: Object.fromEntries(inputs.map((input) => [input, { bytes: metafile.inputs[input].bytes }])) }, null, 1)}\n`,
);

// The build id: a hash of all the files, so that a code cache is never used with other code.
const text = readFileSync(program, 'utf8');
const hash = createHash('sha256').update(text);
for (const side of SIDE_FILES) hash.update(readFileSync(join(outdir, `${side.name}.cjs`)));
for (const { file } of LLHTTP_WASM) hash.update(readFileSync(join(outdir, file)));
const build = hash.digest('hex').slice(0, PLACEHOLDER.length);
writeFileSync(program, text.replace(header, header.replace(PLACEHOLDER, build)));
