// `npm run test:binary` (CI): builds dist-bin/store, then runs it with no `node` on PATH (an
// empty folder is all of PATH) and a temporary config folder: --version, `store sandbox` started
// from the binary, `pets add` and `pets list` against it, a completion script, and a login
// (the key in config.json, said so: the binary cannot load the keyring library). Exits 1 on
// the first difference, printing what was expected and what came. The same binary under two
// environments and terminals gives each one's answer: nothing of where it was built is kept in
// it. `--snapshot`: the binary is one built with a start-up snapshot (build-binary.js
// --snapshot), which makes no code caches.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const binary = join(root, 'dist-bin', process.platform === 'win32' ? 'store.exe' : 'store');
const snapshot = process.argv.includes('--snapshot');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'store-binary-'));
const emptyPath = mkdtempSync(join(work, 'path-'));
const env = {
  PATH: emptyPath,
  HOME: work,
  STORE_CONFIG_DIR: join(work, 'config'),
  XDG_CACHE_HOME: join(work, 'cache'),
  LOCALAPPDATA: join(work, 'local'),
};
// Where the binary keeps the code caches of its program (bin/store.js, cacheDir).
const cacheBase = { darwin: join(work, 'Library', 'Caches'), win32: env.LOCALAPPDATA };
const caches = join(
  cacheBase[process.platform] ?? env.XDG_CACHE_HOME,
  'store',
  'code-cache',
  `v8-${process.versions.v8}-${process.arch}`,
);

// Proves the premise: nothing called node can be found on this PATH.
assert.notEqual(spawnSync('node', ['--version'], { env }).error, undefined);

/** The code caches the binary wrote, by key (the command, or the side file). */
function cachesByKey() {
  const name = /^[0-9a-f]{16}-sea-([a-z-]+)-[0-9a-z]+\.[0-9a-z]+\.bin$/;
  const files = existsSync(caches) ? readdirSync(caches) : [];
  return Object.fromEntries(files.map((file) => [name.exec(file)?.[1] ?? file, file]));
}

function store(args, extra = {}, input = '') {
  const result = spawnSync(binary, args, { env: { ...env, ...extra }, encoding: 'utf8', input });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let sandbox;
try {
  assert.deepEqual(store(['--version']), { code: 0, stdout: `${version}\n`, stderr: '' });

  sandbox = spawn(binary, ['sandbox', '--port', '0', '--seed', '2'], { env });
  const [first] = await once(sandbox.stdout, 'data');
  const url = first.toString().split('\n')[0];
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  const api = { STORE_PROFILE: 'sandbox', STORE_BASE_URL: url, STORE_MESSAGES_URL: url };

  assert.deepEqual(store(['pets', 'add', '--name', 'Kiwi', '--category-id', '3', '--json'], api), {
    code: 0,
    stdout: '{"id":3,"name":"Kiwi","categoryId":3}\n',
    stderr: '',
  });
  const listed = {
    code: 0,
    stdout:
      'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t1\tavailable\n2\tBella\t2\tpending\n3\tKiwi\t3\t\n',
    stderr: '',
  };
  assert.deepEqual(store(['pets', 'list'], api), listed);
  // Their code caches came with the binary (scripts/binary-caches.js): their first run wrote
  // none. A command without one writes its own, and so does a side file of the program
  // (conf.cjs, for a config write), which comes from the binary too.
  assert.deepEqual(cachesByKey(), {});
  assert.deepEqual(store(['profile', 'use', 'staging']), {
    code: 0,
    stdout: '',
    stderr: 'Made staging the current profile\n',
  });
  assert.deepEqual(Object.keys(cachesByKey()).sort(), snapshot ? [] : ['conf', 'profile-use']);
  sameBinaryTwoPlaces(api);
  assert.deepEqual(store(['completion', 'bash']), {
    code: 0,
    stdout: readFileSync(join(root, 'completions', 'store.bash'), 'utf8'),
    stderr: '',
  });
  // The binary cannot load the keyring library's native file: it keeps the key in config.json
  // and says so at each login (docs/security.md).
  const config = join(env.STORE_CONFIG_DIR, 'config.json');
  assert.deepEqual(store(['auth', 'login', '--with-key', '--no-verify'], {}, 'binary-key-4321\n'), {
    code: 0,
    stdout: '',
    stderr:
      `warning: the system keyring cannot be used (this single executable cannot load the keyring library); the key is stored in plain text in ${config}\n` +
      'Saved key ****4321 for profile staging without checking it\n',
  });
  assert.deepEqual(store(['auth', 'token']), { code: 0, stdout: 'binary-key-4321\n', stderr: '' });

  sandbox.kill('SIGTERM');
  const [code] = await once(sandbox, 'close');
  sandbox = undefined;
  assert.equal(code, 0);
  console.log(
    `${binary}: --version, sandbox, pets add, pets list (code caches from the binary), completion, login: ok (no node on PATH)`,
  );
} finally {
  sandbox?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}

/**
 * The same binary under two environments and terminals gives each one's answer: what it read
 * at build time (a snapshot's heap, its code caches) holds none of them. The current profile
 * of two config folders; the help laid out for COLUMNS; a table on a terminal, tab-separated
 * rows in a pipe.
 */
function sameBinaryTwoPlaces(api) {
  const { STORE_PROFILE: _profile, ...noProfile } = api;
  const current = (configDir) => {
    const result = store(['profile', 'list'], { ...noProfile, STORE_CONFIG_DIR: configDir });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout
      .split('\n')
      .find((line) => line.startsWith('*'))
      ?.split('\t')[1];
  };
  assert.equal(current(env.STORE_CONFIG_DIR), 'staging');
  assert.equal(current(join(work, 'other-config')), 'production');

  const help = (columns) => store(['pets', 'list', '--help'], { COLUMNS: String(columns) }).stdout;
  const widest = (text) => Math.max(...text.split('\n').map((line) => line.length));
  assert.ok(widest(help(50)) <= 50, help(50));
  assert.ok(widest(help(150)) > 50, help(150));

  const piped = store(['pets', 'list'], api);
  assert.equal(piped.code, 0, piped.stderr);
  assert.match(piped.stdout, /^ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t/);
  if (process.platform !== 'linux' || spawnSync('script', ['--version']).status !== 0) return;
  // In a pseudo-terminal (util-linux's script): the table, in colour.
  const line = `'${binary}' pets list`;
  const shown = spawnSync('script', ['-qec', line, '/dev/null'], {
    env: { ...env, ...api, PATH: process.env.PATH },
    encoding: 'utf8',
  });
  assert.equal(shown.status, 0, shown.stdout);
  assert.match(shown.stdout, /\x1b\[1mID\x1b\[22m +\x1b\[1mNAME\x1b\[22m/);
  assert.match(shown.stdout, /\r\n1 +Rex +1 +\x1b\[32mavailable\x1b\[39m\r\n/);
}
