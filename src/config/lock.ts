// A lock beside config.json, so that `store` processes running at once take turns at the
// read–modify–write: without it 50 parallel `profile set` kept 1 profile of 50.
//
// Taking it: a draft file holding {pid, host, time, token} is hard-linked to `<file>.lock`;
// link() fails with EEXIST while another lock is there, and the lock appears whole, never
// empty. Removing it (on release, or because it is stale: its process is gone, or it is older
// than LOCK_STALE_MS) is done only by whoever first creates `<file>.lock.end-<token>` with
// O_EXCL, and only if the lock still holds that token. Two processes that both find the same
// lock stale can therefore never both remove it, nor remove the fresh lock a third process
// took in between. A claim left by a process that died holding it is succeeded by the next
// generation (`.end-<token>.1`, …), so nothing is left that blocks for ever.
// holdLock takes the same lock on any file for as long as a task runs (a bulk add's journal):
// such a lock is never stale for its age, only when its process is gone.
const { closeSync, ftruncateSync, linkSync, readdirSync, unlinkSync, writeSync } =
  process.getBuiltinModule('node:fs');
const { basename, dirname, join } = process.getBuiltinModule('node:path');

import { CancelledError, ConfigError } from '../errors.js';
import { isRunning } from '../pid.js';
import {
  createExclusive,
  NotRegularFileError,
  readRegularFile,
  writeExclusive,
} from './safe-fs.js';

/** How long a command waits for another process's lock before it gives up (exit 1). */
const LOCK_WAIT_MS = 10_000;
/** A lock held longer than this was left by a process that hung or died on another host:
 * a write holds it for milliseconds. */
export const LOCK_STALE_MS = 10_000;

export interface LockOptions {
  waitMs?: number;
  staleMs?: number;
  /** Ctrl-C: stop waiting (CancelledError, exit 130). */
  signal?: AbortSignal;
}

interface Holder {
  pid?: number;
  host?: string;
  time: number;
  token: string;
}

// Asked at the first lock (a write), not as the module loads: a read loads no node:os.
let host: string | undefined;
const ownHost = () => {
  host ??= process.getBuiltinModule('node:os').hostname();
  return host;
};
// store's own tokens, or the fallback identity of a lock file it did not write (inode-mtime):
// a token names a claim file, so nothing else is taken from a file's content.
const TOKEN = /^(?:[0-9a-f]{16}|\d+-\d+(?:\.\d+)?)$/;

/**
 * Runs `fn` holding `<target>.lock`. `fn` is synchronous, so the lock is held only for as
 * long as the read and the write take, and a signal cannot arrive in the middle of them.
 */
export async function withLock<T>(
  target: string,
  fn: () => T,
  options: LockOptions = {},
): Promise<T> {
  const lockPath = `${target}.lock`;
  const staleMs = options.staleMs ?? LOCK_STALE_MS;
  const token = await acquire(lockPath, { ...options, staleMs }, (holder) =>
    lockedError(lockPath, holder),
  );
  try {
    sweep(lockPath, staleMs);
    return fn();
  } finally {
    end(lockPath, token, staleMs);
  }
}

/** Who holds a lock that could not be taken, as a message can say it. */
export interface LockHolder {
  /** `store process 1234`, `… on other-host`, or `another process`. */
  by: string;
  /** How long it has held it. */
  seconds: number;
  /** The lock file, for the user to remove if no store holds it. */
  lockPath: string;
}

/**
 * Takes `<target>.lock` for a task that lasts (a bulk import holds its journal's), without
 * waiting, and returns its release. Age never makes it stale: only a holder on this host whose
 * process is gone (killed) gives it up. Held by another: throws `locked(holder)`.
 */
export async function holdLock(
  target: string,
  locked: (holder: LockHolder) => Error,
): Promise<() => void> {
  const lockPath = `${target}.lock`;
  const staleMs = Number.POSITIVE_INFINITY;
  const token = await acquire(lockPath, { waitMs: 0, staleMs }, (holder) =>
    locked(describeHolder(lockPath, holder)),
  );
  sweep(lockPath, staleMs);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    try {
      end(lockPath, token, staleMs);
    } catch {
      // Not removed (a full disk for the claim): left with this process's pid, it is taken
      // over by the next import once this process is gone.
    }
  };
}

