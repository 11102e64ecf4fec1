// `npm run release`: everything a release publishes, built from this checkout into release/
// (docs/release.md says what each file is and how a release machine uses them):
// - the npm tarball (no source maps) and the source maps as an archive of their own;
// - for linux-x64 and linux-arm64, a single executable (scripts/sea.js) from the registry's
//   Node of the pinned version (node-linux-<arch>), its symbols stripped before the blob goes
//   in (after, the binary crashes), as a .tar.gz and a .deb;
// - the SBOM (scripts/sbom.js), the Homebrew formula (scripts/homebrew.js) and SHA256SUMS.
// Reproducible: the same commit gives the same bytes wherever it is built. Every time is
// SOURCE_DATE_EPOCH (default: the last commit's), archives hold sorted names, owner 0, fixed
// modes, and no path of this machine.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { homebrewFormula } from './homebrew.js';
import { makeSbom } from './sbom.js';
import { injectBlob, seaBlob } from './sea.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'release');
const dist = join(root, 'dist');
// The registry's Node packages, kept between builds (npm's cache holds them too).
const cache = join(root, 'node_modules', '.cache', 'store-release');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { version } = pkg;

// The Node of the binaries is the pinned one that runs this script: the blob is made by a
// node of the version it is injected into.
const nodeVersion = JSON.parse(
  readFileSync(join(root, 'node_modules', 'node', 'package.json'), 'utf8'),
).version;
if (process.versions.node !== nodeVersion) {
  fail(`run with the pinned Node ${nodeVersion} (npm run release), not ${process.versions.node}`);
}

const epoch =
  process.env.SOURCE_DATE_EPOCH ||
  execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: root, encoding: 'utf8' }).trim();
if (!/^\d+$/.test(epoch)) fail(`SOURCE_DATE_EPOCH is not a number of seconds: ${epoch}`);
const env = { ...process.env, SOURCE_DATE_EPOCH: epoch, LC_ALL: 'C', TZ: 'UTC' };

const TARGETS = [
  { arch: 'x64', deb: 'amd64', strip: ['x86_64-linux-gnu-strip', 'strip'] },
  { arch: 'arm64', deb: 'arm64', strip: ['aarch64-linux-gnu-strip', 'strip'] },
];
const names = {
  sourcemaps: `store_${version}_sourcemaps.tar.gz`,
  tarball: (target) => `store_${version}_linux_${target.deb}.tar.gz`,
  deb: (target) => `store_${version}_linux_${target.deb}.deb`,
  sbom: `store_${version}_sbom.cdx.json`,
  formula: 'store.rb',
};

/** Stops the release with one line (no stack: the message says what to do). */
class ReleaseError extends Error {}
function fail(message) {
  throw new ReleaseError(message);
}

function step(text) {
  console.log(`release: ${text}`);
}

function run(command, args, options = {}) {
  return execFileSync(command, args, { cwd: root, env, maxBuffer: 1 << 30, ...options });
}

/** Copies `from` (a path, or { text }) to `to`, with `mode`, making its folders 0755. */
function place(from, to, mode = 0o644) {
  makeFolders(dirname(to));
  if (typeof from === 'string') copyFileSync(from, to);
  else writeFileSync(to, from.text);
  chmodSync(to, mode);
}

function makeFolders(dir) {
  if (existsSync(dir)) return;
  makeFolders(dirname(dir));
  mkdirSync(dir);
  // Not the umask's mode: it would differ between machines.
  chmodSync(dir, 0o755);
}

/** Every path under `dir` (and `dir`) to SOURCE_DATE_EPOCH, folders after their contents. */
function settle(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) settle(path);
    else utimesSync(path, Number(epoch), Number(epoch));
  }
  utimesSync(dir, Number(epoch), Number(epoch));
}

/** A .tar.gz of `entries` (paths relative to `dir`): names sorted, owner 0, time fixed. */
function tarGz(dir, entries, file) {
  settle(dir);
  const tar = run('tar', [
    '--create',
    '--format=gnu',
    '--sort=name',
    `--mtime=@${epoch}`,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--directory',
    dir,
    '--',
    ...entries,
  ]);
  // zlib of the pinned Node: no name and no time in the header, the same bytes everywhere.
  writeFileSync(join(out, file), gzipSync(tar, { level: 9 }));
}

