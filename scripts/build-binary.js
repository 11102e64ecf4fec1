// `npm run build:binary`: dist-bin/store (store.exe on Windows), a single executable for this
// platform made with Node's Single Executable Applications from the pinned Node 24: it runs
// where no Node is installed. Steps, as Node 24's documentation gives them:
// 1. one CommonJS file (the SEA main script must be CommonJS; it can require() built-ins only,
//    so everything else is bundled in, with no chunks to import);
// 2. `node --experimental-sea-config` turns it into a blob, with V8's code cache (useCodeCache)
//    so that start-up skips compiling it;
// 3. a copy of the very node binary that made the blob gets the blob injected by postject
//    (Node 24 has no --build-sea yet; that came in Node 25.5).
// A binary is for the platform and architecture it was built on: build it on each target.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postject from 'postject';
import { bundle } from './bundle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist-bin');
const work = join(outdir, 'build');
const executable = join(outdir, process.platform === 'win32' ? 'store.exe' : 'store');
const mac = process.platform === 'darwin';

rmSync(outdir, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

const main = join(work, 'main.cjs');
await bundle(
  [
    {
      stdin: {
        // --version before the program is even evaluated, as bin/store.js does it (should
        // stdout refuse it, the program runs and says why).
        contents: `import { version } from './version.js';
const argv = process.argv.slice(2);
let wrote = false;
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  try {
    wrote = process.getBuiltinModule('node:fs').writeSync(1, version() + '\\n') > 0;
  } catch {}
}
if (!wrote) void import('./main.js').then((program) => program.cli());
`,
        resolveDir: join(root, 'src'),
        sourcefile: 'sea-entry.ts',
        loader: 'ts',
      },
      outfile: main,
      format: 'cjs',
      // The program is in this one file: import() of it becomes a call, not a file to load.
      supported: { 'dynamic-import': false },
      target: `node${process.versions.node}`,
    },
  ],
  join(outdir, 'THIRD_PARTY_NOTICES'),
);
copyFileSync(join(root, 'LICENSE'), join(outdir, 'LICENSE'));

const blob = join(work, 'sea-prep.blob');
const config = join(work, 'sea-config.json');
writeFileSync(
  config,
  JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }),
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
