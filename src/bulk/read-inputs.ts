// The inputs of `pets add --file`, read as they stream: NDJSON line by line (memory does not
// grow with the file), or one JSON document (an object or an array) read whole. A line is
// never held beyond MAX_LINE_BYTES: a longer one is that input's failure, not a crash.
import type { Readable } from 'node:stream';

const { isUtf8 } = process.getBuiltinModule('node:buffer');

import { CliError, ExitCode, FlagError, withHint } from '../errors.js';
import { JsonDepthError, parseJson, TOO_DEEP } from '../json.js';

/** Far beyond any animal (the service takes bodies up to 1 MiB). */
const MAX_LINE_BYTES = 1024 * 1024;

/** The failure of an input over MAX_LINE_BYTES. */
const tooLong = () => rejected('invalid_json', 'longer than 1 MiB');
/** A JSON document (not NDJSON) is read whole: bounded so that /dev/zero cannot exhaust memory. */
export const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;

/** The n-th input (1-based): its value, or why it cannot be used. `line` is its text (its
 * bytes when they are not UTF-8: --failed writes them back as they were); `lineNo` the number
 * of its line in NDJSON; `total` how many inputs a JSON document holds. */
export type Input = (
  | { n: number; value: unknown; line?: string }
  | { n: number; error: CliError; line?: string | Buffer }
) & { lineNo?: number; total?: number };

/** How many bytes of the input its lines so far took, for an estimate of how much is left. */
export interface ReadCounter {
  bytes: number;
}

/** A line whose bytes are not UTF-8 (a Latin-1 export): decoded, it would hold U+FFFD where
 * its letters were, and be sent so. */
interface NotUtf8 {
  notUtf8: Buffer;
}

const EXPECTED = 'expected a JSON object, a JSON array or NDJSON';

export function rejected(code: string, message: string): CliError {
  return new CliError(message, ExitCode.rejected, code);
}

/** Lines of a stream, split on \n (a \r before it dropped); a line over `max` bytes comes
 * back as `{ tooLong }` as soon as it passes `max` (its end may never come: /dev/zero), and the
 * rest of it is skipped without being kept; one that is not UTF-8 as `{ notUtf8 }`. */
export async function* lines(
  stream: Readable,
  max: () => number = () => MAX_LINE_BYTES,
  counter?: ReadCounter,
): AsyncGenerator<string | { tooLong: number } | NotUtf8> {
  let held: Buffer[] = [];
  let size = 0;
  let skipping = false;
  const line = (): string | NotUtf8 => {
    let bytes = Buffer.concat(held);
    held = [];
    if (bytes.at(-1) === 13) bytes = bytes.subarray(0, -1);
    return isUtf8(bytes) ? bytes.toString('utf8') : { notUtf8: bytes };
  };
  for await (const raw of stream) {
    let chunk: Buffer = typeof raw === 'string' ? Buffer.from(raw) : raw;
    for (let end = chunk.indexOf(10); ; end = chunk.indexOf(10)) {
      const piece = end === -1 ? chunk : chunk.subarray(0, end);
      // The bytes up to the end of the line being read: not those read ahead of it.
      if (counter) counter.bytes += piece.length + (end === -1 ? 0 : 1);
      if (!skipping) {
        if (size + piece.length > max()) {
          skipping = true;
          held = [];
          yield { tooLong: size + piece.length };
        } else {
          held.push(piece);
          size += piece.length;
        }
      }
      if (end === -1) break;
      if (!skipping) yield line();
      skipping = false;
      size = 0;
      chunk = chunk.subarray(end + 1);
    }
  }
  if (!skipping && (size > 0 || held.length > 0)) yield line();
}

/**
 * NDJSON when the first line is JSON on its own: yielded line by line, a bad later line being
 * that input's failure. Otherwise (a JSON array, a pretty-printed object) the whole text is one
 * document, and text that is neither is a usage error before anything is sent.
 */
