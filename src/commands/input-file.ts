// A file given as input (`pets add --file`, `store api --input` and `-F key=@file`), opened and
// read so that Ctrl-C ends the wait even where no abort reaches: a FIFO's open waits for a
// writer, and its reads for data, in libuv's thread pool.
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { FlagError } from '../errors.js';
import { untilCtrlC } from '../reading.js';

/**
 * Refuses stdin that is no input: a directory (`< "$HOME"`), which Node reads as an empty
 * stream, or a file opened for writing only. Called before anything is read or sent by each
 * command that reads stdin as its input (`--input -`, `--file -`). A stream with no descriptor
 * (a test's) is left alone.
 */
export function checkStdinReadable(stdin: Readable): void {
  const fd = stdinFd(stdin);
  if (fd === undefined) return;
  const fs = process.getBuiltinModule('node:fs');
  let problem: string | undefined;
  try {
    const stats = fs.fstatSync(fd);
    if (stats.isDirectory()) problem = 'it is a directory';
    // A read at a position (pread) tells whether it may be read at all, and moves nothing.
    else if (stats.isFile()) fs.readSync(fd, Buffer.alloc(1), 0, 1, 0);
  } catch {
    problem = 'it is not open for reading';
  }
  if (problem) throw new FlagError(`cannot read stdin: ${problem}; nothing was sent`);
}

/**
 * Opens `file` for reading. On Ctrl-C while the open waits (a FIFO with no writer), the FIFO is
 * opened for writing here and closed, which releases the waiting open (then closed too): the
 * process can end as usual.
 */
export function openUntilCtrlC(file: string, signal: AbortSignal): Promise<FileHandle> {
  // fs/promises loads readline and fs streams: loaded only when a file is read.
  const opening = process.getBuiltinModule('node:fs/promises').open(file);
  return untilCtrlC(opening, signal, () => {
    opening.then((late) => late.close()).catch(() => {});
    releaseFifo(file);
  });
}

/** Opens and closes `file` for writing, without waiting, when it is a FIFO: a reader's open
 * that waits for a writer then returns. Anything else is left alone. */
function releaseFifo(file: string): void {
  const fs = process.getBuiltinModule('node:fs');
  try {
    if (!fs.statSync(file).isFIFO()) return;
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch {
    // Gone, or not ours to open: cli() still ends a process that stays held.
  }
}

/** The descriptor of a stdin that is one (a process's; not a test's stream). */
export function stdinFd(stdin: unknown): number | undefined {
  const fd = (stdin as { fd?: unknown }).fd;
  return typeof fd === 'number' ? fd : undefined;
}

/** A file as a bulk import knows it: its size, and its identity (`SIZE MTIME`), by which a
 * resume tells that it is still the file whose inputs the journal numbers. */
export interface InputFileFacts {
  bytes: number;
  identity: string;
}

export function fileFacts(stats: { size: number; mtimeMs: number }): InputFileFacts {
  return { bytes: stats.size, identity: `${stats.size} ${Math.trunc(stats.mtimeMs)}` };
}

/** What fileFacts says of a stdin that is a regular file (`< animals.ndjson`); nothing for a
 * pipe or a terminal. */
export function stdinFile(stdin: unknown): Partial<InputFileFacts> {
  const fd = stdinFd(stdin);
  if (fd === undefined) return {};
  try {
    const stats = process.getBuiltinModule('node:fs').fstatSync(fd);
    return stats.isFile() ? fileFacts(stats) : {};
  } catch {
    return {};
  }
}
