// The streams a command gets when it runs as a tool: its stdout is kept (it is the result),
// its stderr goes to the server's log, and there is no terminal and nothing to read: the
// protocol owns the process's stdin and stdout.
import { FlagError } from '../errors.js';
import type { IOStreams } from '../io.js';

export interface ToolIO extends IOStreams {
  /** What the command wrote to its stdout. */
  output(): string;
}

export function toolIO(log: (text: string) => void): ToolIO {
  const chunks: Buffer[] = [];
  const nothingToRead = () =>
    Promise.reject(
      new FlagError('store mcp reads nothing from stdin: give every value as an argument'),
    );
  const { Readable } = process.getBuiltinModule('node:stream');
  return {
    stdin: Readable.from([]),
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    colorOut: false,
    colorErr: false,
    columns: 80,
    out: (text) => {
      chunks.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text));
    },
    err: log,
    pendingOutput: 0,
    outputError: undefined,
    errorOutputError: undefined,
    outputRoom: () => Promise.resolve(),
    flushed: () => Promise.resolve(),
    status: () => ({ update: () => {}, done: () => {} }),
    waiting: () => () => {},
    clearStatus: () => {},
    whenQuitAtOnce: () => () => {},
    quitAtOnce: () => {},
    readStdin: nothingToRead,
    promptSecret: nothingToRead,
    prompt: nothingToRead,
    output: () => Buffer.concat(chunks).toString('utf8'),
  };
}
