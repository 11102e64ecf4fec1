// `npm run build:binary`: dist-bin/store (store.exe on Windows), a single executable for this
// platform made from the pinned Node 24 (scripts/sea.js): it runs where no Node is installed.
// It runs the very program of dist/ (npm run build, before this) as bin/store.js runs it, with
// code caches made after a run: the program's files are assets of the binary, and bin/store.js,
// bundled as CommonJS with STORE_SEA defined, is its main script (a binary whose main script was
// the whole program, with the code cache Node makes before it runs, was slower:
// docs/performance.md). A binary is for the platform and architecture
// it was built on; `npm run release` makes those of the release from the registry's Node.
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCodeCaches } from './binary-caches.js';
import { injectBlob, seaBlob } from './sea.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const outdir = join(root, 'dist-bin');
const work = join(outdir, 'build');
const executable = join(outdir, process.platform === 'win32' ? 'store.exe' : 'store');

if (!existsSync(join(dist, 'store.cjs'))) {
  console.error('dist/store.cjs is missing: run `npm run build` first');
  process.exit(1);
}
rmSync(outdir, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

// `--snapshot`: the program in a V8 start-up snapshot (scripts/sea-snapshot.cjs), for
// comparison: slower than code caches (docs/performance.md, "The single executable").
const snapshot = process.argv.includes('--snapshot');

/** The binary of `blob`, at `executable`. */
async function binaryOf(blob) {
  copyFileSync(process.execPath, executable);
  chmodSync(executable, 0o755);
  await injectBlob(executable, blob, process.platform);
}

await binaryOf(await seaBlob(dist, work, { codeCache: true, snapshot }));
if (!snapshot) {
  // Made by this binary, then carried by the same binary rebuilt (scripts/binary-caches.js).
  const extra = await makeCodeCaches(executable, join(work, 'caches'));
  await binaryOf(await seaBlob(dist, work, { codeCache: true, extra }));
}
copyFileSync(join(root, 'LICENSE'), join(outdir, 'LICENSE'));
copyFileSync(join(dist, 'THIRD_PARTY_NOTICES'), join(outdir, 'THIRD_PARTY_NOTICES'));
rmSync(work, { recursive: true, force: true });
console.log(
  `wrote ${executable} (Node ${process.versions.node}, ${process.platform}-${process.arch})`,
);
