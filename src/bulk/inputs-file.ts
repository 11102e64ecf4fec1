// The NDJSON files a bulk import writes its inputs to, as they were given, one per line:
// `--failed` (certainly not created: a file to run again) and `--uncertain` (may have been
// created: not to be run again blindly).
const { closeSync, fstatSync, ftruncateSync, unlinkSync, writeSync } =
  process.getBuiltinModule('node:fs');

import { NotRegularFileError, openRegularForWriting } from '../config/safe-fs.js';
import { FlagError } from '../errors.js';
import { fileProblem } from '../file-errors.js';
import { JsonDepthError, stringifyJson } from '../json.js';
import type { Input } from './read-inputs.js';

const NEWLINE = Buffer.from('\n');

/** Why a file named by `flag` cannot be written: one usage error, in words. */
export function cannotWrite(flag: string, path: string, error: unknown): FlagError {
  if (error instanceof NotRegularFileError) {
    const what =
      error.kind === 'not a regular file' ? error.kind : `${error.kind}, not a regular file`;
    return new FlagError(`cannot write ${flag} ${path}: it is ${what}`);
  }
  return new FlagError(`cannot write ${flag} ${path}: ${fileProblem(error)}`);
}

export class InputsFile {
  private readonly fd: number;

  /** `append`: a resumed import adds to what the run it continues wrote. Otherwise it is
   * emptied when the import begins (begin()), not when it is opened: a usage error found before
   * that (an input file that is no JSON) leaves what an earlier run wrote. */
  constructor(
    readonly flag: string,
    readonly path: string,
    append = false,
  ) {
    try {
      this.fd = openRegularForWriting(path, { append: true, mode: 0o644 });
    } catch (error) {
      throw cannotWrite(flag, path, error);
    }
    this.cutTo = append ? undefined : 0;
    this.kept = this.size();
  }

  /** The size it is cut to when the import begins: 0 (emptied), the bytes before the inputs a
   * continued run sends again (keepFirst), or none (added to as it is). */
  private cutTo: number | undefined;
  /** Bytes it holds from before this run (none once emptied). */
  private kept: number;

  /** The import has begun (records.ts): the file is emptied, or cut back, now; a run refused
   * before that leaves it as an earlier run wrote it. */
  begin(): void {
    const { cutTo } = this;
    if (cutTo === undefined) return;
    this.cutTo = undefined;
    try {
      if (this.size() > cutTo) ftruncateSync(this.fd, cutTo);
      this.kept = Math.min(this.kept, cutTo);
    } catch (error) {
      this.error = error as NodeJS.ErrnoException;
    }
  }

  /** Whether it holds nothing: nothing written by this run, nothing kept from before. */
  get empty(): boolean {
    return this.written === 0 && this.kept === 0;
  }

  /** The first write that failed (a full disk): the file is incomplete from there on. */
  error: NodeJS.ErrnoException | undefined;

  /** Inputs it cannot hold: lines over 1 MiB, which were skipped as they streamed, not kept. */
  readonly notKept: number[] = [];
  /** Inputs of a JSON document nested too deeply to be written as JSON again. */
  readonly notWritable: number[] = [];

  /** Inputs written. */
  written = 0;

  /** Never throws: a failed write is kept (`error`) and said once the import has ended. */
  write(input: Input): void {
    if (this.error) return;
    // An NDJSON line as it was given; an input of a JSON document written as JSON.
    let text = input.line;
    if (text === undefined && 'value' in input) {
      try {
        text = stringifyJson(input.value);
      } catch (error) {
        if (!(error instanceof JsonDepthError)) throw error;
        return void this.notWritable.push(input.n);
      }
    }
    if (text === undefined) return void this.notKept.push(input.n);
    try {
      if (typeof text === 'string') writeSync(this.fd, `${text}\n`);
      else writeSync(this.fd, Buffer.concat([text, NEWLINE]));
      this.written += 1;
    } catch (error) {
      this.error = error as NodeJS.ErrnoException;
    }
  }

  /** Its size in bytes now (what an earlier run wrote included). */
  size(): number {
    return fstatSync(this.fd).size;
  }

  /** To be cut back to its first `bytes` when the import begins: the inputs after them are
   * sent again by this run. */
  keepFirst(bytes: number): void {
    this.cutTo = Math.min(this.cutTo ?? bytes, bytes);
  }

  private closed = false;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  /** Closes and deletes it (a file made by default that nothing was written to). */
  remove(): void {
    this.close();
    try {
      unlinkSync(this.path);
    } catch {
      // Gone already: as good.
    }
  }
}
