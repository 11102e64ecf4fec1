// A single executable of dist/'s program with Node's Single Executable Applications, the steps
// Node 24's documentation gives: bin/store.js bundled as the main script (one CommonJS file that
// requires built-ins only), `node --experimental-sea-config` turns it and dist/'s files into a
// blob, and postject injects the blob into a copy of a node binary of the same version (Node 24
// has no --build-sea yet; that came in Node 25.5). Used by scripts/build-binary.js (this
// machine's binary) and scripts/release.js (one per platform, from the registry's Node).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import postject from 'postject';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Writes the blob of dist/'s program into `work` and returns its path. `codeCache`: V8's code
 * cache of the main script, which only a node of this machine's platform and CPU can use.
 * `snapshot`: the program in a V8 start-up snapshot instead (scripts/sea-snapshot.cjs), which
 * only a node of the target's platform and architecture can make: this machine's. `extra`:
 * more assets, name to path (the code caches build-binary.js makes). */
export async function seaBlob(dist, work, { codeCache, snapshot = false, extra = {} }) {
  if (snapshot) return snapshotBlob(dist, work);
  // The program's files, as bin/store.js names them (not their source maps).
  const names = readdirSync(dist)
    .filter((name) => name.endsWith('.cjs') || name.endsWith('.wasm'))
    .sort();
  // What names the binary's code caches beside the build id: the same for every copy of this
  // binary (its own time would differ between copies, which would replace each other's caches).
  const hash = createHash('sha256');
  for (const name of names) hash.update(`${name}\0`).update(readFileSync(join(dist, name)));
  const assetsHash = hash.digest('hex').slice(0, 12);

  await build({
    absWorkingDir: root,
    entryPoints: ['bin/store.js'],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node}`,
    define: { STORE_SEA: JSON.stringify(assetsHash) },
    outfile: join(work, 'main.cjs'),
    logLevel: 'warning',
  });
  // Paths relative to `work`, where node runs: the blob keeps the main script's path as given,
  // and an absolute one would put this machine's folders into the binary.
  const assets = {
    ...Object.fromEntries(names.map((name) => [name, join(dist, name)])),
    ...extra,
  };
  return writeBlob(work, { useCodeCache: codeCache, assets });
}

/** The blob of a binary whose main script is `source` alone (CommonJS requiring built-ins
 * only), with its code cache: the bench's single executable of the `node:http` one-liner. */
export function scriptBlob(source, work) {
  writeFileSync(join(work, 'main.cjs'), source);
  return writeBlob(work, { useCodeCache: true });
}

/** Node's SEA config for `work/main.cjs` with `settings`, turned into `work/sea-prep.blob`. */
function writeBlob(work, settings) {
  const config = {
    main: 'main.cjs',
    output: 'sea-prep.blob',
    disableExperimentalSEAWarning: true,
    ...settings,
  };
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config));
  execFileSync(process.execPath, ['--experimental-sea-config', 'sea-config.json'], {
    cwd: work,
    stdio: 'pipe',
  });
  return join(work, 'sea-prep.blob');
}

/** Injects `blob` into `executable`, a copy of a node binary for `platform`. */
export async function injectBlob(executable, blob, platform) {
  const mac = platform === 'darwin';
  // macOS refuses a binary whose signature no longer matches: drop it, inject, sign ad hoc.
  if (mac) execFileSync('codesign', ['--remove-signature', executable], { stdio: 'inherit' });
  // postject's LIEF warns through console.warn of each section name of a stripped binary it
  // cannot find (dozens of lines, harmless): kept out, so that its other messages show.
  const warn = console.warn;
  console.warn = (...args) => {
    if (!/^warning: Can't find string offset for section name/.test(String(args[0]))) {
      warn(...args);
    }
  };
  try {
    await postject.inject(executable, 'NODE_SEA_BLOB', readFileSync(blob), {
      sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
      machoSegmentName: mac ? 'NODE_SEA' : undefined,
    });
  } finally {
    console.warn = warn;
  }
  if (mac) execFileSync('codesign', ['--sign', '-', executable], { stdio: 'inherit' });
}

/**
 * The blob of a binary that starts from a V8 start-up snapshot of the program: the main script
 * is scripts/sea-snapshot.cjs with dist/store.cjs and its side files bundled in, run once here by
 * Node's snapshot builder. Assets: llhttp's WebAssembly only (read by the first request).
 */
async function snapshotBlob(dist, work) {
  const program = join(dist, 'store.cjs');
  const header = /^\/\/ \S+ (\S+) build [0-9a-f]{16}\n/.exec(readFileSync(program, 'utf8'));
  if (!header) throw new Error(`${program} is not a build of store`);
  await build({
    absWorkingDir: root,
    entryPoints: ['scripts/sea-snapshot.cjs'],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node}`,
    define: { STORE_VERSION: JSON.stringify(header[1]) },
    // Required by the program only where a keyring can be loaded, which the binary cannot.
    external: ['@napi-rs/keyring'],
    plugins: [
      {
        name: 'store-program',
        setup(b) {
          b.onResolve({ filter: /^store-program$/ }, () => ({ path: program }));
        },
      },
    ],
    outfile: join(work, 'main.cjs'),
    logLevel: 'warning',
  });
  const assets = Object.fromEntries(
    readdirSync(dist)
      .filter((name) => name.endsWith('.wasm'))
      .sort()
      .map((name) => [name, join(dist, name)]),
  );
  return writeBlob(work, { useSnapshot: true, assets });
}