async function acquire(
  lockPath: string,
  { waitMs = LOCK_WAIT_MS, staleMs = LOCK_STALE_MS, signal }: LockOptions,
  locked: (holder: Holder) => Error,
): Promise<string> {
  // node:crypto loaded here, not at the top: most commands never write the config.
  const token = process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex');
  const draft = `${lockPath}.new-${token}`;
  const fd = createExclusive(draft);
  const deadline = Date.now() + waitMs;
  let delay = 2;
  try {
    for (;;) {
      if (signal?.aborted) throw new CancelledError();
      // Stamped afresh before each try: the lock's age counts from when it was taken.
      ftruncateSync(fd, 0);
      writeSync(fd, stamp(token), 0);
      try {
        linkSync(draft, lockPath);
        return token;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readHolder(lockPath);
      if (holder === undefined) continue; // released in between: try again at once
      if (isStale(holder, staleMs) && end(lockPath, holder.token, staleMs)) continue;
      if (Date.now() >= deadline) throw locked(holder);
      try {
        // node:timers/promises loaded only when a lock is waited for.
        await process
          .getBuiltinModule('node:timers/promises')
          .setTimeout(delay + Math.random() * delay, undefined, { signal });
      } catch {
        throw new CancelledError();
      }
      delay = Math.min(delay * 2, 50);
    }
  } finally {
    closeSync(fd);
    unlinkQuietly(draft);
  }
}

/**
 * Removes the lock if it still holds `token`. Returns false when another live process is
 * already removing it (the caller waits), true when the lock no longer holds `token`.
 */
function end(lockPath: string, token: string, staleMs: number): boolean {
  const claim = claimEnd(lockPath, token, staleMs);
  if (claim === undefined) return false;
  try {
    if (readHolder(lockPath)?.token === token) unlinkSync(lockPath);
    return true;
  } finally {
    unlinkQuietly(claim);
  }
}

/** Drafts and claims left by processes killed while taking or ending a lock. Those of live
 * processes are kept: a waiting process stamps its draft afresh every few milliseconds. */
function sweep(lockPath: string, staleMs: number): void {
  const prefix = `${basename(lockPath)}.`;
  for (const name of readdirSync(dirname(lockPath))) {
    if (!name.startsWith(`${prefix}new-`) && !name.startsWith(`${prefix}end-`)) continue;
    const path = join(dirname(lockPath), name);
    try {
      const left = readHolder(path);
      if (left && isStale(left, partStaleMs(staleMs))) unlinkQuietly(path);
    } catch {
      // not a file store made: left alone
    }
  }
}

/** Drafts and claims live for milliseconds, however long the lock is held: one older than
 * LOCK_STALE_MS (an empty claim left by a full disk, whose process cannot be known) is stale,
 * even for a lock that age never frees. */
function partStaleMs(staleMs: number): number {
  return Number.isFinite(staleMs) ? staleMs : LOCK_STALE_MS;
}

function claimEnd(lockPath: string, token: string, staleMs: number): string | undefined {
  for (let generation = 0; generation < 100; generation++) {
    const claim = `${lockPath}.end-${token}${generation ? `.${generation}` : ''}`;
    try {
      writeExclusive(claim, stamp(token));
      return claim;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const other = readHolder(claim);
    // Gone: its claimant finished. Alive: it is ending the lock now.
    if (other === undefined || !isStale(other, partStaleMs(staleMs))) return undefined;
  }
  return undefined;
}

function stamp(token: string): string {
  return JSON.stringify({ pid: process.pid, host: ownHost(), time: Date.now(), token });
}

function readHolder(path: string): Holder | undefined {
  let file: ReturnType<typeof readRegularFile>;
  try {
    file = readRegularFile(path);
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      throw new ConfigError(`${path} is ${error.kind}, not a lock file of store; remove it`);
    }
    throw error;
  }
  if (file === undefined) return undefined;
  try {
    const { pid, host, time, token } = JSON.parse(file.text);
    if (
      Number.isSafeInteger(pid) &&
      typeof host === 'string' &&
      Number.isFinite(time) &&
      TOKEN.test(token)
    ) {
      return { pid, host, time, token };
    }
  } catch {
    // judged by its age below
  }
  // Not written by store (or cut short): its age decides, its identity is the file's own.
  return { time: file.stats.mtimeMs, token: `${file.stats.ino}-${file.stats.mtimeMs}` };
}

function isStale(holder: Holder, staleMs: number): boolean {
  if (holder.host === ownHost() && holder.pid !== undefined && !isRunning(holder.pid)) return true;
  // abs(): a clock set back must not make a lock look young for ever.
  return Math.abs(Date.now() - holder.time) > staleMs;
}

function describeHolder(lockPath: string, holder: Holder): LockHolder {
  let by = holder.pid === undefined ? 'another process' : `store process ${holder.pid}`;
  // A folder shared between machines (NFS): a pid of another host is not ours to check.
  if (holder.pid !== undefined && holder.host !== undefined && holder.host !== ownHost()) {
    by += /^[\w.-]{1,253}$/.test(holder.host) ? ` on ${holder.host}` : ' on another host';
  }
  const seconds = Math.max(0, Math.floor((Date.now() - holder.time) / 1000));
  return { by, seconds, lockPath };
}

function lockedError(lockPath: string, holder: Holder): ConfigError {
  const { by, seconds } = describeHolder(lockPath, holder);
  return new ConfigError(
    `the config file is locked by ${by} (for ${seconds} s); try again, or remove ${lockPath} if no store command is running`,
  );
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
