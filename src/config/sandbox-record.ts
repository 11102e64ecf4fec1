// Where a running `store sandbox` is: sandbox.json in the config folder lists the sandboxes
// that run (newest last) with their base URL, pid and process start time, so that
// `store -p sandbox …` reaches one on any port. Each sandbox adds itself when it starts and
// takes itself out when it stops; an entry whose process no longer runs is ignored (and
// dropped at the next write). Reading is one small file read plus a liveness check, done only
// when the built-in sandbox profile is in use; it loads nothing else.
const { readFileSync, renameSync, rmSync, writeFileSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');

import { isLoopbackHost } from '../api/urls.js';
import type { Env } from '../env.js';
import { isRunning } from '../pid.js';
import { configDir } from './dir.js';
import { makeFolders, readRegularFile } from './safe-fs.js';

export const RECORD_FILE = 'sandbox.json';

export interface SandboxEntry {
  url: string;
  pid: number;
  /** The process's start time (Linux: /proc/<pid>/stat, in clock ticks since boot); it tells
   * a reused pid from the sandbox's own. Null where it is not cheaply known. */
  started: string | null;
}

/** Start time of a process, or null when the platform does not tell it cheaply. */
export function startTime(pid: number | 'self'): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name (which may hold spaces and parentheses); starttime is
    // field 22, the 20th after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isSandboxRunning(entry: SandboxEntry): boolean {
  if (!isRunning(entry.pid)) return false;
  if (entry.started === null) return true; // pid reuse cannot be told apart here
  const now = startTime(entry.pid);
  return now === null || now === entry.started;
}

function isEntry(value: unknown): value is SandboxEntry {
  const entry = value as SandboxEntry;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.url === 'string' &&
    Number.isSafeInteger(entry.pid) &&
    entry.pid > 0 &&
    (entry.started === null || typeof entry.started === 'string')
  );
}

/** Only a plain-http loopback URL is taken from the record: the sandbox's key goes nowhere else. */
function isSandboxUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** The entries in the record, oldest first; [] when there is none or it is unreadable. A
 * symlink, FIFO or device in its place is not followed nor waited on (as for config.json). */
export function readEntries(dir: string): SandboxEntry[] {
  let text: string;
  try {
    const found = readRegularFile(join(dir, RECORD_FILE));
    if (found === undefined) return [];
    text = found.text;
  } catch {
    return [];
  }
  try {
    const entries = (JSON.parse(text) as { sandboxes?: unknown }).sandboxes;
    return Array.isArray(entries) ? entries.filter(isEntry) : [];
  } catch {
    return [];
  }
}

/** The base URL of the newest sandbox that still runs, if any. */
export function runningSandboxUrl(env: Env): string | undefined {
  return readEntries(configDir(env))
    .reverse()
    .find((entry) => isSandboxUrl(entry.url) && isSandboxRunning(entry))?.url;
}

/** Writes the record atomically, mode 0600: a new file (O_EXCL never follows a symlink)
 * renamed over the old one (rename replaces a symlink, not what it points to). */
function writeEntries(dir: string, entries: SandboxEntry[]): void {
  const file = join(dir, RECORD_FILE);
  if (entries.length === 0) return void rmSync(file, { force: true });
  makeFolders(dir, 0o700);
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify({ sandboxes: entries }, null, 2)}\n`, {
      flag: 'wx',
      mode: 0o600,
    });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

export interface Published {
  /** Takes this process's entry out (another sandbox's stays). */
  remove(): Promise<void>;
}

/** Records this process as a running sandbox at `url` (newest last). Rejects when the config
 * folder cannot be written; the sandbox runs on without a record then. */
export async function publishSandbox(dir: string, url: string): Promise<Published> {
  const self: SandboxEntry = { url, pid: process.pid, started: startTime('self') };
  const others = () =>
    readEntries(dir).filter((entry) => entry.pid !== self.pid && isSandboxRunning(entry));
  // Each change reads the record and writes it back under the config folder's lock for it: a
  // sandbox stopping while another starts wrote the record as it had read it, without the
  // newcomer. Loaded here: reading the record (every `-p sandbox` command) needs no lock.
  const { withLock } = await import('./lock.js');
  makeFolders(dir, 0o700);
  const file = join(dir, RECORD_FILE);
  await withLock(file, () => writeEntries(dir, [...others(), self]));
  return {
    remove: () => withLock(file, () => writeEntries(dir, others())),
  };
}
