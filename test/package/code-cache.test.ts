// bin/store.js keeps V8 code caches of the program in the user's own cache folder, never in a
// shared temporary one, and only when that folder is private (a cache someone else can write
// is code they choose for us to run). One cache per command and build, written after the
// command succeeded; one V8 refuses is replaced; other builds' are dropped after a week.
// Run as a process with a temporary HOME.
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { BIN, store } from '../helpers/process.js';

const PROGRAM = join(BIN, '../../dist/store.cjs');
const BUILD = /^\/\/ \S+ \S+ build ([0-9a-f]{16})\n/.exec(
  readFileSync(PROGRAM, 'utf8').slice(0, 128),
)?.[1] as string;
/** The name of a cache of dist/store.cjs: its build id, the command, its size and time. */
const cacheName = (key: string) => {
  const stats = statSync(PROGRAM);
  return `${BUILD}-${key}-${stats.size.toString(36)}.${Math.trunc(stats.mtimeMs).toString(36)}.bin`;
};
// A command that needs the whole program and no server: the built-in profiles, as JSON.
const LIST = ['profile', 'list', '--json'];

/** No XDG_CACHE_HOME unless given: the cache goes under `home`. */
function envWith(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, STORE_CONFIG_DIR: tempDir(), ...extra };
}

/** The folder of this Node's caches under a `store` cache folder. */
const versionDir = (storeDir: string) =>
  join(storeDir, 'code-cache', `v8-${process.versions.v8}-${process.arch}`);

/** The cache folder under `home`, made beforehand as store makes it (private, 0700). */
function madeCacheDir(home: string): string {
  const dir = versionDir(join(home, '.cache', 'store'));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(join(home, '.cache', 'store'), 0o700);
  chmodSync(join(home, '.cache', 'store', 'code-cache'), 0o700);
  return dir;
}

/** The files under a folder, however deep. */
function cached(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
}

async function listProfiles(env: NodeJS.ProcessEnv) {
  const result = await store(LIST, { env });
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(result.stdout)).toHaveLength(3);
}

