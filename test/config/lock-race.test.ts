// The lock's one race that cannot be timed from outside: its holder releases it between our
// failed link and our read of it. A stand-in for safe-fs removes the lock at that read.
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { afterThisTest } from '../helpers/cleanup.js';
import { tempDir } from '../helpers/cli.js';

it('takes a lock released between its failed link and its read, rather than assume it held', async () => {
  let releaseAtRead: string | undefined;
  vi.doMock('../../src/config/safe-fs.js', async (importOriginal) => {
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
  afterThisTest(() => vi.doUnmock('../../src/config/safe-fs.js'));
  // A copy of the module of its own (files share one module graph here: vitest.config.ts),
  // which imports the stand-in.
  const copy: string = '../../src/config/lock.js?release-race';
  const { withLock } = (await import(copy)) as typeof import('../../src/config/lock.js');
  const target = join(tempDir(), 'config.json');
  const lock = `${target}.lock`;
  const live = { pid: process.pid, host: hostname(), time: Date.now(), token: '0123456789abcdef' };
  writeFileSync(lock, JSON.stringify(live));
  releaseAtRead = lock;
  expect(await withLock(target, () => existsSync(lock), { waitMs: 2000 })).toBe(true);
  expect(releaseAtRead).toBeUndefined();
});
