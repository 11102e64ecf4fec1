// `pets add --file`: every input checked, then sent once over one keep-alive pool with a
// bounded number of requests in flight, reported in input order. It stops sending at the
// first failure that every later input would meet too (the key refused, the server out of
// reach), slows down while the server answers 429, and can resume (--skip) or retry only what
// failed (--failed).
const { closeSync, openSync, writeSync } = process.getBuiltinModule('node:fs');

import type { Readable } from 'node:stream';
import type { RetryNotice } from '../api/client.js';
import { createPet } from '../api/pets.js';
import { PET_COLUMNS } from '../commands/pets/columns.js';
import type { Context } from '../context.js';
import {
  CliError,
  ExitCode,
  FlagError,
  mayHaveActed,
  NetworkError,
  notingMaybeActed,
  SilentExit,
} from '../errors.js';
import { JsonDepthError, stringifyJson } from '../json.js';
import { describeWriteError } from '../output-stream.js';
import { untilCtrlC } from '../reading.js';
import { BulkReport, namedInputs, type Outcome } from '../render/bulk-report.js';
import type { NewPet } from '../schemas.js';
import { setV8Flags } from '../v8-flags.js';
import { checkInput } from './check-input.js';
import { OrderedWindow } from './ordered-window.js';
import { type Input, readInputs } from './read-inputs.js';

export const DEFAULT_CONCURRENCY = 8;
/** Further attempts of a POST answered 429 (the server did not act on it). */
export const RATE_LIMIT_RETRIES = 5;

export interface ImportOptions {
  /** Where the inputs come from: `-` is stdin. */
  file?: string;
  concurrency: number;
  /** Inputs before this number are skipped (resuming an import). */
  skip: number;
  dryRun: boolean;
  /** Where the inputs not created are written, as NDJSON. */
  failed?: string;
}

/** Requests in flight: halved while the server answers 429 (at most once a second), raised
 * by one again after each `current` successes in a row. Every attempt, a resend included,
 * waits for a place. */
export class RateLimiter {
  current: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private lastCut = Number.NEGATIVE_INFINITY;
  private successes = 0;

  constructor(private readonly max: number) {
    this.current = max;
  }

  async run<T>(attempt: () => Promise<T>): Promise<T> {
    while (this.active >= this.current) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active += 1;
    try {
      return await attempt();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  tooMany(now = performance.now()): void {
    this.successes = 0;
    if (now - this.lastCut < 1000) return;
    this.lastCut = now;
    this.current = Math.max(1, Math.floor(this.current / 2));
  }

  succeeded(): void {
    this.successes += 1;
    if (this.current < this.max && this.successes >= this.current) {
      this.current += 1;
      this.successes = 0;
      this.waiting.shift()?.();
    }
  }
}

const NEWLINE = Buffer.from('\n');

/** The inputs not created, as they were given, one per line: a file to run again. */
class FailedFile {
  private readonly fd: number;

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, 'w', 0o644);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new FlagError(`cannot write --failed ${path}${code ? ` (${code})` : ''}`);
    }
  }

  /** The first write that failed (a full disk): the file is incomplete from there on. */
  error: NodeJS.ErrnoException | undefined;

  /** Inputs it cannot hold: lines over 1 MiB, which were skipped as they streamed, not kept. */
  readonly notKept: number[] = [];
  /** Inputs of a JSON document nested too deeply to be written as JSON again. */
  readonly notWritable: number[] = [];

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
    } catch (error) {
      this.error = error as NodeJS.ErrnoException;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * The items of `source` until Ctrl-C, which ends the loop at once (CancelledError) even while
 * the next item is awaited: a read of a pipe whose writer says nothing (`--file /dev/stdin`)
 * waits in libuv's thread pool, where destroying the stream does not reach.
 */
async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await untilCtrlC(iterator.next(), signal);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Not awaited: the source may be stuck in that very read.
    iterator.return?.(undefined)?.catch(() => {});
  }
}

/** Where sending stopped, for a Ctrl-C's line: the inputs after `resume` were not sent. */
const notSentText = (resume: number) =>
  `inputs after ${resume} were not sent; resume with --skip ${resume}`;

/** What a second Ctrl-C says of where sending stopped: the inputs after `resume` were not
 * sent, unless every one had been read; then whether every one had been sent (`waited`: some
 * still waited for their turn, and are reported as not created). */
export function quitAtOnceNote(resume: number, everyRead: boolean, waited = false): string {
  if (!everyRead) return `quit at once: ${notSentText(resume)}`;
  return waited
    ? 'quit at once after every input had been read (not all had been sent)'
    : 'quit at once after every input had been sent';
}

/** A failure that every later input would meet too: nothing more is sent after it. */
function stopsTheImport(error: CliError): boolean {
  if (error.exitCode === ExitCode.auth) return true;
  return error instanceof NetworkError && error.unreachable;
}

