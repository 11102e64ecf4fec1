// bin/store.js keeps Node's compile cache in the user's own cache folder, never in a shared
// temporary one, and only when that folder is private (a cache someone else can write is code
// they choose for us to run). Run as a process with a temporary HOME.
import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { store } from '../helpers/process.js';

const VERSION_OUTPUT = { code: 0, signal: null, stdout: '0.1.0\n', stderr: '' };

/** No XDG_CACHE_HOME unless given: the cache goes under `home`. */
function envWith(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, STORE_CONFIG_DIR: tempDir(), ...extra };
}

/** The files Node wrote under a compile cache folder (one subfolder per Node version). */
function cached(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describe('the compile cache', () => {
  it('lives in ~/.cache/store/compile-cache, made with mode 0700', async () => {
    const home = tempDir();
    expect(await store(['--version'], { env: envWith(home) })).toEqual(VERSION_OUTPUT);
    const dir = join(home, '.cache', 'store', 'compile-cache');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, '.cache', 'store')).mode & 0o777).toBe(0o700);
    expect(cached(dir).length).toBeGreaterThan(0);
  });

  it('follows an absolute XDG_CACHE_HOME and ignores a relative one', async () => {
    const home = tempDir();
    const xdg = join(home, 'xdg');
    await store(['--version'], { env: envWith(home, { XDG_CACHE_HOME: xdg }) });
    expect(cached(join(xdg, 'store', 'compile-cache')).length).toBeGreaterThan(0);
    expect(readdirSync(home)).toEqual(['xdg']);

    const other = tempDir();
    await store(['--version'], { env: envWith(other, { XDG_CACHE_HOME: 'cache' }) });
    expect(cached(join(other, '.cache', 'store', 'compile-cache')).length).toBeGreaterThan(0);
  });

  it('is not used when others can write to the folder: nothing written, no message', async () => {
    const home = tempDir();
    const dir = join(home, '.cache', 'store', 'compile-cache');
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    expect(await store(['--version'], { env: envWith(home) })).toEqual(VERSION_OUTPUT);
    expect(cached(dir)).toEqual([]);
    expect(statSync(dir).mode & 0o777).toBe(0o777);
  });

  it('is not used when the folder is a link elsewhere', async () => {
    const home = tempDir();
    const elsewhere = tempDir();
    mkdirSync(join(home, '.cache', 'store'), { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, join(home, '.cache', 'store', 'compile-cache'));
    expect(await store(['--version'], { env: envWith(home) })).toEqual(VERSION_OUTPUT);
    expect(cached(elsewhere)).toEqual([]);
  });

  it('is skipped quietly when the folder cannot be made', async () => {
    const home = join(tempDir(), 'not-a-folder');
    writeFileSync(home, '');
    expect(await store(['--version'], { env: envWith(home) })).toEqual(VERSION_OUTPUT);
  });
});
