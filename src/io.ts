// The process's streams (stdin, stdout, stderr) as commands use them, with the status line
// on stderr and the prompts. Commands write through this, so tests can run any command over
// buffers with any TTY setting.
import type { Readable, Writable } from 'node:stream';
import type { Env } from './env.js';
import { CancelledError } from './errors.js';
import { GuardedOutput, type OutputStream } from './output-stream.js';
import { readAll, type TextLimit } from './reading.js';
import { StatusBoard, type StatusLine } from './render/status.js';
import { fitLines, textWidth } from './render/width.js';
import { colorAllowed, statusLineAllowed, type TTYReadable, terminalColumns } from './terminal.js';

export type { StatusLine };

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
  /** Messages; on a terminal each whole line is fitted to its width, unless `asIs` (a --debug
   * trace, whose bodies and headers are read whole). */
  err(text: string, asIs?: boolean): void;
  /** Bytes written to stdout and stderr that their streams still hold. */
  readonly pendingOutput: number;
  /**
   * The error that stopped writes to stdout (ENOSPC, EIO, EPIPE when the reader left), once
   * it happened: later output is dropped, and a long command should stop.
   */
  readonly outputError: NodeJS.ErrnoException | undefined;
  /** The same for stderr. */
  readonly errorOutputError: NodeJS.ErrnoException | undefined;
  /**
   * Resolves once stdout can take more (at once when it can) or has failed: a long output
   * waits for it between pieces, so that a slow reader holds it in a buffer, not in memory.
   */
  outputRoom(): Promise<void>;
  /** Resolves once everything written to stdout and stderr reached the system, or failed. */
  flushed(): Promise<void>;
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

/** Waits one turn of the event loop: a write that failed without throwing reports it by an
 * event (the next tick), so after this its error is in `outputError`. */
export function writeErrorsArrived(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
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
  const { stdoutIsTTY, stderrIsTTY } = parts;
  // A stream that fails (a full disk, a closed pipe) fails once: later writes are dropped,
  // and the failure is kept for the command and the exit code instead of being thrown.
  const stdout = new GuardedOutput(parts.stdout);
  const stderr = new GuardedOutput(parts.stderr);
  let quitNote: (() => string | undefined) | undefined;
  const writeErr = (text: string) => stderr.write(text);
  const board = new StatusBoard(parts.statusLine ?? stderrIsTTY, writeErr, parts.stderrColumns);

  return {
    // Read from parts when asked: process.stdin, made on first use, is a file stream when
    // stdin is a file or /dev/null, and that loads fs/promises and readline.
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
      return stdout.error;
    },
    get errorOutputError() {
      return stderr.error;
    },
    get pendingOutput() {
      return stdout.pending + stderr.pending;
    },
    outputRoom: () => stdout.room(),
    flushed: async () => {
      await Promise.all([stdout.flushed(), stderr.flushed()]);
    },
    out: (text) => {
      if (stdout.error) return;
      // Output to a pipe does not reach the terminal: the status line stays.
      if (stdoutIsTTY) board.beforeWrite();
      stdout.write(text);
      if (stdoutIsTTY) board.afterWrite(text);
    },
    err: (text, asIs = false) => {
      // On a terminal every line fits its width, wrapped between words (docs/messages.md);
      // a pipe or a file gets each line whole.
      const shown = stderrIsTTY && !asIs ? fitLines(text, parts.stderrColumns()) : text;
      board.beforeWrite();
      writeErr(shown);
      board.afterWrite(shown);
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
    promptSecret: (question, signal) =>
      holdingStatus(question, (last) => parts.promptSecret(last, signal)),
    prompt: (question, signal) => {
      const ask = parts.prompt;
      return ask
        ? holdingStatus(question, (last) => ask(last, signal))
        : Promise.reject(new CancelledError());
    },
  };

  // A prompt owns the line it is typed on: the status line waits until it is answered. A
  // question wider than the terminal is fitted as every line is: its first lines are written,
  // and the last one is the prompt the answer is typed after.
  async function holdingStatus<T>(question: string, ask: (last: string) => Promise<T>) {
    board.hold();
    try {
      const width = parts.stderrColumns();
      if (!stderrIsTTY || textWidth(question) <= width) return await ask(question);
      const end = /\s*$/.exec(question)?.[0] ?? '';
      const lines = fitLines(`${question.trimEnd()}\n`, width).slice(0, -1).split('\n');
      const last = lines.pop() ?? '';
      if (lines.length > 0) writeErr(`${lines.join('\n')}\n`);
      return await ask(`${last}${end}`);
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
