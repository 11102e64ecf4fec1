// Output that cannot be written (a full disk, an I/O error): one line on stderr and exit 1,
// never a stack trace; a reader that left (EPIPE) stays quiet.
import { existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createIO, type IOStreams } from '../../src/io.js';
import { main } from '../../src/main.js';
import { describeWriteError } from '../../src/output-stream.js';
import { renderAny } from '../../src/render/output.js';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { processEnv, storeOnFullDisk } from '../helpers/process.js';

function ioOver(stdout: Writable, stderr: Writable): IOStreams {
  return createIO({
    stdin: process.stdin,
    stdout,
    stderr,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    colorOut: false,
    colorErr: false,
    columns: () => 80,
    stderrColumns: () => 80,
    readStdin: async () => '',
    promptSecret: async () => '',
  });
}

function errnoError(code: string, errno: number, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, errno, syscall: 'write' });
}

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk;
    done();
  }
}

describe('a write that fails', () => {
  it('is kept for the command when the stream reports it, and later output is dropped', async () => {
    let writes = 0;
    const stdout = new Writable({
      write(_chunk, _enc, done) {
        writes += 1;
        done(errnoError('ENOSPC', -28, 'ENOSPC: no space left on device, write'));
      },
    });
    const io = ioOver(stdout, new Collect());
    io.out('first\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(io.outputError?.code).toBe('ENOSPC');
    io.out('second\n');
    expect(writes).toBe(1);
  });

  it('is kept, not thrown, when the write throws (a file: written synchronously)', () => {
    const stdout = new Writable({
      write() {
        throw errnoError('EIO', -5, 'EIO: i/o error, write');
      },
    });
    const stderr = new Collect();
    const io = ioOver(stdout, stderr);
    expect(() => io.out('row\n')).not.toThrow();
    expect(io.outputError?.code).toBe('EIO');
    io.err('still here\n');
    expect(stderr.text).toBe('still here\n');
  });

  it.each([
    [errnoError('ENOSPC', -28, 'x'), 'no space left on device (ENOSPC)'],
    [errnoError('EIO', -5, 'x'), 'i/o error (EIO)'],
    [
      Object.assign(new Error('Cannot call write after a stream was destroyed'), {
        code: 'ERR_STREAM_DESTROYED',
      }),
      'cannot call write after a stream was destroyed (ERR_STREAM_DESTROYED)',
    ],
  ])('is described in one phrase: %s', (error, text) => {
    expect(describeWriteError(error)).toBe(text);
  });
});

describe('a write that fails after the command returned', () => {
  // A pipe that refuses a write long after it was queued (ENOBUFS): the error came after main()
  // had looked for one, and the process exited 0 with its output cut short.
  const lateFailure = (code: string) =>
    new Writable({
      write(_chunk, _enc, done) {
        setTimeout(() => done(errnoError(code, -105, `${code}: write`)), 30);
      },
    });

  it('is one line and exit 1', async () => {
    const stderr = new Collect();
    const io = ioOver(lateFailure('ENOBUFS'), stderr);
    const code = await main(['--version'], { io, env: {}, signal: new AbortController().signal });
    expect({ code, stderr: stderr.text }).toEqual({
      code: 1,
      stderr: 'error: cannot write output: no buffer space available (ENOBUFS)\n',
    });
  });

  it('is no failure when the reader left (EPIPE)', async () => {
    const stderr = new Collect();
    const io = ioOver(lateFailure('EPIPE'), stderr);
    const code = await main(['--version'], { io, env: {}, signal: new AbortController().signal });
    expect({ code, stderr: stderr.text }).toEqual({ code: 0, stderr: '' });
  });

  it('of stderr turns a success into exit 1 (there is nowhere to say it)', async () => {
    const argv = ['profile', 'set', 'mine', '--base-url', 'http://127.0.0.1:9/v1'];
    const signal = new AbortController().signal;
    const written = new Collect();
    const fine = ioOver(new Collect(), written);
    expect(await main(argv, { io: fine, env: { STORE_CONFIG_DIR: tempDir() }, signal })).toBe(0);
    expect(written.text).toBe('Created profile mine\n');
    const failing = ioOver(new Collect(), lateFailure('EIO'));
    expect(await main(argv, { io: failing, env: { STORE_CONFIG_DIR: tempDir() }, signal })).toBe(1);
  });
});

describe.runIf(existsSync('/dev/full'))('stdout on a full device (/dev/full)', () => {
  it('keeps the exit code of a command that failed on its own (404: 5), and says both', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 404, '{"code":"pet_not_found","message":"no pet with id 9","status":404}'),
    );
    const env = processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
    expect(await storeOnFullDisk(['api', '/pets/9'], env)).toEqual({
      code: 5,
      signal: null,
      stdout: '',
      stderr:
        'error: no pet with id 9 (pet_not_found, HTTP 404)\n' +
        'error: cannot write output: no space left on device (ENOSPC)\n',
    });
  });

  it('under --json says both as JSON lines, as every error is', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 404, '{"code":"pet_not_found","message":"no pet with id 9","status":404}'),
    );
    const env = processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
    expect(await storeOnFullDisk(['--json', 'api', '/pets/9'], env)).toEqual({
      code: 5,
      signal: null,
      stdout: '',
      stderr:
        '{"error":{"code":"pet_not_found","message":"no pet with id 9","status":404}}\n' +
        '{"error":{"code":"output_failed","message":"cannot write output: no space left on device (ENOSPC)","status":null}}\n',
    });
  });

  it('under --json, a command that succeeded exits 1 with the JSON line', async () => {
    const server = await faultServer((_req, res) => reply(res, 200, '[]'));
    const env = processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
    expect(await storeOnFullDisk(['pets', 'list', '--json'], env)).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr:
        '{"error":{"code":"output_failed","message":"cannot write output: no space left on device (ENOSPC)","status":null}}\n',
    });
  });

  it.each([[['--version']], [['help']], [['pets', 'list', '--help']]])(
    'store %j says so in one line and exits 1',
    async (argv) => {
      expect(await storeOnFullDisk(argv)).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: 'error: cannot write output: no space left on device (ENOSPC)\n',
      });
    },
  );
});

describe('a large output into a slow stream', () => {
  it('is held in a buffer of a piece or two, not whole: rows wait for room (back-pressure)', async () => {
    let most = 0;
    let text = '';
    const slow = new Writable({
      highWaterMark: 16_384,
      write(chunk, _enc, done) {
        most = Math.max(most, slow.writableLength);
        text += chunk;
        setImmediate(done);
      },
    });
    const io = ioOver(slow, new Collect());
    // 2,000 objects with a key each: 2,000 × 2,000 cells, some 4 MB of text.
    const orders = Array.from({ length: 2000 }, (_, i) => ({ [`k${i}`]: i }));
    await renderAny(io, orders, { json: false });
    await io.flushed();
    const lines = text.split('\n');
    expect(lines).toHaveLength(2002);
    expect(lines[1]).toBe(`0${'\t'.repeat(1999)}`);
    expect(lines[2000]).toBe(`${'\t'.repeat(1999)}1999`);
    expect(text.length).toBeGreaterThan(4_000_000);
    expect(most).toBeLessThan(3 * 65_536);
  });
});
