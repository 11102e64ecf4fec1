// `npm run build:binary`: dist-bin/store (store.exe on Windows), a single executable for this
// platform made with Node's Single Executable Applications from the pinned Node 24: it runs
// where no Node is installed. It runs the very program of dist/ (npm run build, before this)
// as bin/store.js runs it, with code caches made after a run: the program's files are assets of
// the binary, and bin/store.js, bundled as CommonJS with STORE_SEA defined, is its main script
// (a binary whose main script was the whole program, with the code cache Node makes before it
// runs, was slower: docs/performance.md). Steps, as
// Node 24's documentation gives them:
// 1. the main script, one CommonJS file that requires built-ins only;
// 2. `node --experimental-sea-config` turns it into a blob, with the assets;
// 3. a copy of the very node binary that made the blob gets the blob injected by postject
//    (Node 24 has no --build-sea yet; that came in Node 25.5).
// A binary is for the platform and architecture it was built on: build it on each target.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import postject from 'postject';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const outdir = join(root, 'dist-bin');
const work = join(outdir, 'build');
const executable = join(outdir, process.platform === 'win32' ? 'store.exe' : 'store');
const mac = process.platform === 'darwin';

if (!existsSync(join(dist, 'store.cjs'))) {
  console.error('dist/store.cjs is missing: run `npm run build` first');
  process.exit(1);
}
rmSync(outdir, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

// The program's files, as bin/store.js names them (not their source maps).
const names = readdirSync(dist)
  .filter((name) => name.endsWith('.cjs') || name.endsWith('.wasm'))
  .sort();
const assets = Object.fromEntries(names.map((name) => [name, join(dist, name)]));
// What names the binary's code caches beside the build id: the same for every copy of this
// binary (its own time would differ between copies, which would replace each other's caches).
const hash = createHash('sha256');
for (const name of names) hash.update(`${name}\0`).update(readFileSync(assets[name]));
const assetsHash = hash.digest('hex').slice(0, 12);

const main = join(work, 'main.cjs');
await build({
  entryPoints: [join(root, 'bin', 'store.js')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: `node${process.versions.node}`,
  define: { STORE_SEA: JSON.stringify(assetsHash) },
  outfile: main,
  logLevel: 'warning',
});
copyFileSync(join(root, 'LICENSE'), join(outdir, 'LICENSE'));
copyFileSync(join(dist, 'THIRD_PARTY_NOTICES'), join(outdir, 'THIRD_PARTY_NOTICES'));

const blob = join(work, 'sea-prep.blob');
const config = join(work, 'sea-config.json');
writeFileSync(
  config,
  JSON.stringify({
    main,
    output: blob,
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets,
  }),
);
execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: 'inherit' });

copyFileSync(process.execPath, executable);
chmodSync(executable, 0o755);
// macOS refuses a binary whose signature no longer matches: drop it, inject, sign ad hoc.
if (mac) execFileSync('codesign', ['--remove-signature', executable], { stdio: 'inherit' });
await postject.inject(executable, 'NODE_SEA_BLOB', readFileSync(blob), {
  sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  machoSegmentName: mac ? 'NODE_SEA' : undefined,
});
if (mac) execFileSync('codesign', ['--sign', '-', executable], { stdio: 'inherit' });
rmSync(work, { recursive: true, force: true });
console.log(
  `wrote ${executable} (Node ${process.versions.node}, ${process.platform}-${process.arch})`,
);
