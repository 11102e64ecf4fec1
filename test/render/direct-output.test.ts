// stdout and stderr written with write(2) when they are a pipe or a file (src/direct-output.ts):
// the bytes as written, whatever write(2) takes at a time, and the stream where it takes none.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DirectOutput, outputKind, PIPE_DIRECT_BYTES } from '../../src/direct-output.js';
import { tempDir } from '../helpers/cli.js';

/** A stand-in for write(2): takes at most `take(call)` bytes per call, or throws. */
function fakeFd(take: (call: number) => number | NodeJS.ErrnoException) {
  const written: Buffer[] = [];
  let calls = 0;
  const writeSync = (_fd: number, data: string | Uint8Array) => {
    const bytes = Buffer.from(data);
    const n = take(calls++);
    if (typeof n !== 'number') throw n;
    written.push(bytes.subarray(0, Math.min(n, bytes.length)));
    return Math.min(n, bytes.length);
  };
  return { writeSync, text: () => Buffer.concat(written).toString('utf8'), calls: () => calls };
}

/** A stream that records what it was given, made when asked. */
function lazyStream() {
  const seen: string[] = [];
  let made = 0;
  const stream = new Writable({
    write(chunk, _encoding, done) {
      seen.push(Buffer.from(chunk).toString('utf8'));
      done();
    },
  });
  return {
    make: () => {
      made += 1;
      return stream;
    },
    stream,
    seen,
    made: () => made,
  };
}

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('DirectOutput', () => {
  it('writes each chunk whole with write(2), and makes no stream', () => {
    const fd = fakeFd(() => 1 << 20);
    const stream = lazyStream();
    const out = new DirectOutput(1, stream.make, Infinity, fd.writeSync);
    expect(out.write('[{"id":1}]\n')).toBe(true);
    out.write(Buffer.from('ünï\n'));
    expect(fd.text()).toBe('[{"id":1}]\nünï\n');
    expect(stream.made()).toBe(0);
  });

  it('writes the rest where write(2) took part of a chunk, a character cut in two included', () => {
    // "é" is two bytes: the third call's cut falls between them.
    const fd = fakeFd(() => 3);
    const out = new DirectOutput(1, lazyStream().make, Infinity, fd.writeSync);
    out.write('abcdé fin');
    expect(fd.text()).toBe('abcdé fin');
    expect(fd.calls()).toBe(4);
  });

  it('hands the rest to the stream at EAGAIN, and every later chunk too, in order', () => {
    const fd = fakeFd((call) => (call === 0 ? 4 : errno('EAGAIN')));
    const stream = lazyStream();
    const out = new DirectOutput(1, stream.make, Infinity, fd.writeSync);
    const errors: unknown[] = [];
    out.on('error', (error) => errors.push(error));
    out.write('first part');
    out.write('second');
    expect(fd.text()).toBe('firs');
    expect(stream.seen.map(String)).toEqual(['t part', 'second']);
    expect(fd.calls()).toBe(2);
    expect(stream.made()).toBe(1);
    // The listeners given before the stream was made hear its errors.
    stream.stream.emit('error', errno('EPIPE'));
    expect(errors).toEqual([expect.objectContaining({ code: 'EPIPE' })]);
  });

  it('throws what write(2) refused otherwise (the reader gone, a full disk)', () => {
    for (const code of ['EPIPE', 'ENOSPC']) {
      const out = new DirectOutput(
        1,
        lazyStream().make,
        Infinity,
        fakeFd(() => errno(code)).writeSync,
      );
      expect(() => out.write('x')).toThrow(expect.objectContaining({ code }));
    }
  });

  it('writes through the stream when nothing may go directly, made at the first write', () => {
    const fd = fakeFd(() => 1 << 20);
    const stream = lazyStream();
    const out = new DirectOutput(2, stream.make, 0, fd.writeSync);
    expect(stream.made()).toBe(0);
    out.write('Using profile sandbox\n');
    expect(stream.seen).toEqual(['Using profile sandbox\n']);
    expect(fd.calls()).toBe(0);
  });
});

describe('a pipe', () => {
  it('takes its first bytes directly and the rest through the stream, in order', () => {
    const fd = fakeFd(() => 1 << 20);
    const stream = lazyStream();
    const out = new DirectOutput(1, stream.make, 10, fd.writeSync);
    out.write('12345');
    out.write('6789é');
    // 5 + 6 bytes ("é" is two): past 10, to the stream; and everything after it.
    out.write('x');
    expect(fd.text()).toBe('12345');
    expect(stream.seen).toEqual(['6789é', 'x']);
    expect(out.writableLength).toBe(0);
  });
});

describe('outputKind', () => {
  it('writes a file and /dev/null whole, a pipe its first bytes; none is a terminal', () => {
    const file = openSync(join(tempDir(), 'out.txt'), 'w');
    const devNull = openSync('/dev/null', 'w');
    // A FIFO opened for reading and writing at once: a pipe, without waiting for a reader.
    const fifoPath = join(tempDir(), 'fifo');
    execFileSync('mkfifo', [fifoPath]);
    const fifo = openSync(fifoPath, 'r+');
    try {
      expect([outputKind(file), outputKind(devNull), outputKind(fifo)]).toEqual([
        { terminal: false, directBytes: Infinity },
        { terminal: false, directBytes: Infinity },
        { terminal: false, directBytes: PIPE_DIRECT_BYTES },
      ]);
    } finally {
      for (const fd of [file, devNull, fifo]) closeSync(fd);
    }
    // Closed: nothing directly, the stream will say what it is.
    expect(outputKind(file)).toEqual({ terminal: false, directBytes: 0 });
  });
});
