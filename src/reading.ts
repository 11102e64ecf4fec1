// Reading a stream whole (stdin, a file given as input), within a limit and until Ctrl-C.
import type { Readable } from 'node:stream';
import { GrowingBytes } from './bytes.js';
import { CancelledError, FlagError } from './errors.js';

const { isUtf8 } = process.getBuiltinModule('node:buffer');

/** The most a command reads from a stream, and what it says past that. */
export interface ReadLimit {
  maxBytes: number;
  tooLarge: string;
}

/** A text read whole, and what is said when its bytes are not UTF-8. */
export interface TextLimit extends ReadLimit {
  notText: string;
}

/** Reads a stream to its end as UTF-8 text: bytes that are not UTF-8 are a usage error, not
 * text with U+FFFD where a Latin-1 export had its letters. */
export async function readAll(
  stream: Readable,
  limit: TextLimit,
  signal?: AbortSignal,
): Promise<string> {
  return utf8Text(await readAllBytes(stream, limit, signal), limit.notText);
}

/** `bytes` as text, or the usage error `notText` when they are not UTF-8. */
export function utf8Text(bytes: Buffer, notText: string): string {
  if (!isUtf8(bytes)) throw new FlagError(notText);
  return bytes.toString('utf8');
}

/** Reads a stream to its end as bytes (a body to send as it is: `store api --input -`), at
 * most `limit.maxBytes`: past that a usage error at once, the stream destroyed (/dev/zero, a
 * `yes` would fill the memory). Ctrl-C ends it at once, and destroys the stream. */
export async function readAllBytes(
  stream: Readable,
  limit: ReadLimit,
  signal?: AbortSignal,
): Promise<Buffer> {
  const reading = (async () => {
    const gathered = new GrowingBytes();
    for await (const chunk of stream) {
      const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (gathered.size + bytes.length > limit.maxBytes) {
        stream.destroy();
        throw new FlagError(limit.tooLarge);
      }
      gathered.add(bytes);
    }
    return gathered.bytes();
  })();
  return signal ? untilCtrlC(reading, signal, () => stream.destroy()) : reading;
}

/**
 * `work`, or CancelledError as soon as `signal` aborts (`onAbort` then runs), also when it had
 * already: the work itself may go on where nothing stops it (a read of a FIFO in libuv's thread
 * pool; cli() ends a process it still holds).
 */
export function untilCtrlC<T>(
  work: Promise<T>,
  signal: AbortSignal,
  onAbort: () => void = () => {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      onAbort();
      reject(new CancelledError());
    };
    // Handled first, whatever comes: a failure of the work after Ctrl-C (a destroyed stream's
    // "premature close") must not be an unhandled rejection.
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}
