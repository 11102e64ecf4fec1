// The status line on a terminal's stderr: erased before any other output, drawn again after,
// never mixed into a line; nothing of it off a terminal.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createIO, type IOStreams, systemIO } from '../../src/io.js';
import { StatusBoard } from '../../src/render/status.js';

const ERASE = '\r\u001b[K';

/** stdout and stderr on one terminal: the transcript shows what the user sees, in order. */
function terminal(
  options: { stdoutIsTTY?: boolean; stderrIsTTY?: boolean; columns?: number } = {},
) {
  const seen: string[] = [];
  const stream = (name: string) =>
    new Writable({
      write(chunk, _enc, done) {
        seen.push(`${name}:${chunk}`);
        done();
      },
    });
  const io: IOStreams = createIO({
    stdin: process.stdin,
    stdout: stream('out'),
    stderr: stream('err'),
    stdinIsTTY: false,
    stdoutIsTTY: options.stdoutIsTTY ?? true,
    stderrIsTTY: options.stderrIsTTY ?? true,
    colorOut: false,
    colorErr: false,
    columns: () => options.columns ?? 80,
    stderrColumns: () => options.columns ?? 80,
    readStdin: async () => '',
    promptSecret: async (question) => {
      seen.push(`prompt:${question}`);
      return 'typed';
    },
  });
  return { io, seen };
}

describe('io.status', () => {
  it('draws in place, and erases itself around every other write', () => {
    const { io, seen } = terminal();
    const line = io.status('1 created');
    line.update('2 created');
    io.out('ID  NAME\n');
    io.err('error: input 3: name is required\n');
    line.done();
    io.out('done\n');
    expect(seen).toEqual([
      `err:${ERASE}1 created`,
      `err:${ERASE}2 created`,
      `err:${ERASE}`,
      'out:ID  NAME\n',
      `err:${ERASE}2 created`,
      `err:${ERASE}`,
      'err:error: input 3: name is required\n',
      `err:${ERASE}2 created`,
      `err:${ERASE}`,
      'out:done\n',
    ]);
  });

  it('waits for the end of a line before drawing again', () => {
    const { io, seen } = terminal();
    io.status('working');
    io.err('partial ');
    io.err('line\n');
    expect(seen).toEqual([
      `err:${ERASE}working`,
      `err:${ERASE}`,
      'err:partial ',
      'err:line\n',
      `err:${ERASE}working`,
    ]);
  });

  it('leaves the line alone when stdout is a pipe', () => {
    const { io, seen } = terminal({ stdoutIsTTY: false });
    io.status('working');
    io.out('a\tb\n');
    expect(seen).toEqual([`err:${ERASE}working`, 'out:a\tb\n']);
  });

  it('writes nothing when stderr is not a terminal', () => {
    const { io, seen } = terminal({ stderrIsTTY: false });
    const line = io.status('working');
    line.update('still working');
    io.out('row\n');
    line.done();
    expect(seen).toEqual(['out:row\n']);
  });

  it('shows the oldest active line; a later one waits for it', () => {
    const { io, seen } = terminal();
    const progress = io.status('10 created');
    const other = io.status('other');
    other.update('other 2');
    progress.done();
    other.done();
    expect(seen).toEqual([
      `err:${ERASE}10 created`,
      `err:${ERASE}10 created`,
      `err:${ERASE}other 2`,
      `err:${ERASE}`,
    ]);
  });

  it('is cut to the terminal width (one cell short) and made safe', () => {
    const { io, seen } = terminal({ columns: 12 });
    io.status('\u001b]0;title\u0007uploading 小狗 files');
    expect(seen).toEqual([`err:${ERASE}\\x1b]0;tit…`]);
  });

  it('is erased while a prompt owns the line, and drawn after it', async () => {
    const { io, seen } = terminal();
    io.status('working');
    expect(await io.promptSecret('API key: ')).toBe('typed');
    expect(seen).toEqual([
      `err:${ERASE}working`,
      `err:${ERASE}`,
      'prompt:API key: ',
      `err:${ERASE}working`,
    ]);
  });

  it('clearStatus erases it for good', () => {
    const { io, seen } = terminal();
    io.status('working');
    io.clearStatus();
    io.err('bye\n');
    expect(seen).toEqual([`err:${ERASE}working`, `err:${ERASE}`, 'err:bye\n']);
  });

  it('quitAtOnce erases it and says the note of now; a removed note is not said', () => {
    const { io, seen } = terminal();
    let left = 3;
    const forget = io.whenQuitAtOnce(() => `${left} left\n`);
    io.status('working');
    left = 2;
    io.quitAtOnce();
    expect(seen).toEqual([`err:${ERASE}working`, `err:${ERASE}`, 'err:2 left\n']);
    forget();
    io.quitAtOnce();
    expect(seen).toHaveLength(3);
  });

  it('quitAtOnce says nothing for a note with nothing to say, and a stale removal keeps the newer note', () => {
    const { io, seen } = terminal({ stderrIsTTY: false });
    const forgetFirst = io.whenQuitAtOnce(() => 'first\n');
    io.whenQuitAtOnce(() => undefined);
    forgetFirst();
    io.quitAtOnce();
    expect(seen).toEqual([]);
    io.whenQuitAtOnce(() => 'second\n');
    forgetFirst();
    io.quitAtOnce();
    expect(seen).toEqual(['err:second\n']);
  });
});

