// Reading stdin to its end (`messages send` without text, `store api --input -`) ends on Ctrl-C:
// a pipe that stays open and silent must not hold the command for ever.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CancelledError } from '../../src/errors.js';
import { readAllBytes, untilCtrlC } from '../../src/io.js';

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

describe('reading stdin', () => {
  it('ends with CancelledError on Ctrl-C while the pipe is open and silent', async () => {
    const stdin = new PassThrough();
    stdin.write('half a mess');
    const controller = new AbortController();
    const read = readAllBytes(stdin, controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(read).rejects.toBeInstanceOf(CancelledError);
    expect(stdin.destroyed).toBe(true);
  });

  it('ends at once when Ctrl-C came before the read began', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(readAllBytes(new PassThrough(), controller.signal)).rejects.toBeInstanceOf(
      CancelledError,
    );
  });

  it('returns the bytes as they came when the pipe ends', async () => {
    const stdin = new PassThrough();
    stdin.end(Buffer.from([0xff, 0x00, 0x41]));
    expect(await readAllBytes(stdin, new AbortController().signal)).toEqual(
      Buffer.from([0xff, 0x00, 0x41]),
    );
  });
});