describe('the code cache', () => {
  it('lives in ~/.cache/store/code-cache, one file per command, private', async () => {
    const home = tempDir();
    await listProfiles(envWith(home));
    const storeDir = join(home, '.cache', 'store');
    const dir = versionDir(storeDir);
    expect(cached(storeDir)).toEqual([cacheName('profile-list-json')]);
    for (const folder of [storeDir, join(storeDir, 'code-cache'), dir]) {
      expect(statSync(folder).mode & 0o777).toBe(0o700);
    }
    expect(statSync(join(dir, cacheName('profile-list-json'))).mode & 0o777).toBe(0o600);

    // Used as it is the next time: not written again.
    const before = readFileSync(join(dir, cacheName('profile-list-json')));
    const mtime = statSync(join(dir, cacheName('profile-list-json'))).mtimeMs;
    await listProfiles(envWith(home));
    expect(statSync(join(dir, cacheName('profile-list-json'))).mtimeMs).toBe(mtime);
    expect(readFileSync(join(dir, cacheName('profile-list-json')))).toEqual(before);

    // Another command, another cache; `-p NAME` is not taken for a command word.
    const status = await store(['-p', 'sandbox', 'profile', 'list'], { env: envWith(home) });
    expect(status.code).toBe(0);
    expect(cached(storeDir)).toEqual(
      [cacheName('profile-list-json'), cacheName('profile-list')].sort(),
    );
  });

  it('is written only after a command that succeeded, and never for --version', async () => {
    const home = tempDir();
    const failed = await store(['profile', 'use', 'nowhere'], { env: envWith(home) });
    expect(failed.code).toBe(2);
    expect(await store(['--version'], { env: envWith(home) })).toEqual({
      code: 0,
      signal: null,
      stdout: '0.1.0\n',
      stderr: '',
    });
    expect(cached(join(home, '.cache', 'store'))).toEqual([]);
  });

  it('keeps one cache per set of Node flags: a bulk add restarts under flags of its own', async () => {
    const home = tempDir();
    const server = await faultServer((_req, res, n) =>
      reply(res, 201, `{"id":${n},"name":"Rex","categoryId":1}`),
    );
    const env = envWith(home, { STORE_BASE_URL: server.url, STORE_API_KEY: 'k-1234' });
    const bulk = () =>
      store(['pets', 'add', '--file', '-', '--json'], {
        env,
        stdin: '{"name":"Rex","categoryId":1}\n',
      });
    expect(await bulk()).toMatchObject({
      code: 0,
      stdout: '{"id":1,"name":"Rex","categoryId":1}\n',
    });
    const storeDir = join(home, '.cache', 'store');
    // The program's cache and undici's (a bulk add's requests go by its pool), each named by
    // the command, then a hash of the flags it ran under (src/bulk/import.ts).
    const caches = cached(storeDir);
    const flagged = caches.find((name) => name.includes('-pets-add-json-'));
    const flags = /-(f[0-9a-z]+)-/.exec(flagged ?? '')?.[1];
    expect(flagged).toBe(cacheName(`pets-add-json-${flags}`));
    const undici = caches.find((name) => name !== flagged);
    expect(undici).toMatch(new RegExp(`^${BUILD}-agent-${flags}-[0-9a-z]+\\.[0-9a-z]+\\.bin$`));
    expect(caches).toHaveLength(2);
    // The same command without --file runs under no flag: a cache of its own, beside it.
    const one = await store(['pets', 'add', '--name', 'Rex', '--category-id', '1', '--json'], {
      env,
    });
    expect(one.code).toBe(0);
    expect(cached(storeDir)).toEqual([cacheName('pets-add-json'), flagged, undici].sort());
    // V8 takes the bulk add's cache the next time: it is not rewritten.
    const file = join(versionDir(storeDir), flagged as string);
    const mtime = statSync(file).mtimeMs;
    expect((await bulk()).code).toBe(0);
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(cached(storeDir)).toEqual([cacheName('pets-add-json'), flagged, undici].sort());
  });

  it('keeps a run under other Node flags from replacing the plain run’s cache', async () => {
    const home = tempDir();
    await listProfiles(envWith(home));
    const flagged = await store(LIST, { env: envWith(home), nodeArgs: ['--no-warnings'] });
    expect(flagged.code).toBe(0);
    const names = cached(join(home, '.cache', 'store'));
    expect(names).toHaveLength(2);
    expect(names).toContain(cacheName('profile-list-json'));
    expect(names.filter((name) => name !== cacheName('profile-list-json'))[0]).toMatch(
      new RegExp(`^${BUILD}-profile-list-json-f[0-9a-z]+-[0-9a-z]+\\.[0-9a-z]+\\.bin$`),
    );
  });

  it('keeps a side file’s cache per set of Node flags too (conf.cjs, for a config write)', async () => {
    const home = tempDir();
    const env = envWith(home);
    const use = async (nodeArgs: string[] = []) =>
      expect(await store(['profile', 'use', 'staging'], { env, nodeArgs })).toMatchObject({
        code: 0,
        stdout: '',
      });
    await use();
    const dir = versionDir(join(home, '.cache', 'store'));
    const confCaches = () => cached(dir).filter((name) => name.includes('-conf-'));
    const [plain] = confCaches();
    expect(plain).toMatch(new RegExp(`^${BUILD}-conf-[0-9a-z]+\\.[0-9a-z]+\\.bin$`));
    const mtime = statSync(join(dir, plain as string)).mtimeMs;
    // A V8 flag: V8 refuses a cache made without it, and the reverse.
    await use(['--optimize-for-size']);
    await use();
    expect(statSync(join(dir, plain as string)).mtimeMs).toBe(mtime);
    const [flagged, ...others] = confCaches().filter((name) => name !== plain);
    expect(others).toEqual([]);
    expect(flagged).toMatch(new RegExp(`^${BUILD}-conf-f[0-9a-z]+-[0-9a-z]+\\.[0-9a-z]+\\.bin$`));
  });

  it('replaces a cache V8 refuses (damaged), and the command still runs', async () => {
    const home = tempDir();
    const dir = madeCacheDir(home);
    const file = join(dir, cacheName('profile-list-json'));
    writeFileSync(file, 'not a code cache', { mode: 0o600 });
    await listProfiles(envWith(home));
    expect(readFileSync(file).length).toBeGreaterThan(1000);
  });

  it('does not give V8 a cache damaged inside (V8 checks only its header): replaced, the command runs', async () => {
    const home = tempDir();
    const dir = madeCacheDir(home);
    const file = join(dir, cacheName('profile-list-json'));
    await listProfiles(envWith(home));
    const made = readFileSync(file);
    // Bytes past the header changed on the disk: V8 took such a cache and crashed (exit 133,
    // "Fatal error … unreachable code", or 139), at every start until it was deleted.
    for (const at of [0.25, 0.5, 0.75]) {
      const damaged = Buffer.from(made);
      const from = Math.floor(damaged.length * at);
      for (let i = from; i < from + 64; i += 1) damaged[i] = (damaged[i] as number) ^ 0x5a;
      writeFileSync(file, damaged, { mode: 0o600 });
      await listProfiles(envWith(home));
      expect(readFileSync(file).equals(damaged)).toBe(false);
      expect(readFileSync(file).length).toBeGreaterThan(1000);
    }
  });

  it('drops the caches of other builds written over a week ago when it writes one', async () => {
    const home = tempDir();
    const dir = madeCacheDir(home);
    // Another install of store may still use a recent one: it stays.
    const old = join(dir, '0123456789abcdef-profile-list-json.bin');
    const recent = join(dir, 'fedcba9876543210-profile-list-json.bin');
    writeFileSync(old, 'old', { mode: 0o600 });
    writeFileSync(recent, 'recent', { mode: 0o600 });
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
    utimesSync(old, eightDaysAgo, eightDaysAgo);
    await listProfiles(envWith(home));
    expect(cached(dir)).toEqual(
      [cacheName('profile-list-json'), 'fedcba9876543210-profile-list-json.bin'].sort(),
    );
  });

  it('replaces at once the same command’s cache made for another copy of the file', async () => {
    const home = tempDir();
    const dir = madeCacheDir(home);
    // The same build rebuilt (another time), and a cache of another command that stays.
    const rebuilt = join(dir, `${BUILD}-profile-list-json-abc.def.bin`);
    const otherCommand = join(dir, `${BUILD}-profile-list-json-extra-abc.def.bin`);
    writeFileSync(rebuilt, 'older copy', { mode: 0o600 });
    writeFileSync(otherCommand, 'another command', { mode: 0o600 });
    await listProfiles(envWith(home));
    expect(cached(dir)).toEqual(
      [cacheName('profile-list-json'), `${BUILD}-profile-list-json-extra-abc.def.bin`].sort(),
    );
  });

  it('drops the folders of other versions of V8 once nothing there was written for a week', async () => {
    const home = tempDir();
    const dir = madeCacheDir(home);
    const caches = join(dir, '..');
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
    mkdirSync(join(caches, 'v8-1.0-x64'), { mode: 0o700 });
    writeFileSync(join(caches, 'v8-1.0-x64', 'old.bin'), 'old');
    utimesSync(join(caches, 'v8-1.0-x64', 'old.bin'), eightDaysAgo, eightDaysAgo);
    mkdirSync(join(caches, 'v8-2.0-x64'), { mode: 0o700 });
    writeFileSync(join(caches, 'v8-2.0-x64', 'recent.bin'), 'recent');
    await listProfiles(envWith(home));
    expect(readdirSync(caches).sort()).toEqual(
      ['v8-2.0-x64', `v8-${process.versions.v8}-${process.arch}`].sort(),
    );
  });

  it('is not used with an empty HOME: nothing written under the current folder', async () => {
    const cwd = tempDir();
    const result = await store(LIST, { env: { ...envWith(''), HOME: '' }, cwd });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('follows an absolute XDG_CACHE_HOME and ignores a relative one', async () => {
    const home = tempDir();
    const xdg = join(home, 'xdg');
    await listProfiles(envWith(home, { XDG_CACHE_HOME: xdg }));
    expect(cached(join(xdg, 'store'))).toEqual([cacheName('profile-list-json')]);
    expect(readdirSync(home)).toEqual(['xdg']);

    const other = tempDir();
    await listProfiles(envWith(other, { XDG_CACHE_HOME: 'cache' }));
    expect(cached(join(other, '.cache', 'store'))).toEqual([cacheName('profile-list-json')]);
  });

  // Each of the three folders (store/, code-cache/, v8-…/) must be private: writable by others
  // or by the group, any of them would let someone else choose the code store runs.
  it.each([
    ['store', 0o777],
    ['store', 0o770],
    ['code-cache', 0o777],
    ['code-cache', 0o770],
    ['v8', 0o777],
    ['v8', 0o770],
  ])(
    'is not used when the %s folder is mode %o: nothing written, no message',
    async (which, mode) => {
      const home = tempDir();
      const storeDir = join(home, '.cache', 'store');
      const dir = madeCacheDir(home);
      const folder = { store: storeDir, 'code-cache': join(storeDir, 'code-cache'), v8: dir }[
        which
      ] as string;
      chmodSync(folder, mode);
      await listProfiles(envWith(home));
      expect(cached(storeDir)).toEqual([]);
      expect(statSync(folder).mode & 0o777).toBe(mode);
    },
  );

  it.runIf(process.getuid?.() === 0)(
    'is not used when a folder belongs to another user (as root: sudo keeping HOME)',
    async () => {
      const home = tempDir();
      const storeDir = join(home, '.cache', 'store');
      const dir = madeCacheDir(home);
      chownSync(join(storeDir, 'code-cache'), 65534, 65534);
      await listProfiles(envWith(home));
      expect(cached(storeDir)).toEqual([]);
      expect(cached(dir)).toEqual([]);
    },
  );

  it('is not used when the folder is a link elsewhere', async () => {
    const home = tempDir();
    const elsewhere = tempDir();
    mkdirSync(join(home, '.cache', 'store'), { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, join(home, '.cache', 'store', 'code-cache'));
    await listProfiles(envWith(home));
    expect(cached(elsewhere)).toEqual([]);
  });

  it.runIf(existsSync('/proc/self'))(
    'is skipped quietly where a parent exists and the folder still cannot be made (under /proc)',
    async () => {
      // mkdirSync's `recursive` looped there at full CPU, forever: every command hung.
      await listProfiles(envWith(tempDir(), { XDG_CACHE_HOME: '/proc/store-test' }));
    },
  );

  it('is skipped quietly when the folder cannot be made', async () => {
    const home = join(tempDir(), 'not-a-folder');
    writeFileSync(home, '');
    await listProfiles(envWith(home));
  });
});