describe('the process’s IO (systemIO)', () => {
  const sink = (seen: string[]) =>
    Object.assign(
      new Writable({
        write(chunk, _enc, done) {
          seen.push(String(chunk));
          done();
        },
      }),
      { isTTY: true, columns: 80 },
    );

  it('draws no status line on a terminal with TERM=dumb, and draws one on any other', () => {
    for (const [TERM, drawn] of [
      ['dumb', []],
      ['xterm-256color', [`${ERASE}1 created`, ERASE]],
    ] as const) {
      const seen: string[] = [];
      const io = systemIO({
        stdin: process.stdin,
        stdout: sink([]),
        stderr: sink(seen),
        env: { TERM, NO_COLOR: '1' },
      });
      io.status('1 created').done();
      expect(seen, TERM).toEqual(drawn);
    }
  });
});

describe('io.waiting', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows nothing for a wait under a second', () => {
    const { io, seen } = terminal();
    const stop = io.waiting('Waiting for the server');
    vi.advanceTimersByTime(999);
    stop();
    vi.advanceTimersByTime(5000);
    expect(seen).toEqual([]);
  });

  it('spins after a second, and is erased before output when stopped', () => {
    const { io, seen } = terminal();
    const stop = io.waiting('Waiting for the server');
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([`err:${ERASE}⠋ Waiting for the server`]);
    vi.advanceTimersByTime(160);
    stop();
    io.out('ID\n');
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([
      `err:${ERASE}⠋ Waiting for the server`,
      `err:${ERASE}⠙ Waiting for the server`,
      `err:${ERASE}⠹ Waiting for the server`,
      `err:${ERASE}`,
      'out:ID\n',
    ]);
  });

  it('does nothing off a terminal', () => {
    const { io, seen } = terminal({ stderrIsTTY: false });
    const stop = io.waiting('Waiting');
    vi.advanceTimersByTime(3000);
    stop();
    expect(seen).toEqual([]);
  });
});

// The board itself, for what the audit found no test of (the line named in each comment).
describe('the status board', () => {
  function board() {
    const writes: string[] = [];
    return {
      board: new StatusBoard(
        true,
        (text) => writes.push(text),
        () => 80,
      ),
      writes,
    };
  }

  // status.ts:47 `if (at === -1) return` removed: a second done() of one line removed another
  // active line (splice(-1, 1)), whose later updates were then never drawn.
  it('done() twice leaves the other line alive', () => {
    const { board: b, writes } = board();
    const first = b.show('first');
    const second = b.show('second');
    second.done();
    second.done();
    first.update('first, updated');
    expect(writes.at(-1)).toBe(`${ERASE}first, updated`);
  });

  // status.ts:104 `this.atLineStart = true` in release() removed: after a prompt (whose question
  // left the cursor mid-line), the status line was not drawn again.
  it('release() after a prompt draws the line again', () => {
    const { board: b, writes } = board();
    b.show('progress');
    b.beforeWrite();
    b.afterWrite('Name: ');
    b.hold();
    b.release();
    expect(writes.at(-1)).toBe(`${ERASE}progress`);
  });

  // status.ts:89 `if (text.length > 0)` -> `if (true)`: an empty write counted as "mid-line" and
  // hid the status line until the next newline.
  it('an empty write does not hide the line', () => {
    const { board: b, writes } = board();
    b.show('progress');
    b.beforeWrite();
    b.afterWrite('');
    expect(writes.at(-1)).toBe(`${ERASE}progress`);
  });
});
