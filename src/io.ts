// The process's streams and what is known about them. Commands write through this, so
// tests can run any command over buffers with any TTY setting.
import type { Readable, Writable } from 'node:stream';

const { getSystemErrorMessage } = process.getBuiltinModule('node:util');
const { isUtf8 } = process.getBuiltinModule('node:buffer');

import { CancelledError, FlagError } from './errors.js';
import { StatusBoard, type StatusLine } from './render/status.js';

export type { StatusLine };

export type Env = Readonly<Record<string, string | undefined>>;

export interface IOStreams {
  readonly stdin: Readable;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Whether ANSI colour may be written to stdout / stderr. */
  colorOut: boolean;
  colorErr: boolean;
  /** Cells per line of the terminal stdout is on (see terminalColumns). */
  readonly columns: number;
  /** Results; bytes where they must reach stdout as they are (`store api` in a pipe). */
  out(text: string | Uint8Array): void;
  err(text: string): void;
  /** Bytes written to stdout and stderr that their streams still hold. */
  readonly pendingOutput: number;
  /**
   * The error that stopped writes to stdout (ENOSPC, EIO, EPIPE when the reader left), once
   * it happened: later output is dropped, and a long command should stop.
   */
  readonly outputError: NodeJS.ErrnoException | undefined;
  /**
   * A transient line on stderr when it is a terminal (nothing otherwise): redrawn in place,
   * erased before any other output through out()/err() and drawn again after it.
   */
  status(text: string): StatusLine;
  /** A spinner with `label` on the status line if still waiting after 1 s; returns its stop. */
  waiting(label: string): () => void;
  /** Erases the status line for good (the program is ending). */
  clearStatus(): void;
  /**
   * What to say should the process be ended at once (a second Ctrl-C), where the command's own
   * report will not come: `note` is asked then (undefined: nothing to say). Returns its removal.
   */
  whenQuitAtOnce(note: () => string | undefined): () => void;
  /** The process is being ended at once: the status line erased, the note said (quitting). */
  quitAtOnce(): void;
  /** Reads stdin to its end as UTF-8 text, within `limit`. */
  readStdin(limit: TextLimit, signal?: AbortSignal): Promise<string>;
  /** Asks for a secret on the terminal without echoing it. */
  promptSecret(question: string, signal?: AbortSignal): Promise<string>;
  /** Asks for one line on the terminal, echoed as typed; Ctrl-C or Ctrl-D: CancelledError. */
  prompt(question: string, signal?: AbortSignal): Promise<string>;
}

/**
 * Whether colour is written, as gh decides it (no-color.org, bixense.com/clicolors): off for
 * --no-color and a non-empty NO_COLOR (an empty one is unset, no-color.org says); else on for
 * CLICOLOR_FORCE other than 0 and FORCE_COLOR other than 0 or false, even off a terminal; else
 * off for CLICOLOR=0 and TERM=dumb; else on a terminal only. A request for no colour wins over
 * one that forces it: the user who set NO_COLOR asked for none.
 */
export function colorAllowed(isTTY: boolean, env: Env, noColorFlag = false): boolean {
  if (noColorFlag || env.NO_COLOR) return false;
  const forced = env.CLICOLOR_FORCE;
  if (forced && forced !== '0') return true;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return isTTY && env.CLICOLOR !== '0' && env.TERM !== 'dumb';
}

/** Whether stderr may carry a line redrawn in place (spinner, progress): a terminal that
 * understands cursor moves; TERM=dumb would show the erase sequences as text. */
export function statusLineAllowed(isTTY: boolean, env: Env): boolean {
  return isTTY && env.TERM !== 'dumb';
}

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
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > limit.maxBytes) {
        stream.destroy();
        throw new FlagError(limit.tooLarge);
      }
      chunks.push(bytes);
    }
    return Buffer.concat(chunks);
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

