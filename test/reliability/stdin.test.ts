// Reading stdin to its end (`messages send` without text, `store api --input -`) ends on Ctrl-C:
// a pipe that stays open and silent must not hold the command for ever.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CancelledError, FlagError } from '../../src/errors.js';
import { readAll, readAllBytes, untilCtrlC } from '../../src/io.js';

describe('a wait raced with Ctrl-C (untilCtrlC)', () => {
  it('leaves no unhandled rejection when the work fails after Ctrl-C came first', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const controller = new AbortController();
      controller.abort();
      let fail = (_error: Error) => {};
      const work = new Promise<never>((_resolve, reject) => {
        fail = reject;
      });
      await expect(untilCtrlC(work, controller.signal)).rejects.toBeInstanceOf(CancelledError);
      fail(new Error('premature close'));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

const LIMIT = { maxBytes: 100, tooLarge: 'stdin is over 100 bytes' };
const TEN = { maxBytes: 10, tooLarge: 'stdin is over 10 bytes' };

describe('reading stdin', () => {
  it('ends with CancelledError on Ctrl-C while the pipe is open and silent', async () => {
    const stdin = new PassThrough();
    stdin.write('half a mess');
    const controller = new AbortController();
    const read = readAllBytes(stdin, LIMIT, controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(read).rejects.toBeInstanceOf(CancelledError);
    expect(stdin.destroyed).toBe(true);
  });

  it('ends at once when Ctrl-C came before the read began', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(readAllBytes(new PassThrough(), LIMIT, controller.signal)).rejects.toBeInstanceOf(
      CancelledError,
    );
  });

  it('returns the bytes as they came when the pipe ends', async () => {
    const stdin = new PassThrough();
    stdin.end(Buffer.from([0xff, 0x00, 0x41]));
    expect(await readAllBytes(stdin, LIMIT, new AbortController().signal)).toEqual(
      Buffer.from([0xff, 0x00, 0x41]),
    );
  });

  it('stops reading past its limit (/dev/zero, `yes`): a usage error, the stream destroyed', async () => {
    const stdin = new PassThrough();
    stdin.write('0123456789');
    stdin.write('x');
    await expect(readAllBytes(stdin, TEN)).rejects.toThrow(new FlagError('stdin is over 10 bytes'));
    expect(stdin.destroyed).toBe(true);
    const exact = new PassThrough();
    exact.end('0123456789');
    expect((await readAllBytes(exact, TEN)).toString()).toBe('0123456789');
  });

  it('as text, refuses bytes that are not UTF-8 instead of putting U+FFFD in their place', async () => {
    const text = { ...LIMIT, notText: 'stdin is not UTF-8 text' };
    const latin1 = new PassThrough();
    latin1.end(Buffer.from('Caf\xe9', 'latin1'));
    await expect(readAll(latin1, text)).rejects.toThrow(new FlagError('stdin is not UTF-8 text'));
    const utf8 = new PassThrough();
    utf8.end('Café');
    expect(await readAll(utf8, text)).toBe('Café');
  });
});
