// `pets add --file`: every input checked, then sent once over one keep-alive pool with a
// bounded number of requests in flight, reported in input order. It stops sending at the
// first failure that every later input would meet too (the key refused, the server out of
// reach), slows down while the server answers 429, and can resume (--skip; --resume from its
// journal after a kill) or retry only what certainly failed (--failed; what may have been
// created goes to --uncertain).
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
  withHint,
} from '../errors.js';
import { describeWriteError } from '../output-stream.js';
import { untilCtrlC } from '../reading.js';
import {
  BulkReport,
  namedInputs,
  noticeLine,
  type Outcome,
  warningLine,
} from '../render/bulk-report.js';
import type { NewPet } from '../schemas.js';
import { setV8Flags } from '../v8-flags.js';
import { checkInput } from './check-input.js';
import type { Journal } from './journal.js';
import { OrderedWindow } from './ordered-window.js';
import { RateLimiter } from './rate-limiter.js';
import { type Input, type ReadCounter, readInputs } from './read-inputs.js';
import { openRecords } from './records.js';
import { resumeCommand } from './resume-command.js';

export { DEFAULT_CONCURRENCY } from './rate-limiter.js';
export { uncertainPath } from './records.js';

/** Further attempts of a POST answered 429 (the server did not act on it). */
const RATE_LIMIT_RETRIES = 5;

export interface ImportOptions {
  /** Where the inputs come from: `-` is stdin. */
  file?: string;
  concurrency: number;
  /** Inputs before this number are skipped (resuming an import). */
  skip: number;
  dryRun: boolean;
  /** Where the inputs not created are written, as NDJSON. */
  failed?: string;
  /** Where the inputs that may have been created are written, as NDJSON; `FAILED.uncertain`
   * by default when only `failed` is given. */
  uncertain?: string;
  /** The journal named by --journal (else one in the cache folder: `journalPath`). */
  journal?: string;
  /** Continue the import its journal records. */
  resume: boolean;
}

/** What the command found out before the import: where its journal is (none for a dry run,
 * or stdin without --journal), the input file's size (for an estimate of the time left). */
