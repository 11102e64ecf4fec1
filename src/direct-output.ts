// stdout and stderr written with write(2) as each piece comes rather than through
// process.stdout: making that stream on a pipe and its first write took ≈2 ms of every
// command's start (the pipe's handle, the stream machinery), and libuv made the pipe
// non-blocking for every process that shares it.
//
// A file, a terminal or a device Node itself writes synchronously, so all of it goes directly.
// A pipe or a socket does not block Node's stream, which queues what the reader has not taken
// and keeps the event loop (and Ctrl-C) running; a direct write to a pipe whose reader has
// stopped would block the whole process. So a pipe is written directly only up to
// PIPE_DIRECT_BYTES, less than any pipe holds (a command's usual output: a list, an error
// line), and through the stream from there on, as is a write the pipe refuses (EAGAIN: one
// that some other program made non-blocking, and full).
import type { Writable } from 'node:stream';

const fs = process.getBuiltinModule('node:fs');

/** What may go to a pipe by write(2): less than the smallest pipe buffer (a page, on Linux
 * under a user's pipe limit; 16 KiB on macOS), so that no direct write waits for the reader. */
export const PIPE_DIRECT_BYTES = 4096;

/** What createIO needs of an output: writes, failures told as an event or thrown, and what is
 * still queued (a stream's). */
export interface OutputStream {
  write(chunk: string | Uint8Array): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  readonly writableLength?: number;
}

type WriteSync = (fd: number, data: string | Uint8Array) => number;

export class DirectOutput implements OutputStream {
  private stream: Writable | undefined;
  private readonly listeners: ((error: NodeJS.ErrnoException) => void)[] = [];
  private written = 0;

  /**
   * `makeStream` gives the process's stream for `fd`, made when first asked. At most
   * `directBytes` are written directly (Infinity: all; 0: every write goes to the stream, made
   * at the first one); the write that would pass it, and every one after it, go to the stream.
   */
  constructor(
    private readonly fd: number,
    private readonly makeStream: () => Writable,
    private readonly directBytes: number,
    private readonly writeSync: WriteSync = (fd, data) =>
      typeof data === 'string' ? fs.writeSync(fd, data) : fs.writeSync(fd, data),
  ) {}

  on(_event: 'error', listener: (error: NodeJS.ErrnoException) => void): this {
    this.listeners.push(listener);
    this.stream?.on('error', listener);
    return this;
  }

  /** Bytes the stream holds that have not been written yet (none while writes are direct). */
  get writableLength(): number {
    return this.stream?.writableLength ?? 0;
  }

  /** Writes the whole of `chunk`, or throws why it could not (EPIPE, ENOSPC, EIO…). */
  write(chunk: string | Uint8Array): boolean {
    if (this.stream) return this.stream.write(chunk);
    let size = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (this.written + size > this.directBytes) return this.toStream().write(chunk);
    this.written += size;
    let rest: string | Uint8Array = chunk;
    while (size > 0) {
      let written: number;
      try {
        written = this.writeSync(this.fd, rest);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        return this.toStream().write(rest);
      }
      size -= written;
      // Cut short (a signal): the rest, as bytes, from where it stopped.
      if (size > 0) rest = (typeof rest === 'string' ? Buffer.from(rest) : rest).subarray(written);
    }
    return true;
  }

  private toStream(): Writable {
    const stream = this.makeStream();
    for (const listener of this.listeners) stream.on('error', listener);
    this.stream = stream;
    return stream;
  }
}

/** What a descriptor is, for output: a terminal or not, and how much of it may be written
 * directly (DirectOutput). */
export interface OutputKind {
  terminal: boolean;
  directBytes: number;
}

/** The kind of `fd`: node:tty is asked only of a character device (it loads node:net). */
export function outputKind(fd: number): OutputKind {
  let stats: import('node:fs').Stats;
  try {
    stats = fs.fstatSync(fd);
  } catch {
    // Closed, or not ours to ask: the stream will say what it is.
    return { terminal: false, directBytes: 0 };
  }
  if (stats.isCharacterDevice()) {
    return { terminal: process.getBuiltinModule('node:tty').isatty(fd), directBytes: Infinity };
  }
  if (stats.isFile()) return { terminal: false, directBytes: Infinity };
  return { terminal: false, directBytes: PIPE_DIRECT_BYTES };
}
