// The input of `pets add --file` as it streams: lines that never end (/dev/zero) and lines too
// long to hold are told as soon as they pass their bound.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lines, MAX_DOCUMENT_BYTES, readInputs } from '../../src/bulk/read-inputs.js';
import { FlagError } from '../../src/errors.js';

/** A stream of `chunk` for ever (as /dev/zero is), counting what was read from it. */
function endless(chunk: Buffer) {
  const counter = { bytes: 0 };
  const stream = new Readable({
    read() {
      // A turn of the event loop per chunk: a reader that never stops still lets the test's
      // time limit fire.
      setImmediate(() => {
        counter.bytes += chunk.length;
        this.push(chunk);
      });
    },
  });
  return { stream, counter };
}

describe('readInputs', () => {
  it('refuses a first line that never ends once it passes 256 MiB, and stops reading', async () => {
    const { stream, counter } = endless(Buffer.alloc(1024 * 1024));
    const read = async () => {
      for await (const _input of readInputs(stream)) {
        // none comes
      }
    };
    await expect(read()).rejects.toThrow(
      new FlagError(
        '--file: line 1 is longer than 256 MiB: expected a JSON object, a JSON array or NDJSON; nothing was sent',
      ),
    );
    expect(counter.bytes).toBeGreaterThan(MAX_DOCUMENT_BYTES);
    // Stopped at the bound (what the stream had buffered ahead aside), not at a newline.
    expect(counter.bytes).toBeLessThan(MAX_DOCUMENT_BYTES + 16 * 1024 * 1024);
    expect(stream.destroyed).toBe(true);
  });
});

describe('readInputs of a JSON document', () => {
  it('refuses one over its bound, counted over its lines, before anything is yielded', async () => {
    // A pretty-printed array of 40 animals, about 1.6 KB, against a bound of 1 KiB.
    const animals = Array.from({ length: 40 }, (_, i) => `  {"name": "p${i}", "categoryId": 1}`);
    const text = `[\n${animals.join(',\n')}\n]\n`;
    const yielded: unknown[] = [];
    const read = async () => {
      for await (const input of readInputs(Readable.from([text]), 1024)) yielded.push(input);
    };
    await expect(read()).rejects.toSatisfy(
      (error) =>
        error instanceof FlagError &&
        error.message === '--file: a JSON document over 1024 bytes' &&
        error.hint === 'use NDJSON (one object a line)',
    );
    expect(yielded).toEqual([]);
    // Within its bound it is read whole.
    const inputs = [];
    for await (const input of readInputs(Readable.from([text]), 4096)) inputs.push(input);
    expect(inputs).toHaveLength(40);
  });
});

describe('lines', () => {
  it('tells a line too long as soon as it passes the bound, and skips the rest of it', async () => {
    const text = `ab\n${'x'.repeat(10)}\ncd\n${'y'.repeat(7)}`;
    const seen: unknown[] = [];
    // One byte at a time: the bound is passed in the middle of the line, before its end.
    for await (const line of lines(
      Readable.from([...Buffer.from(text)].map((b) => Buffer.of(b))),
      () => 5,
    )) {
      seen.push(line);
    }
    expect(seen).toEqual(['ab', { tooLong: 6 }, 'cd', { tooLong: 6 }]);
  });
});
