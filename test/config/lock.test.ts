// The lock beside config.json, in-process: stale locks broken, live ones waited for (bounded,
// abortable), claims of other processes respected.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { holdLock, type LockHolder, withLock } from '../../src/config/lock.js';
import { CancelledError, ConfigError } from '../../src/errors.js';
import { afterThisTest } from '../helpers/cleanup.js';
import { tempDir } from '../helpers/cli.js';

const TOKEN = '0123456789abcdef';
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid as number;

function setup() {
  const dir = tempDir();
  const target = join(dir, 'config.json');
  return { dir, target, lock: `${target}.lock` };
}

function holder(pid: number, ageMs = 0, token = TOKEN): string {
  return JSON.stringify({ pid, host: hostname(), time: Date.now() - ageMs, token });
}

describe('withLock', () => {
  it('holds <file>.lock while the function runs, and removes it after', async () => {
    const { dir, target, lock } = setup();
    const seen = await withLock(target, () => JSON.parse(readFileSync(lock, 'utf8')));
    expect(seen).toMatchObject({ pid: process.pid, host: hostname() });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('removes the lock also when the function throws', async () => {
    const { dir, target } = setup();
    await expect(
      withLock(target, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('breaks a lock whose process is gone', async () => {
    const { dir, target, lock } = setup();
    writeFileSync(lock, holder(deadPid()));
    expect(await withLock(target, () => 'ran', { waitMs: 0 })).toBe('ran');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('breaks a lock older than the bound even if its process runs', async () => {
    const { dir, target, lock } = setup();
    writeFileSync(lock, holder(process.pid, 60_000));
    expect(await withLock(target, () => 'ran', { waitMs: 0, staleMs: 30_000 })).toBe('ran');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('judges a lock file it did not write by its age', async () => {
    const { target, lock } = setup();
    writeFileSync(lock, '');
    await expect(withLock(target, () => 'ran', { waitMs: 50 })).rejects.toThrow(
      `the config file is locked by another process (for 0 s); try again, or remove ${lock} if no store command is running`,
    );
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(await withLock(target, () => 'ran', { waitMs: 0 })).toBe('ran');
  });

  it('waits for a live lock, then gives up with a clear error, leaving it alone', async () => {
    const { target, lock } = setup();
    const live = holder(process.pid, 3_000);
    writeFileSync(lock, live);
    let ran = false;
    const error = await withLock(
      target,
      () => {
        ran = true;
      },
      { waitMs: 200 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      `the config file is locked by store process ${process.pid} (for 3 s); try again, or remove ${lock} if no store command is running`,
    );
    expect(ran).toBe(false);
    expect(readFileSync(lock, 'utf8')).toBe(live);
  });

  it('leaves alone a young lock of another host, whatever its pid is here', async () => {
    const { target, lock } = setup();
    // The pid is dead on this machine; the lock is another machine's (a shared config folder).
    const other = JSON.stringify({
      pid: deadPid(),
      host: 'other-host',
      time: Date.now(),
      token: TOKEN,
    });
    writeFileSync(lock, other);
    const pid = JSON.parse(other).pid;
    await expect(withLock(target, () => 'ran', { waitMs: 100 })).rejects.toThrow(
      new ConfigError(
        `the config file is locked by store process ${pid} on other-host (for 0 s); try again, or remove ${lock} if no store command is running`,
      ),
    );
    expect(readFileSync(lock, 'utf8')).toBe(other);
  });

  it('takes the lock as soon as its holder releases it', async () => {
    const { dir, target, lock } = setup();
    writeFileSync(lock, holder(process.pid));
    const order: string[] = [];
    const waiting = withLock(target, () => order.push('second'));
    setTimeout(() => {
      order.push('first');
      unlinkSync(lock);
    }, 100);
    await waiting;
    expect(order).toEqual(['first', 'second']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops waiting on abort (Ctrl-C) with CancelledError', async () => {
    const { target, lock } = setup();
    const live = holder(process.pid);
    writeFileSync(lock, live);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await withLock(target, () => 'ran', {
      signal: controller.signal,
      waitMs: 10_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelledError);
    expect(readFileSync(lock, 'utf8')).toBe(live);
  });

  it('leaves a stale lock to the live process that claimed its removal', async () => {
    const { target, lock } = setup();
    const stale = holder(deadPid());
    writeFileSync(lock, stale);
    writeFileSync(`${lock}.end-${TOKEN}`, holder(process.pid));
    await expect(withLock(target, () => 'ran', { waitMs: 100 })).rejects.toBeInstanceOf(
      ConfigError,
    );
    expect(readFileSync(lock, 'utf8')).toBe(stale);
  });

  it('takes over from a claimant that died: the next generation of the claim', async () => {
    const { dir, target, lock } = setup();
    writeFileSync(lock, holder(deadPid()));
    writeFileSync(`${lock}.end-${TOKEN}`, holder(deadPid()));
    expect(await withLock(target, () => 'ran', { waitMs: 0 })).toBe('ran');
    // The dead claimant's file is swept once the lock is held.
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses at once a lock path that is not a regular file', async () => {
    const { target, lock } = setup();
    execFileSync('mkfifo', [lock]);
    await expect(withLock(target, () => 'ran')).rejects.toThrow(
      `${lock} is a FIFO (named pipe), not a lock file of store; remove it`,
    );
  });

  it('leaves, at its end, a lock another process took meanwhile (it had broken ours as stale)', async () => {
    const { target, lock } = setup();
    const other = holder(process.pid, 0, 'fedcba9876543210');
    await withLock(target, () => writeFileSync(lock, other));
    // Removing it would let a third process write beside the one holding it now.
    expect(readFileSync(lock, 'utf8')).toBe(other);
  });

  it('says a lock stamped a few seconds ahead (another clock) is held for 0 s, not minus 5', async () => {
    const { target, lock } = setup();
    writeFileSync(lock, holder(process.pid, -5_000));
    await expect(withLock(target, () => 'ran', { waitMs: 0 })).rejects.toThrow(
      new ConfigError(
        `the config file is locked by store process ${process.pid} (for 0 s); try again, or remove ${lock} if no store command is running`,
      ),
    );
  });

  it('breaks a lock stamped an hour ahead (the clock was set back since)', async () => {
    const { target, lock } = setup();
    writeFileSync(lock, holder(process.pid, -3_600_000));
    expect(await withLock(target, () => 'ran', { waitMs: 0 })).toBe('ran');
  });

  it('does not print a lock file’s host name holding control characters', async () => {
    const { target, lock } = setup();
    const host = 'x\u001b]0;pwned\u0007';
    writeFileSync(lock, JSON.stringify({ pid: 1, host, time: Date.now(), token: TOKEN }));
    await expect(withLock(target, () => 'ran', { waitMs: 0 })).rejects.toThrow(
      new ConfigError(
        `the config file is locked by store process 1 on another host (for 0 s); try again, or remove ${lock} if no store command is running`,
      ),
    );
  });

  it('takes no lock and runs nothing once Ctrl-C came, even with the lock free', async () => {
    const { dir, target } = setup();
    const error = await withLock(target, () => 'ran', { signal: AbortSignal.abort() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CancelledError);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('counts a process of another user (EPERM to signal 0) as running: its lock is waited for', async () => {
    const { target, lock } = setup();
    const pid = deadPid();
    const live = holder(pid);
    writeFileSync(lock, live);
    const kill = vi.spyOn(process, 'kill').mockImplementation((target) => {
      if (target !== pid) return true;
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    afterThisTest(() => kill.mockRestore());
    await expect(withLock(target, () => 'ran', { waitMs: 0 })).rejects.toBeInstanceOf(ConfigError);
    expect(readFileSync(lock, 'utf8')).toBe(live);
  });
});

describe('holdLock (a bulk import holding its journal)', () => {
  const refused = (holder: LockHolder) =>
    new Error(`held by ${holder.by} for ${holder.seconds} s: ${holder.lockPath}`);

  it('holds <file>.lock until released, refusing another at once; released twice is once', async () => {
    const { dir, target, lock } = setup();
    const release = await holdLock(target, refused);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({
      pid: process.pid,
      host: hostname(),
    });
    await expect(holdLock(target, refused)).rejects.toThrow(
      new Error(`held by store process ${process.pid} for 0 s: ${lock}`),
    );
    release();
    expect(readdirSync(dir)).toEqual([]);
    const again = await holdLock(target, refused);
    release();
    // The first release, given again, leaves the new holder's lock alone.
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid });
    again();
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ['the lock of a process that is gone (kill -9), however young', () => {}],
    [
      'a dead holder’s lock past an empty claim to end it, left by a full disk',
      // Its process died while it claimed the lock's end (a write cut short: no pid in it).
      (lock: string) => {
        const claim = `${lock}.end-${TOKEN}`;
        writeFileSync(claim, '');
        utimesSync(claim, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      },
    ],
  ])('takes over %s', async (_what, leftBehind: (lock: string) => void) => {
    const { dir, target, lock } = setup();
    writeFileSync(lock, holder(deadPid()));
    leftBehind(lock);
    const release = await holdLock(target, refused);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid });
    release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('gives up its lock without throwing, even when it cannot claim its end', async () => {
    const { dir, target, lock } = setup();
    const release = await holdLock(target, refused);
    const { token } = JSON.parse(readFileSync(lock, 'utf8'));
    // A folder where the claim would be written: the end cannot be claimed.
    mkdirSync(`${lock}.end-${token}`);
    expect(() => release()).not.toThrow();
    expect(readdirSync(dir).sort()).toEqual(['config.json.lock', `config.json.lock.end-${token}`]);
  });

  it('never takes one for its age: an import may hold it for hours', async () => {
    const { target, lock } = setup();
    const day = holder(process.pid, 86_400_000);
    writeFileSync(lock, day);
    await expect(holdLock(target, refused)).rejects.toThrow(
      new Error(`held by store process ${process.pid} for 86400 s: ${lock}`),
    );
    // Nor one written by something else, whatever its age.
    writeFileSync(lock, '');
    utimesSync(lock, new Date(0), new Date(0));
    await expect(holdLock(target, refused)).rejects.toThrow(/^held by another process for \d+ s: /);
    expect(readFileSync(lock, 'utf8')).toBe('');
  });
});
