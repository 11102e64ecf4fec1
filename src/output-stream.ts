// One output stream (stdout or stderr) as the program writes it: the first failure kept
// instead of thrown, later writes dropped, and writes that can be waited for — room for more
// (back-pressure, so that a long output is held in a buffer, not whole in memory) and every
// byte handed to the system (so that a failure after the last write still sets the exit code).
import { fileProblem } from './file-errors.js';

/** What a GuardedOutput needs of a stream: Node's Writable, or a stand-in in tests. */
export interface OutputStream {
  write(chunk: string | Uint8Array, done?: (error?: Error | null) => void): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
  readonly writableLength?: number;
  readonly writableNeedDrain?: boolean;
}

export class GuardedOutput {
  private failure: NodeJS.ErrnoException | undefined;
  /** Writes whose callback has not come yet. */
  private unfinished = 0;
  private whenFinished: (() => void)[] = [];
  private whenRoom: (() => void)[] = [];

  constructor(private readonly stream: OutputStream) {
    stream.on('error', (error) => this.fail(error));
  }

  /** Why writes stopped (ENOSPC, EIO, EPIPE when the reader left), once they did. */
  get error(): NodeJS.ErrnoException | undefined {
    return this.failure;
  }

  /** Bytes the stream holds that the system has not taken yet. */
  get pending(): number {
    return this.stream.writableLength ?? 0;
  }

  /** Writes `chunk` whole, or nothing once the stream failed. */
  write(chunk: string | Uint8Array): void {
    if (this.failure) return;
    this.unfinished += 1;
    try {
      this.stream.write(chunk, (error) => this.written(error));
    } catch (error) {
      // A stream written synchronously (a file) may throw instead of calling back.
      this.written(error as Error);
    }
  }

  /** Resolves once the stream can take more (at once if it can), or has failed. */
  room(): Promise<void> {
    if (this.failure || !this.stream.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.stream.off('drain', done);
        this.whenRoom = this.whenRoom.filter((other) => other !== done);
        resolve();
      };
      this.whenRoom.push(done);
      this.stream.once('drain', done);
    });
  }

  /** Resolves once every write so far has been handed to the system, or has failed. */
  flushed(): Promise<void> {
    if (this.unfinished === 0) return Promise.resolve();
    return new Promise((resolve) => this.whenFinished.push(resolve));
  }

  private written(error: Error | null | undefined): void {
    // After a failure the count was reset: late callbacks count for nothing.
    if (this.unfinished > 0) this.unfinished -= 1;
    if (error) this.fail(error as NodeJS.ErrnoException);
    else if (this.unfinished === 0) this.release('whenFinished');
  }

  private fail(error: NodeJS.ErrnoException): void {
    this.failure ??= error;
    // Nothing more will drain or finish: whoever waits goes on, and sees the error.
    this.release('whenRoom');
    this.unfinished = 0;
    this.release('whenFinished');
  }

  private release(which: 'whenRoom' | 'whenFinished'): void {
    const waiting = this[which];
    this[which] = [];
    for (const resolve of waiting) resolve();
  }
}

/** `no space left on device (ENOSPC)`: why output could not be written, in one phrase. */
export function describeWriteError(error: NodeJS.ErrnoException): string {
  const text = fileProblem(error);
  return error.code ? `${text} (${error.code})` : text;
}
