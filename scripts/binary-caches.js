// The code caches a single executable carries (scripts/build-binary.js): bin/store.js in the
// binary takes its command's cache from the binary's assets before the user's cache folder, so
// the first run of a common command after an install is as quick as the next one and writes
// nothing. They are made as a user's would be, after a run: the binary built without them runs
// each command against its own sandbox, with a cache folder of its own, and the caches it
// wrote are kept (V8 takes a cache made by the same V8, flags and source: the binary rebuilt
// with them as assets runs the same main script and program). Only a binary of this machine's
// platform can be run so: a cross-built one goes without (its caches are made at first use).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The commands whose caches are made: a script's and a person's most common ones. */
const COMMANDS = [
  ['pets', 'list', '--json'],
  ['pets', 'list'],
  ['pets', 'get', '1', '--json'],
  ['pets', 'get', '1'],
  ['pets', 'add', '--name', 'Kiwi', '--category-id', '1', '--json'],
  ['pets', 'add', '--name', 'Kiwi', '--category-id', '1'],
  ['orders', 'list', '--json'],
  ['orders', 'list'],
  ['profile', 'list'],
];
/** The same, drawn on a terminal (a table: its side file's cache too), where `script` exists. */
const IN_TERMINAL = [
  ['pets', 'list'],
  ['orders', 'list'],
];

/** A cache file of bin/store.js in the binary: `<build>-sea-<key>-<stamp>.bin`. */
const CACHE_FILE = /^[0-9a-f]{16}-sea-([a-z0-9-]+)-[0-9a-z]+\.[0-9a-f]+\.bin$/;

/**
 * Runs `binary` (this machine's) to make its code caches; writes them into `out` as
 * `code-cache-<key>.bin` (without bin/store.js's checksum: an asset is not a file that can be
 * damaged apart from the binary) and returns them as assets, name to path.
 */
export async function makeCodeCaches(binary, out) {
  const home = mkdtempSync(join(tmpdir(), 'store-caches-'));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CACHE_HOME: join(home, 'cache'),
    LOCALAPPDATA: join(home, 'cache'),
    STORE_CONFIG_DIR: join(home, 'config'),
  };
  const sandbox = spawn(binary, ['sandbox', '--port', '0', '--seed', '3'], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const [first] = await once(sandbox.stdout, 'data');
    const url = first.toString().split('\n')[0];
    const api = { ...env, STORE_PROFILE: 'sandbox', STORE_BASE_URL: url, STORE_MESSAGES_URL: url };
    for (const args of COMMANDS) run(binary, args, api);
    const script = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
    if (script && process.platform === 'linux') {
      for (const args of IN_TERMINAL) {
        const line = [binary, ...args].map((word) => `'${word}'`).join(' ');
        run('script', ['-qec', line, '/dev/null'], api);
      }
    }
  } finally {
    sandbox.kill('SIGTERM');
    await once(sandbox, 'close');
  }
  mkdirSync(out, { recursive: true });
  const assets = {};
  const base = join(env.XDG_CACHE_HOME, 'store', 'code-cache');
  for (const folder of readdirSync(base)) {
    for (const file of readdirSync(join(base, folder)).sort()) {
      const key = CACHE_FILE.exec(file)?.[1];
      if (!key) continue;
      const data = readFileSync(join(base, folder, file));
      const name = `code-cache-${key}.bin`;
      writeFileSync(join(out, name), data.subarray(0, data.length - 4));
      assets[name] = join(out, name);
    }
  }
  rmSync(home, { recursive: true, force: true });
  if (!assets['code-cache-pets-list-json.bin']) {
    throw new Error(`${binary} made no code cache for pets list --json`);
  }
  return assets;
}

function run(command, args, env) {
  const result = spawnSync(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
}
