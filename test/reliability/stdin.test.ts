// Reading stdin to its end (`messages send` without text, `store api --input -`) ends on Ctrl-C:
// a pipe that stays open and silent must not hold the command for ever; stdin that is no input
// (a directory) is refused before anything is sent.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkStdinReadable } from '../../src/commands/input-file.js';
import { CancelledError, FlagError } from '../../src/errors.js';
import { readAll, readAllBytes, untilCtrlC } from '../../src/reading.js';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { BIN, processEnv } from '../helpers/process.js';

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

describe('stdin that is no input', () => {
  // Node reads a directory on stdin as an empty stream: `store api --input - < "$HOME"` sent a
  // POST with an empty body.
  it('a directory (`< "$HOME"`): exit 2, one line, nothing sent', async () => {
    const requests: string[] = [];
    const server = await faultServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      reply(res, 201, '{"id":1}');
    });
    const env = processEnv({ STORE_BASE_URL: server.url, STORE_API_KEY: 'k-1234' });
    const script = `"${process.execPath}" "${BIN}" api /pets --input - < "${tempDir()}"`;
    const result = spawnSync('bash', ['-c', script], { env, encoding: 'utf8' });
    expect({ code: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: cannot read stdin: it is a directory; nothing was sent\n',
    });
    expect(requests).toEqual([]);
  });

  it('a file open for writing only (`0> file`): exit 2, one line, nothing sent', async () => {
    const requests: string[] = [];
    const server = await faultServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      reply(res, 201, '{"id":1}');
    });
    const env = processEnv({ STORE_BASE_URL: server.url, STORE_API_KEY: 'k-1234' });
    const file = join(tempDir(), 'body.json');
    writeFileSync(file, '{"name":"Rex"}');
    const script = `"${process.execPath}" "${BIN}" api /pets --input - 0>> "${file}"`;
    const result = spawnSync('bash', ['-c', script], { env, encoding: 'utf8' });
    expect({ code: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: cannot read stdin: it is not open for reading; nothing was sent\n',
    });
    expect(requests).toEqual([]);
  });

  it('is checked by one helper that leaves a stream with no descriptor alone', () => {
    const dir = openSync(tempDir(), 'r');
    try {
      const stdin = Object.assign(new PassThrough(), { fd: dir });
      expect(() => checkStdinReadable(stdin)).toThrow(
        new FlagError('cannot read stdin: it is a directory; nothing was sent'),
      );
      expect(() => checkStdinReadable(new PassThrough())).not.toThrow();
    } finally {
      closeSync(dir);
    }
  });
});
