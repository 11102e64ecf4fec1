// `npm run check:release` (CI, after `npm run release`): checks release/ as a user and a security
// team would take it. Each file against SHA256SUMS; the SBOM names every package of the notices
// and the Node of the binaries; each archive and .deb holds exactly its files, Node's LICENSE
// among them, and a binary of at most 112 MB for its CPU; the amd64 .deb, unpacked into a scratch
// root, runs `store` with no node on PATH (--version, a sandbox, pets list); the linux-arm64
// binary does the same under qemu-aarch64-static; the Homebrew formula names the archives'
// checksums (and passes `ruby -c` where Ruby is). With --rebuild, a second build from a clone of
// this commit in another folder must give the same SHA256SUMS. Exits 1 at the first difference.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'release');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const nodeVersion = JSON.parse(
  readFileSync(join(root, 'node_modules', 'node', 'package.json'), 'utf8'),
).version;
const MAX_BINARY = 112_000_000;
const ELF_MACHINE = { amd64: 0x3e, arm64: 0xb7 };
const SHARE = [
  'share/bash-completion/completions/store',
  'share/fish/vendor_completions.d/store.fish',
  'share/man/man1/store.1',
  'share/zsh/site-functions/_store',
];
const DEB_FILES = [
  'usr/bin/store',
  'usr/share/bash-completion/completions/store',
  'usr/share/doc/store/LICENSE',
  'usr/share/doc/store/LICENSE.node',
  'usr/share/doc/store/THIRD_PARTY_NOTICES',
  'usr/share/doc/store/copyright',
  'usr/share/fish/vendor_completions.d/store.fish',
  'usr/share/man/man1/store.1.gz',
  'usr/share/zsh/vendor-completions/_store',
];

const work = mkdtempSync(join(tmpdir(), 'store-check-release-'));
const ok = (text) => console.log(`ok: ${text}`);
const sh = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...options });

/** The files under `dir`, relative, sorted. */
function filesUnder(dir, prefix = '') {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      return entry.isDirectory() ? filesUnder(dir, path) : [path];
    })
    .sort();
}

function checkBinary(file, arch) {
  const bytes = statSync(file).size;
  assert.ok(bytes <= MAX_BINARY, `${file}: ${bytes} bytes, more than ${MAX_BINARY}`);
  const head = readFileSync(file).subarray(0, 20);
  assert.equal(head.toString('latin1', 0, 4), '\x7fELF', `${file} is not an ELF binary`);
  assert.equal(head.readUInt16LE(18), ELF_MACHINE[arch], `${file} is not for ${arch}`);
  assert.equal(statSync(file).mode & 0o777, 0o755);
  return bytes;
}

/**
 * The entries of a tar stream (`tar` reads `args`, or `input`), each of owner 0:0 and of the
 * release's time (SOURCE_DATE_EPOCH, which the SBOM states).
 */
function checkTarEntries(what, time, args, input) {
  const listing = sh('tar', ['--list', '--verbose', '--numeric-owner', '--full-time', ...args], {
    env: { ...process.env, TZ: 'UTC' },
    input,
  });
  const stamp = time.replace('T', ' ').replace(/Z$/, '');
  for (const line of listing.trim().split('\n')) {
    const [, owner, , date, clock] = line.split(/\s+/);
    assert.equal(owner, '0/0', `${what}: ${line}`);
    assert.equal(`${date} ${clock}`, stamp, `${what}: ${line}`);
  }
}

function checkNodeLicence(file) {
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^Node\.js is licensed for use as follows:/, `${file} is not Node's LICENSE`);
  assert.match(text, /- llhttp, located at deps\/llhttp/);
}