export interface TTYReadable extends Readable {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Waits one turn of the event loop: a write that failed without throwing reports it by an
 * event (the next tick), so after this its error is in `outputError`. A write still queued
 * behind a full pipe may fail later still. */
export function writeErrorsArrived(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `no space left on device (ENOSPC)`: why output could not be written, in one phrase. */
export function describeWriteError(error: NodeJS.ErrnoException): string {
  let text = error.message;
  if (typeof error.errno === 'number') {
    try {
      text = getSystemErrorMessage(error.errno);
    } catch {
      // Not a system error number: the message as it is.
    }
  }
  text = text.charAt(0).toLowerCase() + text.slice(1);
  return error.code ? `${text} (${error.code})` : text;
}

const DEFAULT_COLUMNS = 80;

/**
 * The width of the terminal a stream is on: COLUMNS when it is a positive integer (as `ls`
 * does: a script or a test can set any width), else the terminal's own, else 80.
 */
export function terminalColumns(env: Env, stream: { isTTY?: boolean; columns?: number }): number {
  const fromEnv = Number(env.COLUMNS);
  if (env.COLUMNS?.trim() && Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  if (stream.isTTY && stream.columns !== undefined && stream.columns > 0) return stream.columns;
  return DEFAULT_COLUMNS;
}

/** What createIO needs of an output: writes, failures told as an event or thrown, and what is
 * still queued. */
export interface OutputStream {
  write(chunk: string | Uint8Array): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  readonly writableLength?: number;
}

export interface IOParts {
  stdin: Readable;
  stdout: OutputStream;
  stderr: OutputStream;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  colorOut: boolean;
  colorErr: boolean;
  /** Lines redrawn in place on stderr (statusLineAllowed); stderrIsTTY when not given. */
  statusLine?: boolean;
  /** Widths of stdout's and stderr's terminals, read when needed (a terminal can be resized). */
  columns: () => number;
  stderrColumns: () => number;
  readStdin: (limit: TextLimit, signal?: AbortSignal) => Promise<string>;
  promptSecret: (question: string, signal?: AbortSignal) => Promise<string>;
  /** Absent where nothing can be asked: a prompt is then cancelled. */
  prompt?: (question: string, signal?: AbortSignal) => Promise<string>;
  /** How long a wait goes before its spinner shows (tests shorten it); 1 s when not given. */
  spinnerDelayMs?: number;
}

/** IOStreams over two writable streams: the status line, and write errors caught. */
export function createIO(parts: IOParts): IOStreams {
  const { stdout, stderr, stdoutIsTTY, stderrIsTTY } = parts;
  let outputError: NodeJS.ErrnoException | undefined;
  let errorError: NodeJS.ErrnoException | undefined;
  let quitNote: (() => string | undefined) | undefined;
  const board = new StatusBoard(
    parts.statusLine ?? stderrIsTTY,
    (text) => writeErr(text),
    parts.stderrColumns,
  );

  // A stream that fails (a full disk, a closed pipe) fails once: later writes are dropped,
  // and the failure is kept for the command and the exit code instead of being thrown.
  const writeErr = (text: string) => {
    if (errorError) return;
    try {
      stderr.write(text);
    } catch (error) {
      errorError ??= error as NodeJS.ErrnoException;
    }
  };
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    outputError ??= error;
  });
  stderr.on('error', (error: NodeJS.ErrnoException) => {
    errorError ??= error;
  });

  return {
    // Read from parts when asked: process.stdin, made on first use, is a file stream when
    // stdin is a file or /dev/null, and that loads fs/promises and readline (≈3 ms).
    get stdin() {
      return parts.stdin;
    },
    get stdinIsTTY() {
      return parts.stdinIsTTY;
    },
    stdoutIsTTY,
    stderrIsTTY,
    colorOut: parts.colorOut,
    colorErr: parts.colorErr,
    get columns() {
      return parts.columns();
    },
    get outputError() {
      return outputError;
    },
    get pendingOutput() {
      return (stdout.writableLength ?? 0) + (stderr.writableLength ?? 0);
    },
    out: (text) => {
      if (outputError) return;
      // Output to a pipe does not reach the terminal: the status line stays.
      if (stdoutIsTTY) board.beforeWrite();
      try {
        stdout.write(text);
      } catch (error) {
        outputError ??= error as NodeJS.ErrnoException;
      }
      if (stdoutIsTTY) board.afterWrite(text);
    },
    err: (text) => {
      board.beforeWrite();
      writeErr(text);
      board.afterWrite(text);
    },
    status: (text) => board.show(text),
    waiting: (label) => board.waiting(label, parts.spinnerDelayMs),
    clearStatus: () => board.clear(),
    whenQuitAtOnce: (note) => {
      quitNote = note;
      return () => {
        if (quitNote === note) quitNote = undefined;
      };
    },
    quitAtOnce: () => {
      board.clear();
      const note = quitNote?.();
      if (note !== undefined) writeErr(note);
    },
    readStdin: parts.readStdin,
    promptSecret: (question, signal) => holdingStatus(() => parts.promptSecret(question, signal)),
    prompt: (question, signal) => {
      const ask = parts.prompt;
      return ask
        ? holdingStatus(() => ask(question, signal))
        : Promise.reject(new CancelledError());
    },
  };

  // A prompt owns the line it is typed on: the status line waits until it is answered.
  async function holdingStatus<T>(ask: () => Promise<T>): Promise<T> {
    board.hold();
    try {
      return await ask();
    } finally {
      board.release();
    }
  }
}

interface SystemProcess {
  stdin: TTYReadable;
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Env;
}

/** IOStreams over the process's own. */
export function systemIO(proc: SystemProcess): IOStreams {
  const stdoutIsTTY = proc.stdout.isTTY === true;
  const stderrIsTTY = proc.stderr.isTTY === true;
  return createIO({
    get stdin() {
      return proc.stdin;
    },
    stdout: proc.stdout,
    stderr: proc.stderr,
    get stdinIsTTY() {
      return proc.stdin.isTTY === true;
    },
    stdoutIsTTY,
    stderrIsTTY,
    colorOut: colorAllowed(stdoutIsTTY, proc.env),
    colorErr: colorAllowed(stderrIsTTY, proc.env),
    statusLine: statusLineAllowed(stderrIsTTY, proc.env),
    columns: () => terminalColumns(proc.env, proc.stdout),
    stderrColumns: () => terminalColumns(proc.env, proc.stderr),
    readStdin: (limit, signal) => readAll(proc.stdin, limit, signal),
    // The prompts are loaded when asked: most commands never prompt.
    promptSecret: async (question, signal) =>
      (await import('./prompt.js')).promptHidden(proc.stdin, proc.stderr, question, signal),
    prompt: async (question, signal) =>
      (await import('./prompt.js')).promptLine(proc.stdin, proc.stderr, question, signal),
  });
}