export async function* readInputs(
  stream: Readable,
  maxDocumentBytes = MAX_DOCUMENT_BYTES,
  counter?: ReadCounter,
): AsyncGenerator<Input> {
  const MiB = 1024 * 1024;
  const documentLimit =
    maxDocumentBytes % MiB === 0 ? `${maxDocumentBytes / MiB} MiB` : `${maxDocumentBytes} bytes`;
  let mode: 'start' | 'ndjson' | 'document' = 'start';
  const held: string[] = [];
  let heldBytes = 0;
  let n = 0;
  let lineNo = 0;
  // An NDJSON line is one animal; the first line may be a whole minified JSON array.
  const limit = () => (mode === 'ndjson' ? MAX_LINE_BYTES : maxDocumentBytes);
  for await (const next of lines(stream, limit, counter)) {
    lineNo += 1;
    if (typeof next !== 'string' && 'notUtf8' in next) {
      // Inside NDJSON, that input's failure; anywhere else nothing is sent (a document's
      // inputs are only known at its end; a first line may begin either).
      if (mode !== 'ndjson') {
        throw new FlagError(`--file: line ${lineNo} is not UTF-8 text; nothing was sent`);
      }
      n += 1;
      yield {
        n,
        lineNo,
        line: next.notUtf8,
        error: rejected('invalid_encoding', 'not UTF-8 text'),
      };
      continue;
    }
    if (typeof next !== 'string') {
      if (mode !== 'ndjson') {
        throw new FlagError(
          `--file: line ${lineNo} is longer than ${documentLimit}: ${EXPECTED}; nothing was sent`,
        );
      }
      n += 1;
      yield { n, lineNo, error: tooLong() };
      continue;
    }
    // A byte-order mark (files saved by some Windows editors) is not part of the JSON.
    const line = lineNo === 1 ? next.replace(/^\uFEFF/, '') : next;
    if (mode === 'document') {
      heldBytes += line.length + 1;
      if (heldBytes > maxDocumentBytes) {
        throw withHint(
          new FlagError(`--file: a JSON document over ${documentLimit}`),
          'use NDJSON (one object a line)',
        );
      }
      held.push(line);
      continue;
    }
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = mode === 'start' && line.trimStart().startsWith('[') ? undefined : parseJson(line);
    } catch (error) {
      // A whole JSON value on its line, too deep to read exactly: that input's failure.
      if (error instanceof JsonDepthError) {
        mode = 'ndjson';
        n += 1;
        yield { n, lineNo, line, error: rejected('invalid_input', TOO_DEEP) };
        continue;
      }
      if (mode === 'ndjson') {
        n += 1;
        yield { n, lineNo, line, error: rejected('invalid_json', 'not valid JSON') };
        continue;
      }
    }
    if (value === undefined) {
      mode = 'document';
      held.push(line);
      heldBytes = line.length;
      continue;
    }
    // The first line is read under the document's bound (it may be a whole JSON array): as an
    // NDJSON line, it is held to a line's bound like every other.
    const first = mode === 'start';
    mode = 'ndjson';
    n += 1;
    if (first && Buffer.byteLength(line) > MAX_LINE_BYTES) {
      yield { n, lineNo, error: tooLong() };
      continue;
    }
    yield { n, lineNo, value, line };
  }
  // Nothing but white space: no inputs, as `[]` has none (a --failed file after a run where
  // everything was created is empty, and running it again has nothing to do).
  if (mode === 'start') return;
  if (mode === 'document') {
    let document: unknown;
    try {
      document = parseJson(held.join('\n'));
    } catch (error) {
      if (error instanceof JsonDepthError) {
        throw new FlagError(`--file: the JSON document ${TOO_DEEP}; nothing was sent`);
      }
      throw new FlagError(`--file is not JSON or NDJSON (${EXPECTED}); nothing was sent`);
    }
    const values = Array.isArray(document) ? document : [document];
    for (const value of values) {
      n += 1;
      yield { n, value, total: values.length };
    }
  }
}
