// The process's streams and what is known about them. Commands write through this, so
// tests can run any command over buffers with any TTY setting.
import type { Readable, Writable } from 'node:stream';
import { CancelledError } from './errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface IOStreams {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Whether ANSI colour may be written to stdout / stderr. */
  colorOut: boolean;
  colorErr: boolean;
  out(text: string): void;
  err(text: string): void;
  /** Reads stdin to its end as UTF-8. */
  readStdin(signal?: AbortSignal): Promise<string>;
  /** Asks for a secret on the terminal without echoing it. */
  promptSecret(question: string, signal?: AbortSignal): Promise<string>;
}

/** NO_COLOR (any value) and --no-color win; FORCE_COLOR turns colour on off a TTY. */
export function colorAllowed(isTTY: boolean, env: Env, noColorFlag = false): boolean {
  if (noColorFlag || env.NO_COLOR !== undefined) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return isTTY && env.TERM !== 'dumb';
}

export async function readAll(stream: Readable, signal?: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  const onAbort = () => stream.destroy(new CancelledError());
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  return Buffer.concat(chunks).toString('utf8');
}

interface TTYReadable extends Readable {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Reads a line in raw mode so the key is never echoed; Ctrl-C cancels. */
function promptHidden(
  stdin: TTYReadable,
  stderr: Writable,
  question: string,
  signal?: AbortSignal,
): Promise<string> {
  // Echo off before the question shows: a key typed or pasted the moment it appears must not
  // be echoed by the terminal.
  stdin.setRawMode?.(true);
  stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error: Error | null) => {
      stdin.setRawMode?.(false);
      stdin.off('data', onData);
      signal?.removeEventListener('abort', onAbort);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onAbort = () => finish(new CancelledError());
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(null);
        if (ch === '\u0003') return finish(new CancelledError());
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData);
    stdin.resume();
  });
}

interface SystemProcess {
  stdin: TTYReadable;
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  env: Env;
}

export function systemIO(proc: SystemProcess): IOStreams {
  const stdoutIsTTY = proc.stdout.isTTY === true;
  const stderrIsTTY = proc.stderr.isTTY === true;
  return {
    stdin: proc.stdin,
    stdout: proc.stdout,
    stderr: proc.stderr,
    stdinIsTTY: proc.stdin.isTTY === true,
    stdoutIsTTY,
    stderrIsTTY,
    colorOut: colorAllowed(stdoutIsTTY, proc.env),
    colorErr: colorAllowed(stderrIsTTY, proc.env),
    out: (text) => void proc.stdout.write(text),
    err: (text) => void proc.stderr.write(text),
    readStdin: (signal) => readAll(proc.stdin, signal),
    promptSecret: (question, signal) => promptHidden(proc.stdin, proc.stderr, question, signal),
  };
}