/**
 * V8 sizes its heap to the allocation rate: a 10,000-animal import, 15 MB live after a GC,
 * peaked near 205 MiB of RSS with V8's defaults. With its young generation bounded and its
 * heap tuned for size, it stays near 100 MiB whatever the input's size, faster than with
 * --optimize-for-size set at run time (measured: README, Performance). These can only be given
 * when the process starts: `pets add --file` restarts with them (src/restart.ts) before it reads
 * or sends anything, when its input may be large (src/commands/pets/add.ts).
 */
export const BULK_V8_FLAGS = ['--max-semi-space-size=1', '--optimize-for-size'];

/** `sizeHeapAtRunTime`: the input may be large and the process could not restart under
 * BULK_V8_FLAGS (Windows, the single executable…): V8 is told at run time to favour size
 * instead (≈100 MiB too, at a rate up to 10% lower), and then makes no code cache
 * (src/v8-flags.ts). */
export async function importPets(
  stream: Readable,
  ctx: Context,
  opts: ImportOptions,
  sizeHeapAtRunTime = false,
): Promise<void> {
  const { io, options, signal } = ctx;
  if (sizeHeapAtRunTime) setV8Flags('--optimize-for-size');
  const failedFile = opts.failed === undefined ? undefined : new FailedFile(opts.failed);
  const limiter = new RateLimiter(opts.concurrency);
  const report = new BulkReport(io, {
    json: options.json,
    ...(options.jsonFields && { jsonFields: options.jsonFields }),
    dryRun: opts.dryRun,
    columns: PET_COLUMNS,
    typedInput: opts.file === '-' && io.stdinIsTTY,
    inFlight: () => window.inFlight,
  });
  const inputsByNumber = new Map<number, Input>();
  let firstFailure: CliError | undefined;
  const window = new OrderedWindow<Outcome>({
    span: opts.concurrency,
    limit: () => opts.concurrency,
    first: opts.skip + 1,
    report: (n, outcome) => {
      const input = inputsByNumber.get(n);
      inputsByNumber.delete(n);
      if (outcome.kind === 'failed' || outcome.kind === 'not_sent') {
        firstFailure ??= outcome.error;
        if (input) failedFile?.write(input);
      }
      report.report(n, outcome);
    },
  });

  // The report redraws its progress line on a timer: stopped however the import ends.
  try {
    await report.ready();
    // Requests in flight are let finish after Ctrl-C: whether they created an animal is known.
    // A 429 slows the whole import down instead of showing a line per retry.
    const api = opts.dryRun
      ? undefined
      : await ctx.api({
          interruptible: false,
          // The progress line says what is going on; a spinner would fight it for the line.
          spinner: false,
          rateLimitRetries: RATE_LIMIT_RETRIES,
          onRetry: (notice: RetryNotice) => {
            if (notice.status !== 429) return;
            limiter.tooMany();
            report.rateLimit();
          },
        });

    let stopped: { n: number; error: CliError } | undefined;
    // The inputs whose request is on its way now. The others started wait for a place in the
    // limiter, or to be sent again after a 429 (a POST is sent again only when nothing was
    // created): a second Ctrl-C knows that they created nothing.
    const onTheWire = new Set<number>();
    const send = async (n: number, pet: NewPet): Promise<Outcome> => {
      try {
        const created = await createPet(api as NonNullable<typeof api>, pet, {
          throttle: (attempt) =>
            limiter.run(async () => {
              onTheWire.add(n);
              try {
                return await attempt();
              } finally {
                onTheWire.delete(n);
              }
            }),
        });
        limiter.succeeded();
        return { kind: 'created', pet: created };
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        if (stopsTheImport(error)) stopped ??= { n, error };
        if (mayHaveActed(error)) {
          notingMaybeActed(error, 'the animal may have been created');
          return { kind: 'failed', error, uncertain: true };
        }
        return { kind: 'failed', error };
      }
    };

    // Ctrl-C: stop reading (a silent stdin included) and let the requests in flight finish.
    const onAbort = () => {
      stream.destroy();
      // Animals typed at the terminal: the line being typed ends here (what follows, the rows
      // and the summary, would start on it).
      if (opts.file === '-' && io.stdinIsTTY) {
        if (io.stderrIsTTY) io.err('\n');
        else if (io.stdoutIsTTY) io.out('\n');
      }
      if (window.inFlight > 0) {
        const requests = window.inFlight === 1 ? 'request' : 'requests';
        io.err(
          `waiting for ${window.inFlight} ${requests} in flight (Ctrl-C again to quit at once)\n`,
        );
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // A Ctrl-C while the input was being opened (the event is not sent again).
    if (signal.aborted) onAbort();
    let read = opts.skip;
    let inputs = 0;
    // Every input read (and so sent or settled): a Ctrl-C after that leaves nothing to resume.
    let readToEnd = false;
    let stoppedReading = false;
    // Where sending stopped, once every input read is reported: the first input not sent (the
    // import had stopped on a 401 or an unreachable server), else the first not yet reported.
    const sendingStopped = () => ({
      resume: (report.notSent[0] ?? window.unreported) - 1,
      everySent: readToEnd && report.notSent.length === 0,
    });
    // A second Ctrl-C ends the process at once. Every input read is reported first: one whose
    // request is on its way as a timed-out POST is (it may have been created), one waiting
    // for its turn as failed; both go to --failed, and the others have their outcome. Then
    // where to resume (a dry run sends nothing).
    const forgetQuitNote = io.whenQuitAtOnce(() => {
      if (opts.dryRun) return undefined;
      let waited = false;
      window.abandonRunning((n) => {
        if (onTheWire.has(n)) {
          const message = 'quit at once before its answer came: the animal may have been created';
          const error = new CliError(message, ExitCode.interrupted, 'interrupted');
          return { kind: 'failed', error, uncertain: true };
        }
        waited = true;
        const message =
          'quit at once while it waited for its turn to be sent: the animal was not created';
        return {
          kind: 'failed',
          error: new CliError(message, ExitCode.interrupted, 'interrupted'),
        };
      });
      const { resume, everySent } = sendingStopped();
      return report.quitAtOnce(quitAtOnceNote(resume, everySent, waited));
    });
    try {
      for await (const input of untilAborted(readInputs(stream), signal)) {
        inputs = input.n;
        if (input.n <= opts.skip) continue;
        await window.ready(input.n, signal);
        // Ctrl-C, or stdout can no longer be written (disk full, the reader gone): stop sending.
        if (signal.aborted || io.outputError) {
          stoppedReading = true;
          break;
        }
        read = input.n;
        inputsByNumber.set(input.n, input);
        if ('error' in input) {
          window.settle(input.n, { kind: 'failed', error: input.error });
          continue;
        }
        const checked = checkInput(input.value);
        if ('error' in checked) window.settle(input.n, { kind: 'failed', error: checked.error });
        else if (opts.dryRun) window.settle(input.n, { kind: 'valid' });
        else if (stopped) {
          const cause = `input ${stopped.n} failed: ${stopped.error.message}`;
          const error = new CliError(cause, stopped.error.exitCode, 'not_sent');
          error.hint = stopped.error.hint;
          window.settle(input.n, { kind: 'not_sent', error });
        } else window.start(input.n, () => send(input.n, checked.pet));
      }
      readToEnd = !stoppedReading;
    } catch (error) {
      // The stream destroyed by Ctrl-C ends the reading; anything else is a real failure.
      if (!signal.aborted) throw error;
    } finally {
      try {
        // Listening until the requests in flight end: a Ctrl-C once everything was read still
        // says what it waits for (and how to quit at once).
        await window.drain();
      } finally {
        signal.removeEventListener('abort', onAbort);
        forgetQuitNote();
        failedFile?.close();
      }
    }

    const { resume, everySent } = sendingStopped();
    const notSent = notSentText(resume);
    // What --failed misses, however the import ends; on a normal end a failed write of it is
    // the import's failure (below), on the others it is said beside the reason it stopped.
    const failedFileError = failedFile?.error
      ? `cannot write --failed ${failedFile.path}: ${describeWriteError(failedFile.error)}; it does not hold every input that was not created`
      : undefined;
    const sayWhatFailedFileMisses = (stoppedShort: boolean) => {
      if (failedFile?.notKept.length) {
        report.warningLine(
          `--failed ${failedFile.path} does not hold ${namedInputs(failedFile.notKept)}: a line over 1 MiB is not kept`,
        );
      }
      if (failedFile?.notWritable.length) {
        report.warningLine(
          `--failed ${failedFile.path} does not hold ${namedInputs(failedFile.notWritable)}: nested too deeply to be written as JSON`,
        );
      }
      if (stoppedShort && failedFileError) report.errorLine('failed_file', failedFileError);
    };
    if (signal.aborted) {
      // Before any input was read there is nothing to report, nor to resume.
      if (read === opts.skip) throw new SilentExit(ExitCode.interrupted);
      await report.finish(
        everySent ? 'interrupted once every input had been sent' : `interrupted: ${notSent}`,
      );
      sayWhatFailedFileMisses(true);
      throw new SilentExit(ExitCode.interrupted);
    }
    if (read === opts.skip && opts.skip > 0) {
      throw new FlagError(
        `--skip ${opts.skip} skips every input: the input has ${inputs} ${inputs === 1 ? 'object' : 'objects'}`,
      );
    }
    // Lines still waiting in a batch go now: their write may be the one that fails.
    await report.endOutput();
    const failed = io.outputError;
    // The reader leaving once everything was sent (`| head -1`) is no failure, as for any command.
    if (failed && !(everySent && failed.code === 'EPIPE')) {
      // What was created is said on stderr, since stdout failed; main() reports the write error.
      const rest = everySent ? ' once every input had been sent' : `, ${notSent}`;
      report.stopLine('output_failed', `${report.summary()}; output failed${rest}`);
      sayWhatFailedFileMisses(true);
      throw new SilentExit(ExitCode.failure);
    }
    await report.finish();
    sayWhatFailedFileMisses(false);
    if (failedFileError) {
      // The file to run again misses inputs: a failure, with the import's own code if it has one.
      throw new CliError(
        failedFileError,
        firstFailure?.exitCode ?? ExitCode.failure,
        'failed_file',
      );
    }
    if (firstFailure) throw new SilentExit(firstFailure.exitCode);
  } finally {
    report.stopProgress();
  }
}
