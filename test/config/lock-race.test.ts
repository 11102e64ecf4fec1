// The lock's one race that cannot be timed from outside: its holder releases it between our
// failed link and our read of it. A stand-in for safe-fs removes the lock at that read.
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/cli.js';

let releaseAtRead: string | undefined;
vi.mock('../../src/config/safe-fs.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/config/safe-fs.js')>();
  return {
    ...real,
    readRegularFile: (path: string) => {
      if (path === releaseAtRead) {
        releaseAtRead = undefined;
        unlinkSync(path);
      }
      return real.readRegularFile(path);
    },
  };
});
const { withLock } = await import('../../src/config/lock.js');

it('takes a lock released between its failed link and its read, rather than assume it held', async () => {
  const target = join(tempDir(), 'config.json');
  const lock = `${target}.lock`;
  const live = { pid: process.pid, host: hostname(), time: Date.now(), token: '0123456789abcdef' };
  writeFileSync(lock, JSON.stringify(live));
  releaseAtRead = lock;
  expect(await withLock(target, () => existsSync(lock))).toBe(true);
  expect(releaseAtRead).toBeUndefined();
});