/** Runs `binary` (through `runner`, e.g. qemu) with no node on PATH, in a fresh home. */
function runner(prefix = []) {
  const home = mkdtempSync(join(work, 'home-'));
  const emptyPath = join(home, 'path');
  mkdirSync(emptyPath);
  const env = {
    PATH: emptyPath,
    HOME: home,
    STORE_CONFIG_DIR: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
  };
  assert.notEqual(spawnSync('node', ['--version'], { env }).error, undefined);
  return (binary, args, extra = {}) => {
    const [command, ...first] = [...prefix, binary];
    const result = spawnSync(command, [...first, ...args], {
      env: { ...env, ...extra },
      encoding: 'utf8',
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
}

/** The command that runs an arm64 binary here: itself on arm64, else qemu with arm64's libraries. */
function arm64Runner() {
  if (process.arch === 'arm64') return [];
  // Found here: the binary runs with an empty PATH, where spawn looks for the command.
  const qemu = spawnSync('sh', ['-c', 'command -v qemu-aarch64-static'], { encoding: 'utf8' });
  assert.equal(qemu.status, 0, 'qemu-aarch64-static is missing (Debian: qemu-user-static)');
  // Debian's libc6-arm64-cross and libstdc++6-arm64-cross: the libraries Node links to.
  return [qemu.stdout.trim(), '-L', '/usr/aarch64-linux-gnu'];
}

let sandbox;
try {
  // Every artefact, and only they, in SHA256SUMS, each matching.
  const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8');
  const listed = [...sums.matchAll(/^[0-9a-f]{64} {2}(\S+)$/gm)].map((match) => match[1]);
  assert.deepEqual(
    listed,
    readdirSync(out)
      .filter((name) => name !== 'SHA256SUMS')
      .sort(),
  );
  sh('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: out, stdio: 'ignore' });
  ok(`sha256sum -c SHA256SUMS (${listed.length} files)`);

  // The npm tarball: no source maps; they are an archive of their own.
  const npmFile = listed.find((name) => name.endsWith('.tgz'));
  const npmFiles = sh('tar', ['-tzf', join(out, npmFile)])
    .trim()
    .split('\n');
  assert.deepEqual(
    npmFiles.filter((path) => path.endsWith('.map')),
    [],
  );
  assert.ok(npmFiles.includes('package/dist/store.cjs'));
  const mapFiles = sh('tar', ['-tzf', join(out, `store_${version}_sourcemaps.tar.gz`)]);
  assert.match(mapFiles, /^dist\/store\.cjs\.map$/m);
  ok(`${npmFile} holds no source map; store_${version}_sourcemaps.tar.gz holds them`);

  // The SBOM: each package of the notices (llhttp too), with version and licence, and Node.
  const sbom = JSON.parse(readFileSync(join(out, `store_${version}_sbom.cdx.json`), 'utf8'));
  assert.equal(sbom.bomFormat, 'CycloneDX');
  const components = new Map(
    sbom.components.map((c) => [c.group ? `${c.group}/${c.name}` : c.name, c]),
  );
  const notices = readFileSync(join(root, 'dist', 'THIRD_PARTY_NOTICES'), 'utf8');
  const head = notices.slice(0, notices.indexOf('\n====='));
  const named = [...head.matchAll(/^- (\S+)/gm)].map((match) => match[1]);
  assert.ok(named.includes('undici') && named.includes('llhttp'), 'the notices name no package');
  for (const name of named) {
    const component = components.get(name);
    assert.ok(component, `the SBOM lacks ${name}, which the notices name`);
    assert.ok(component.licenses?.length, `the SBOM gives no licence for ${name}`);
    if (name !== 'llhttp') {
      const { version: bundled } = JSON.parse(
        readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'),
      );
      assert.equal(component.version, bundled, `${name}'s version`);
      assert.equal(component.purl, `pkg:npm/${name.replace(/^@/, '%40')}@${bundled}`);
    }
  }
  for (const arch of ['x64', 'arm64']) {
    const node = components.get(`node-linux-${arch}`);
    assert.equal(node?.version, nodeVersion, `the SBOM lacks the Node of the ${arch} binary`);
    assert.equal(node.hashes[0].alg, 'SHA-512');
  }
  ok(`the SBOM names the ${named.length} packages of the notices and Node ${nodeVersion}`);

  // The archives: exactly their files, Node's LICENSE among them, a binary for their CPU.
  const binaries = {};
  for (const arch of ['amd64', 'arm64']) {
    const name = `store_${version}_linux_${arch}`;
    const dir = join(work, arch);
    mkdirSync(dir);
    sh('tar', ['-xzf', join(out, `${name}.tar.gz`), '-C', dir]);
    assert.deepEqual(readdirSync(dir), [name]);
    assert.deepEqual(
      filesUnder(join(dir, name)),
      ['LICENSE', 'LICENSE.node', 'THIRD_PARTY_NOTICES', 'bin/store', ...SHARE].sort(),
    );
    checkNodeLicence(join(dir, name, 'LICENSE.node'));
    checkTarEntries(name, sbom.metadata.timestamp, [
      '--gzip',
      '--file',
      join(out, `${name}.tar.gz`),
    ]);
    binaries[arch] = join(dir, name, 'bin', 'store');
    const bytes = checkBinary(binaries[arch], arch);
    ok(
      `${name}.tar.gz: its files (owner 0, the release's time), Node's LICENSE, a ${arch} binary of ${bytes} bytes`,
    );
  }

  // The .debs: their files where Debian puts them; the amd64 one unpacked into a scratch root.
  for (const arch of ['amd64', 'arm64']) {
    const deb = join(out, `store_${version}_linux_${arch}.deb`);
    const fields = sh('dpkg-deb', ['--field', deb, 'Package', 'Version', 'Architecture']);
    assert.equal(fields, `Package: store\nVersion: ${version}\nArchitecture: ${arch}\n`);
    const scratch = join(work, `root-${arch}`);
    sh('dpkg-deb', ['-x', deb, scratch]);
    checkTarEntries(
      deb,
      sbom.metadata.timestamp,
      [],
      execFileSync('dpkg-deb', ['--fsys-tarfile', deb], { maxBuffer: 1 << 30 }),
    );
    assert.deepEqual(filesUnder(scratch), DEB_FILES);
    checkNodeLicence(join(scratch, 'usr/share/doc/store/LICENSE.node'));
    checkBinary(join(scratch, 'usr/bin/store'), arch);
    assert.equal(
      gunzipSync(readFileSync(join(scratch, 'usr/share/man/man1/store.1.gz'))).toString(),
      readFileSync(join(root, 'man', 'store.1'), 'utf8'),
    );
    ok(
      `store_${version}_linux_${arch}.deb: its files (owner 0, the release's time), Node's LICENSE, a ${arch} binary`,
    );
  }

  // The amd64 .deb's store, with no node on PATH: the version, a sandbox, a list from it.
  const store = runner();
  const installed = join(work, 'root-amd64', 'usr', 'bin', 'store');
  assert.deepEqual(store(installed, ['--version']), {
    code: 0,
    stdout: `${version}\n`,
    stderr: '',
  });
  sandbox = spawn(installed, ['sandbox', '--port', '0', '--seed', '2'], {
    env: { PATH: join(work, 'none'), HOME: work, STORE_CONFIG_DIR: join(work, 'sandbox-config') },
  });
  const [first] = await once(sandbox.stdout, 'data');
  const url = first.toString().split('\n')[0];
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  const api = { STORE_PROFILE: 'sandbox', STORE_BASE_URL: url, STORE_MESSAGES_URL: url };
  const pets = {
    code: 0,
    stdout:
      '[{"id":1,"name":"Rex","categoryId":1,"status":"available"},{"id":2,"name":"Bella","categoryId":2,"status":"pending"}]\n',
    stderr: '',
  };
  assert.deepEqual(store(installed, ['pets', 'list', '--json'], api), pets);
  ok('the amd64 .deb unpacked: store --version and pets list --json, no node on PATH');

  // The linux-arm64 binary, emulated where this machine is not arm64.
  const arm64 = runner(arm64Runner());
  assert.deepEqual(arm64(binaries.arm64, ['--version']), {
    code: 0,
    stdout: `${version}\n`,
    stderr: '',
  });
  assert.deepEqual(arm64(binaries.arm64, ['pets', 'list', '--json'], api), pets);
  ok('the linux-arm64 binary: --version and pets list --json against the sandbox');

  // The Homebrew formula: each archive by its checksum; Ruby's syntax check where Ruby is.
  const formula = readFileSync(join(out, 'store.rb'), 'utf8');
  for (const arch of ['amd64', 'arm64']) {
    const file = `store_${version}_linux_${arch}.tar.gz`;
    const sum = sums.match(new RegExp(`^([0-9a-f]{64})  ${file.replace(/\./g, '\\.')}$`, 'm'))[1];
    assert.ok(
      formula.includes(`/v${version}/${file}"\n      sha256 "${sum}"`),
      `store.rb: ${file}`,
    );
  }
  if (spawnSync('ruby', ['--version']).error === undefined) {
    assert.equal(sh('ruby', ['-c', join(out, 'store.rb')]), 'Syntax OK\n');
    ok('store.rb names both archives by checksum; ruby -c: Syntax OK');
  } else {
    ok('store.rb names both archives by checksum (no Ruby here for ruby -c)');
  }

  sandbox.kill('SIGTERM');
  assert.equal((await once(sandbox, 'close'))[0], 0);
  sandbox = undefined;

  if (process.argv.includes('--rebuild')) {
    // The same commit, cloned into another folder and built again: the same bytes.
    const clone = join(work, 'elsewhere', 'store');
    sh('git', ['clone', '--quiet', root, clone]);
    assert.equal(
      sh('git', ['rev-parse', 'HEAD'], { cwd: clone }),
      sh('git', ['rev-parse', 'HEAD'], { cwd: root }),
    );
    const quiet = { cwd: clone, stdio: ['ignore', 'ignore', 'inherit'] };
    sh('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], quiet);
    sh('npm', ['run', 'release', '--silent'], quiet);
    assert.equal(
      readFileSync(join(clone, 'release', 'SHA256SUMS'), 'utf8'),
      sums,
      'a second build of this commit gave other bytes',
    );
    ok('a second build, from a clone in another folder, gave the same SHA256SUMS');
  }
} finally {
  sandbox?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