export interface ImportSetting {
  journalPath?: string;
  inputBytes?: number;
  /** The input file's size and time of change (`SIZE MTIME`), when it is a file: a resume
   * of another file under its name is refused. */
  inputFile?: string;
  /** The input may be large and the process could not restart under BULK_V8_FLAGS. */
  sizeHeapAtRunTime?: boolean;
  /** The base URL the inputs go to: a resume against another is refused. */
  destination?: string;
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
const notSentText = (resume: number) => `inputs after ${resume} were not sent`;

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
 * V8 sizes its heap to the allocation rate, not to what is live: a large import grows to twice
 * the memory it needs under V8's defaults. With its young generation bounded and its heap tuned
 * for size, it stays near the same size whatever the input's size, faster than with
 * --optimize-for-size set at run time (docs/performance.md). These can only be given
 * when the process starts: `pets add --file` restarts with them (src/restart.ts) before it reads
 * or sends anything, when its input may be large (src/commands/pets/add.ts).
 */
export const BULK_V8_FLAGS = ['--max-semi-space-size=1', '--optimize-for-size'];

/** `sizeHeapAtRunTime`: the input may be large and the process could not restart under
 * BULK_V8_FLAGS (Windows, the single executable…): V8 is told at run time to favour size
 * instead (a lower rate: docs/performance.md), and then makes no code cache
 * (src/v8-flags.ts). */
export async function importPets(
  stream: Readable,
  ctx: Context,
  opts: ImportOptions,
  setting: ImportSetting = {},
): Promise<void> {
  const { io, options, signal } = ctx;
  if (setting.sizeHeapAtRunTime) setV8Flags('--optimize-for-size');
  const { skip, sentBefore, failedFile, uncertainFile, files, journal, begin } = await openRecords(
    opts,
    {
      path: opts.dryRun ? undefined : setting.journalPath,
      input: setting.inputFile,
      to: setting.destination,
    },
    (message) => io.err(warningLine(options.json, message), options.json),
  );
  const limiter = new RateLimiter(opts.concurrency);
  const counter: ReadCounter = { bytes: 0 };
  let documentTotal: number | undefined;
  let read = skip;
  // The number of the last input read (a skipped one too).
  let inputs = 0;
  const report = new BulkReport(io, {
    json: options.json,
    ...(options.jsonFields && { jsonFields: options.jsonFields }),
    dryRun: opts.dryRun,
    columns: PET_COLUMNS,
    typedInput: opts.file === '-' && io.stdinIsTTY,
    inFlight: () => window.inFlight,
    files: {
      failed: opts.failed,
      // The default one beside --failed is named only when it holds anything.
      uncertain: () =>
        opts.uncertain !== undefined || (uncertainFile?.written ?? 0) > 0
          ? uncertainFile?.path
          : undefined,
    },
    total: () => {
      if (documentTotal !== undefined) return { count: documentTotal, estimated: false };
      const size = setting.inputBytes;
      if (!size || counter.bytes === 0 || inputs === 0) return undefined;
      // The inputs read so far, scaled from the bytes of their lines to the whole file.
      return {
        count: Math.round((inputs * size) / Math.min(counter.bytes, size)),
        estimated: true,
      };
    },
  });
  const inputsByNumber = new Map<number, Input>();
  let firstFailure: CliError | undefined;
  const window = new OrderedWindow<Outcome>({
    span: opts.concurrency,
    limit: () => opts.concurrency,
    first: skip + 1,
    report: (n, outcome) => {
      begin();
      const input = inputsByNumber.get(n);
      inputsByNumber.delete(n);
      // Recorded before it is printed: a resume never prints an outcome twice.
      journal?.reported(n);
      if (outcome.kind === 'not_sent' && report.notSent.length === 0) {
        // Where the inputs not sent begin (and in --failed): a resumed run sends them.
        journal?.notSent(n, failedFile?.size());
      }
      if (outcome.kind === 'failed' || outcome.kind === 'not_sent') {
        firstFailure ??= outcome.error;
        const file = outcome.kind === 'failed' && outcome.uncertain ? uncertainFile : failedFile;
        if (input) file?.write(input);
      }
      report.report(n, outcome, input?.lineNo);
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
          many: true,
          // Under --json every line of a bulk add's stderr is JSON: the client's too.
          say: options.json
            ? {
                warning: (message: string) => report.warningLine(message),
                notice: (line: string) => report.notice(line),
              }
            : undefined,
          // The progress line says what is going on; a spinner would fight it for the line.
          spinner: false,
          rateLimitRetries: RATE_LIMIT_RETRIES,
          onRetry: (notice: RetryNotice) => {
            if (notice.status !== 429) return;
            limiter.tooMany();
            report.rateLimit();
          },
        });
    // A dry run sends nothing: there is nothing to resume.
    const resumeWith = api && resumeCommand(opts, options, ctx.env, await ctx.profile());

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
              begin();
              // In the journal before it leaves: a resume after a kill knows it may exist.
              journal?.sent(n);
              if (journal?.error) throw journalFailed(journal);
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
          noticeLine(
            options.json,
            `waiting for ${window.inFlight} ${requests} in flight (Ctrl-C again to quit at once)`,
          ),
          options.json,
        );
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // A Ctrl-C while the input was being opened (the event is not sent again).
    if (signal.aborted) onAbort();
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
    // request is on its way as uncertain (it may have been created), one waiting for its turn
    // as failed; and the others have their outcome. Then where to resume (a dry run sends
    // nothing).
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
      journal?.end();
      const { resume, everySent } = sendingStopped();
      return report.quitAtOnce(
        quitAtOnceNote(resume, everySent, waited),
        everySent ? undefined : resumeWith?.(resume),
      );
    });
    try {
      for await (const input of untilAborted(readInputs(stream, undefined, counter), signal)) {
        inputs = input.n;
        if (input.total !== undefined) documentTotal = input.total;
        if (input.n <= skip) continue;
        await window.ready(input.n, signal);
        // Ctrl-C, or stdout or the journal can no longer be written (disk full, the reader
        // gone): stop sending.
        if (signal.aborted || io.outputError || journal?.error) {
          stoppedReading = true;
          break;
        }
        read = input.n;
        inputsByNumber.set(input.n, input);
        if (sentBefore.has(input.n)) {
          window.settle(input.n, { kind: 'failed', error: noAnswerRecorded(), uncertain: true });
          continue;
        }
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
      // Read whole (if empty), unless --skip skipped every input (a usage error, below).
      if (readToEnd && (skip === 0 || inputs > skip)) begin();
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
        for (const file of files) file.close();
      }
    }

    // Every input answered (none left unsent by a stop): nothing is left to resume, and a plain
    // run may start over.
    if (readToEnd && !signal.aborted && report.notSent.length === 0) journal?.remove();
    else journal?.end();

    const { resume, everySent } = sendingStopped();
    const notSent = notSentText(resume);
    // What the files miss, however the import ends; on a normal end a failed write of one is
    // the import's failure (below), on the others it is said beside the reason it stopped.
    const fileErrors = files
      .filter((file) => file.error)
      .map(
        (file) =>
          `cannot write ${file.flag} ${file.path}: ${describeWriteError(file.error as NodeJS.ErrnoException)}; it does not hold every input it should`,
      );
    if (journal?.error) {
      fileErrors.push(
        `cannot write the journal ${journal.path}: ${describeWriteError(journal.error)}; sending stopped`,
      );
    }
    const sayWhatFilesMiss = (stoppedShort: boolean) => {
      for (const file of files) {
        if (file.notKept.length) {
          report.warningLine(
            `${file.flag} ${file.path} does not hold ${namedInputs(file.notKept)}: a line over 1 MiB is not kept`,
          );
        }
        if (file.notWritable.length) {
          report.warningLine(
            `${file.flag} ${file.path} does not hold ${namedInputs(file.notWritable)}: nested too deeply to be written as JSON`,
          );
        }
      }
      if (stoppedShort) for (const line of fileErrors) report.errorLine('failed_file', line);
    };
    if (signal.aborted) {
      // Before any input was read there is nothing to report, nor to resume.
      if (read === skip) throw new SilentExit(ExitCode.interrupted);
      await report.finish(
        everySent ? 'interrupted once every input had been sent' : `interrupted: ${notSent}`,
        everySent ? undefined : resumeWith?.(resume),
      );
      sayWhatFilesMiss(true);
      throw new SilentExit(ExitCode.interrupted);
    }
    if (read === skip && skip > 0 && !opts.resume) {
      throw new FlagError(
        `--skip ${skip} skips every input: the input has ${inputs} ${inputs === 1 ? 'object' : 'objects'}`,
      );
    }
    await report.endOutput();
    const failed = io.outputError;
    // The reader leaving once everything was sent (`| head -1`) is no failure, as for any command.
    if (failed && !(everySent && failed.code === 'EPIPE')) {
      // What was created is said on stderr, since stdout failed; main() reports the write error.
      const rest = everySent ? ' once every input had been sent' : `, ${notSent}`;
      await report.finish(
        `output failed${rest}`,
        everySent ? undefined : resumeWith?.(resume),
        'output_failed',
      );
      sayWhatFilesMiss(true);
      throw new SilentExit(ExitCode.failure);
    }
    if (journal?.error && !readToEnd) {
      await report.finish(`stopped: ${notSent}`, resumeWith?.(resume), 'journal_failed');
      sayWhatFilesMiss(true);
      throw new SilentExit(ExitCode.failure);
    }
    await report.finish(
      undefined,
      stopped && report.notSent.length > 0 ? resumeWith?.(resume) : undefined,
    );
    sayWhatFilesMiss(false);
    if (fileErrors.length > 0) {
      // A file misses inputs: a failure, with the import's own code if it has one.
      throw new CliError(
        fileErrors.join('; '),
        firstFailure?.exitCode ?? ExitCode.failure,
        'failed_file',
      );
    }
    if (firstFailure) throw new SilentExit(firstFailure.exitCode);
  } finally {
    report.stopProgress();
    // Closed here too: a run that ends before it reads (no key) never reaches the reading's.
    for (const file of files) file.close();
    journal?.close();
    // The default file beside --failed is made only to be written to: gone when it holds
    // nothing (a resumed import's holds what the run it continues wrote), however the run ended.
    if (opts.uncertain === undefined && uncertainFile?.empty) uncertainFile.remove();
  }
}

/** An input the run cut short had sent, with no answer recorded: it may have been created. */
function noAnswerRecorded(): CliError {
  const message = 'sent before the import was cut short, and no answer was recorded';
  return withHint(
    new CliError(message, ExitCode.failure, 'no_answer'),
    'the animal may have been created',
  );
}

function journalFailed(journal: Journal): CliError {
  return new CliError(
    `not sent: the journal ${journal.path} cannot be written`,
    ExitCode.failure,
    'journal_failed',
  );
}
