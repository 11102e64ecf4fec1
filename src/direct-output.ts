// stdout and stderr, when they are a pipe or a file, written with write(2) as each piece comes
// rather than through process.stdout: making that stream on a pipe and its first write took
// ≈2 ms of every command's start (the pipe's handle, the stream machinery), and libuv made the
// pipe non-blocking for every process that shares it. A write the pipe cannot take at once
// (EAGAIN: one that someone else made non-blocking, and full) goes to the stream instead, and
// everything after it too, which waits for the reader as Node's own does.
import type { Writable } from 'node:stream';

const fs = process.getBuiltinModule('node:fs');

/** What createIO needs of an output: writes, and failures told as an event or thrown. */
export interface OutputStream {
  write(chunk: string | Uint8Array): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

type WriteSync = (fd: number, data: string | Uint8Array) => number;

export class DirectOutput implements OutputStream {
  private stream: Writable | undefined;
  private readonly listeners: ((error: NodeJS.ErrnoException) => void)[] = [];

  /**
   * `makeStream` gives the process's stream for `fd`, made when first asked. Not `direct`:
   * every write goes to that stream (a terminal's), made at the first one.
   */
  constructor(
    private readonly fd: number,
    private readonly makeStream: () => Writable,
    private readonly direct: boolean,
    private readonly writeSync: WriteSync = (fd, data) =>
      typeof data === 'string' ? fs.writeSync(fd, data) : fs.writeSync(fd, data),
  ) {}

  on(_event: 'error', listener: (error: NodeJS.ErrnoException) => void): this {
    this.listeners.push(listener);
    this.stream?.on('error', listener);
    return this;
  }

  /** Writes the whole of `chunk`, or throws why it could not (EPIPE, ENOSPC, EIO…). */
  write(chunk: string | Uint8Array): boolean {
    if (this.stream) return this.stream.write(chunk);
    if (!this.direct) return this.toStream().write(chunk);
    let rest: string | Uint8Array = chunk;
    let size = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    while (size > 0) {
      let written: number;
      try {
        written = this.writeSync(this.fd, rest);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        return this.toStream().write(rest);
      }
      size -= written;
      // Cut short (a signal, a pipe filling up): the rest, as bytes, from where it stopped.
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

/** Whether `fd` is a terminal, asked of node:tty only for a character device: a pipe or a
 * file is none, and node:tty loads node:net. */
export function isTerminal(fd: number): boolean {
  try {
    if (!fs.fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return process.getBuiltinModule('node:tty').isatty(fd);
}
