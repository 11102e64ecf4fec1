// Opening files in the config folder without following a symbolic link at the name and
// without waiting on a FIFO or a device: a config.json that is a named pipe would hang every
// command, completion included. No zod, no conf: completion uses this on every TAB.
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

// Windows has neither flag; there the checks rest on fstat alone.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** What stands at `path` when it is not a regular file. */
export class NotRegularFileError extends Error {
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}`);
  }
}

export function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** A file larger than its reader takes: not read at all. */
export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';

  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super(`${path} is larger than ${maxBytes} bytes`);
  }
}

/** The text of the regular file at `path`, or undefined when nothing is there. A symbolic
 * link, FIFO, device or folder at `path` throws NotRegularFileError at once, and one larger than
 * `maxBytes` FileTooLargeError. */
export function readRegularFile(
  path: string,
  maxBytes = Number.POSITIVE_INFINITY,
): { text: string; stats: Stats } | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new NotRegularFileError(path, 'a symbolic link');
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(path, kindOf(stats));
    if (stats.size > maxBytes) throw new FileTooLargeError(path, maxBytes);
    return { text: readFileSync(fd, 'utf8'), stats };
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens `path` for writing (emptied, or appended to), made with `mode` if missing: a symbolic
 * link at the name, a FIFO, a device or a folder throws NotRegularFileError at once. Output
 * files the user names (`pets add --failed`) are opened so: a FIFO's open would wait for a
 * reader where neither Ctrl-C nor SIGTERM reaches, and a link could point anywhere.
 */
export function openRegularForWriting(
  path: string,
  how: { append: boolean; mode: number },
): number {
  const append = how.append ? constants.O_APPEND : 0;
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting for one.
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | append | NOFOLLOW | NONBLOCK,
      how.mode,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new NotRegularFileError(path, 'a symbolic link');
    const found = lstatSync(path, { throwIfNoEntry: false });
    if (found && !found.isFile()) throw new NotRegularFileError(path, kindOf(found));
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(path, kindOf(stats));
    // Emptied only once known to be a regular file.
    if (!how.append) ftruncateSync(fd);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Creates `path` with `text`, mode 0600; throws EEXIST when anything (a link included) is there. */
export function createExclusive(path: string): number {
  return openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
    0o600,
  );
}

export function writeExclusive(path: string, text: string): void {
  const fd = createExclusive(path);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * A folder and its missing parents, each made with `mode` (an existing folder is fine), as
 * `mkdirSync(dir, { recursive: true })` does. Not that call: where a folder's parent exists
 * and the folder still cannot be made (ENOENT under /proc), Node's loops forever at full CPU.
 */
export function makeFolders(dir: string, mode: number): void {
  try {
    mkdirSync(dir, { mode });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(dir).isDirectory()) return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
  }
  makeFolders(dirname(dir), mode);
  try {
    mkdirSync(dir, { mode });
  } catch (error) {
    // Made meanwhile by another process: as good.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) {
      throw error;
    }
  }
}