/** The registry's node-linux-<arch> of the pinned version, unpacked: { dir, integrity, license }. */
function registryNode(arch) {
  const name = `node-linux-${arch}`;
  const file = join(cache, `${name}-${nodeVersion}.tgz`);
  if (!existsSync(file)) {
    step(`fetching ${name}@${nodeVersion} from the npm registry`);
    mkdirSync(cache, { recursive: true });
    // npm checks the download against the registry's integrity.
    run('npm', ['pack', `${name}@${nodeVersion}`, '--pack-destination', cache, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const integrity = `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
  const dir = join(work, name);
  mkdirSync(dir);
  run('tar', ['--extract', '--gzip', '--file', file, '--directory', dir]);
  const manifest = JSON.parse(readFileSync(join(dir, 'package', 'package.json'), 'utf8'));
  if (manifest.version !== nodeVersion || manifest.cpu !== arch) {
    fail(`${file} is not ${name}@${nodeVersion}`);
  }
  return { name, dir: join(dir, 'package'), integrity, license: manifest.license };
}

/** The first of `tools` found on PATH that strips a binary of `target`'s CPU. */
function stripped(node, target, to) {
  copyFileSync(node, to);
  chmodSync(to, 0o755);
  const hostStrip = (target.arch === process.arch ? target.strip : target.strip.slice(0, -1)).find(
    (tool) => {
      try {
        run(tool, ['--version'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    },
  );
  if (!hostStrip) {
    fail(
      `no ${target.strip[0]} to strip Node for ${target.arch} (Debian: binutils-aarch64-linux-gnu)`,
    );
  }
  run(hostStrip, ['--strip-all', to]);
}

/** What both the archive and the .deb ship besides the binary, by where they go. */
function documents(node) {
  return {
    license: join(root, 'LICENSE'),
    nodeLicense: join(node.dir, 'LICENSE'),
    notices: join(dist, 'THIRD_PARTY_NOTICES'),
    man: join(root, 'man', 'store.1'),
    bash: join(root, 'completions', 'store.bash'),
    zsh: join(root, 'completions', '_store'),
    fish: join(root, 'completions', 'store.fish'),
  };
}

/** The archive, laid out as gh's: a folder named as the file, bin/ and share/ in it. */
function archive(target, binary, docs) {
  const top = names.tarball(target).replace(/\.tar\.gz$/, '');
  const stage = join(work, `archive-${target.arch}`);
  const at = (path) => join(stage, top, path);
  place(binary, at('bin/store'), 0o755);
  place(docs.license, at('LICENSE'));
  place(docs.nodeLicense, at('LICENSE.node'));
  place(docs.notices, at('THIRD_PARTY_NOTICES'));
  place(docs.man, at('share/man/man1/store.1'));
  place(docs.bash, at('share/bash-completion/completions/store'));
  place(docs.zsh, at('share/zsh/site-functions/_store'));
  place(docs.fish, at('share/fish/vendor_completions.d/store.fish'));
  tarGz(stage, [top], names.tarball(target));
}

/** The .deb, laid out as Debian's policy says (man page gzipped, docs under the package's name). */
function debian(target, binary, docs) {
  const stage = join(work, `deb-${target.arch}`);
  const at = (path) => join(stage, path);
  place(binary, at('usr/bin/store'), 0o755);
  place(
    { text: gzipSync(readFileSync(docs.man), { level: 9 }) },
    at('usr/share/man/man1/store.1.gz'),
  );
  place(docs.bash, at('usr/share/bash-completion/completions/store'));
  place(docs.zsh, at('usr/share/zsh/vendor-completions/_store'));
  place(docs.fish, at('usr/share/fish/vendor_completions.d/store.fish'));
  const doc = 'usr/share/doc/store';
  place(docs.license, at(`${doc}/LICENSE`));
  place(docs.nodeLicense, at(`${doc}/LICENSE.node`));
  place(docs.notices, at(`${doc}/THIRD_PARTY_NOTICES`));
  place(
    {
      text: `store ${version}: ${pkg.license} (LICENSE, beside this file).\nIt embeds Node.js ${nodeVersion} (LICENSE.node) and the packages named in\nTHIRD_PARTY_NOTICES, each under its own licence, given there.\n`,
    },
    at(`${doc}/copyright`),
  );
  let kib = 0;
  const count = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stats = statSync(path);
      if (stats.isDirectory()) count(path);
      else kib += Math.ceil(stats.size / 1024);
    }
  };
  count(join(stage, 'usr'));
  const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  // Node's own libraries: glibc 2.28 and libstdc++ of GCC 5 at least, as its builds need.
  const control = [
    'Package: store',
    `Version: ${version}`,
    `Architecture: ${target.deb}`,
    `Maintainer: ${pkg.name} maintainers <${repository}/issues>`,
    `Installed-Size: ${kib}`,
    'Depends: libc6 (>= 2.28), libstdc++6 (>= 5.2), libgcc-s1 | libgcc1',
    'Section: utils',
    'Priority: optional',
    `Homepage: ${repository}`,
    `Description: ${pkg.description}`,
    ' store, one executable with its own Node.js: no Node needed.',
    '',
  ].join('\n');
  place({ text: control }, at('DEBIAN/control'));
  settle(stage);
  // gzip, not xz: xz's output depends on its thread count, so on the machine's CPUs.
  run(
    'dpkg-deb',
    ['--root-owner-group', '-Zgzip', '-z9', '--build', stage, join(out, names.deb(target))],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out);
const work = mkdtempSync(join(tmpdir(), 'store-release-'));
try {
  step(`store ${version}, SOURCE_DATE_EPOCH=${epoch}`);
  run(process.execPath, ['scripts/build.js'], { stdio: 'inherit' });

  step('npm tarball');
  const packed = JSON.parse(
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], {
      encoding: 'utf8',
    }),
  );
  const npmTarball = packed[0].filename;
  if (packed[0].files.some((file) => file.path.endsWith('.map')))
    fail('source maps in the npm tarball');

  step('source maps');
  const maps = readdirSync(dist).filter((name) => name.endsWith('.map'));
  const mapStage = join(work, 'sourcemaps');
  for (const map of maps) place(join(dist, map), join(mapStage, 'dist', map));
  tarGz(mapStage, ['dist'], names.sourcemaps);

  // One blob for both CPUs: without V8's code cache (which only this machine's CPU could use,
  // and which differs from run to run), it holds only the scripts and dist/'s files.
  const blobWork = join(work, 'blob');
  mkdirSync(blobWork);
  const blob = await seaBlob(dist, blobWork, { codeCache: false });

  const nodes = [];
  const tarballs = {};
  for (const target of TARGETS) {
    step(`linux-${target.arch}: single executable, archive, .deb`);
    const node = registryNode(target.arch);
    const binary = join(work, `store-${target.arch}`);
    stripped(join(node.dir, 'bin', 'node'), target, binary);
    await injectBlob(binary, blob, 'linux');
    const docs = documents(node);
    archive(target, binary, docs);
    debian(target, binary, docs);
    const files = [names.tarball(target), names.deb(target)];
    nodes.push({ ...node, version: nodeVersion, files });
    tarballs[target.arch === 'x64' ? 'intel' : 'arm'] = {
      file: names.tarball(target),
      sha256: sha256(join(out, names.tarball(target))),
    };
  }

  step('SBOM, Homebrew formula, SHA256SUMS');
  const sbom = makeSbom({
    root,
    epoch,
    nodes,
    npmFiles: [npmTarball],
    binaryFiles: nodes.flatMap(({ files }) => files),
  });
  writeFileSync(join(out, names.sbom), `${JSON.stringify(sbom, null, 2)}\n`);
  writeFileSync(join(out, names.formula), homebrewFormula(pkg, tarballs));
  const sums = readdirSync(out)
    .filter((name) => name !== 'SHA256SUMS')
    .sort()
    .map((name) => `${sha256(join(out, name))}  ${name}\n`)
    .join('');
  writeFileSync(join(out, 'SHA256SUMS'), sums);
  process.stdout.write(sums);
  step(`wrote ${relative(process.cwd(), out) || '.'}/`);
} catch (error) {
  if (!(error instanceof ReleaseError)) throw error;
  console.error(`release: ${error.message}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}
