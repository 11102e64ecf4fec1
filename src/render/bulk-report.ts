// What `pets add --file` shows, input by input and at the end: NDJSON lines under --json;
// otherwise created animals as rows on stdout and failures as plain lines on stderr; on a
// terminal a progress line (io.status: erased before anything else is written) and a summary.
import { commandLine, commandLines } from '../bulk/resume-command.js';
import { type CliError, describeError, shorten, toReport } from '../errors.js';
import { type IOStreams, type StatusLine, writeErrorsArrived } from '../io.js';
import { stringifyJson } from '../json.js';
import type { Pet } from '../schemas.js';
import { type Column, loadTable, type RowWriter, rowWriter, selectFields } from './output.js';
import { sanitize } from './sanitize.js';

export type Outcome =
  | { kind: 'created'; pet: Pet }
  /** --dry-run: the input would be sent. */
  | { kind: 'valid' }
  /** `uncertain`: no clear answer (timed out or cut off once sent, a gateway's 502/504, a 2xx
   * that could not be read, headers too large to read): the animal may have been created. */
  | { kind: 'failed'; error: CliError; uncertain?: boolean }
  | { kind: 'not_sent'; error: CliError };

export interface BulkReportOptions {
  json: boolean;
  /** --json FIELDS: only these keys of each animal created (a failure's line stays whole). */
  jsonFields?: readonly string[];
  dryRun: boolean;
  columns: readonly Column<Pet>[];
  /** The input is typed at the terminal (`--file -`): no progress line, which would sit at
   * the start of the line being typed (its redraws and the typed text share that line). */
  typedInput?: boolean;
  /** Requests sent and not answered yet: the line says it waits for the server only then. */
  inFlight?: () => number;
  /** The files the summary names: where the inputs not created and the uncertain ones are. */
  files?: { failed?: string; uncertain?: () => string | undefined };
  /** How many inputs there are: known (a JSON document), estimated (NDJSON from a regular
   * file, by the bytes read), or not known. */
  total?: () => { count: number; estimated: boolean } | undefined;
}

/** A stderr line that is neither an error nor a summary: JSON under --json, as every line of
 * stderr is there. */
export function noticeLine(json: boolean, text: string): string {
  return json ? `${stringifyJson({ notice: { message: text } })}\n` : `${sanitize(text)}\n`;
}

/** A warning on stderr, made safe for a terminal; a JSON line under --json. */
export function warningLine(json: boolean, message: string): string {
  return json ? `${stringifyJson({ warning: { message } })}\n` : `warning: ${sanitize(message)}\n`;
}

/** How an input is named: NDJSON's by its line too (`input 8 (line 9)`). */
export const inputName = (n: number, lineNo?: number) =>
  lineNo === undefined ? `input ${n}` : `input ${n} (line ${lineNo})`;

/** 42 s, 3 min 5 s, 2 h 10 min. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** How many ranges a summary names: the rest are counted (the --failed file and the NDJSON
 * lines have them all; a line naming hundreds of inputs helps nobody). */
const MAX_RANGES = 10;

/** 1, 2, 3, 5, 7, 8 → "1-3, 5, 7-8"; past MAX_RANGES ranges, "… and 212 more". */
export function ranges(numbers: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < numbers.length; i += 1) {
    if (parts.length === MAX_RANGES) return `${parts.join(', ')} and ${numbers.length - i} more`;
    const start = numbers[i] as number;
    let end = start;
    while (numbers[i + 1] === end + 1) {
      end += 1;
      i += 1;
    }
    parts.push(start === end ? `${start}` : `${start}-${end}`);
  }
  return parts.join(', ');
}

/** "input 7", "inputs 2-3, 9". */
export const namedInputs = (numbers: readonly number[]) =>
  `input${numbers.length === 1 ? '' : 's'} ${ranges(numbers)}`;

export class BulkReport {
  created = 0;
  valid = 0;
  readonly failed: number[] = [];
  readonly uncertain: number[] = [];
  readonly notSent: number[] = [];
  private firstNotSent: CliError | undefined;
  private readonly hinted = new Set<string>();
  private rows: RowWriter<Pet> | undefined;
  private outputEnded: Promise<void> | undefined;
  private progressLine: StatusLine | undefined;
  private progressDrawn = 0;
  /** Redraws the line while nothing is reported (a server that stalls, waits after 429s):
   * the rate and the wait stay true. */
  private progressTimer: NodeJS.Timeout | undefined;
  private lastOutcome = performance.now();
  private awaitedSince: number | undefined;
  /** The last 429 answered and not yet followed by an outcome. */
  private rateLimited = false;
  private progressCounts = '';
  private progressWaited = false;
  private readonly started = performance.now();

  constructor(
    private readonly io: IOStreams,
    private readonly options: BulkReportOptions,
  ) {
    // From the start: a server that stalls before its first answer is waited for too.
    if (io.stderrIsTTY && !options.typedInput) {
      this.progressTimer = setInterval(() => this.progress(true, true), 500);
      this.progressTimer.unref();
    }
  }

  /** Resolves once the report can say all it has to without waiting: a second Ctrl-C draws
   * the table of the animals created at once (quitAtOnce), so its renderer is loaded before
   * anything is sent (rows go out in input order: the first may be the one awaited). */
  async ready(): Promise<void> {
    if (this.io.stdoutIsTTY && !this.options.json && !this.options.dryRun) await loadTable();
  }

  /** Stops redrawing the line (the import ended, however it did). */
  stopProgress(): void {
    clearInterval(this.progressTimer);
  }

  get elapsedSeconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  report(n: number, outcome: Outcome, lineNo?: number): void {
    const { json } = this.options;
    this.lastOutcome = performance.now();
    this.rateLimited = false;
    switch (outcome.kind) {
      case 'created':
        this.created += 1;
        if (json) {
          const fields = this.options.jsonFields;
          this.line(fields ? selectFields(outcome.pet, fields) : outcome.pet);
        } else this.row(outcome.pet);
        break;
      case 'valid':
        this.valid += 1;
        if (json) this.line({ input: n, valid: true });
        break;
      case 'failed':
        (outcome.uncertain ? this.uncertain : this.failed).push(n);
        if (json) {
          this.line({
            input: n,
            ...(lineNo === undefined ? {} : { line: lineNo }),
            error: toReport(outcome.error),
          });
        } else {
          // The progress line is drawn again under the error line: with the counts of now.
          this.progress(true);
          this.err(
            `error: ${inputName(n, lineNo)}: ${describeError(outcome.error)}\n${this.hintOnce(outcome.error)}`,
          );
        }
        break;
      case 'not_sent':
        this.notSent.push(n);
        this.firstNotSent ??= outcome.error;
        if (json) {
          // One short line each: the stop's hint was said once, with the input that stopped it.
          const { hint: _, ...error } = toReport(outcome.error);
          this.line({ input: n, error });
        }
        break;
    }
    this.progress();
  }

  /** Ends the rows (a terminal's table is drawn when they end), then waits for the
   * errors of the writes to arrive (writeErrorsArrived): a failed stdout is then known, unless
   * a full pipe still holds the writes. */
  async endOutput(): Promise<void> {
    // Once: the table of a terminal is drawn when its rows end.
    this.outputEnded ??= (async () => {
      this.stopProgress();
      this.progressLine?.done();
      await this.rows?.end();
      await writeErrorsArrived();
    })();
    await this.outputEnded;
  }

  /** Ends the output: rows, the line for the inputs not sent, and the summary, always (a
   * script's log says what happened); `extra` says why the import stopped short, `resume` is
   * the command that resumes it (resume-command.ts). */
  async finish(extra?: string, resume?: string[], code = 'interrupted'): Promise<void> {
    await this.endOutput();
    const [lines, advice] = this.lastLines(extra, resume, code);
    this.err(`${this.notSentLine()}${lines}`);
    // Laid out for pasting already: not wrapped or cut again.
    if (advice) this.io.err(advice, true);
  }

  /** The summary line (why it stopped short first, under --json), and the resume advice. */
  private lastLines(
    extra: string | undefined,
    resume: string[] | undefined,
    code = 'interrupted',
  ): [string, string] {
    const hint = resume && `resume with: ${commandLine(resume)}`;
    if (this.options.json) {
      const stop = extra
        ? `${stringifyJson({ error: { code, message: extra, status: null, ...(hint ? { hint } : {}) } })}\n`
        : '';
      // Resume advice without an interruption (a stop) goes with the summary.
      const summary = { ...this.summaryObject(), ...(hint && !extra ? { hint } : {}) };
      return [`${stop}${stringifyJson({ summary })}\n`, ''];
    }
    const summary = `${this.summary()}${extra ? `; ${extra}` : ''}\n`;
    if (!resume) return [summary, ''];
    // It names files the user gave: made safe for a terminal.
    const shown = resume.map(sanitize);
    const command = this.io.stderrIsTTY ? commandLines(shown) : commandLine(shown);
    return [summary, `hint: resume with: ${command}\n`];
  }

  /** The counts and files under --json. */
  private summaryObject(): Record<string, unknown> {
    const { dryRun, files } = this.options;
    const uncertainFile = files?.uncertain?.();
    return {
      ...(dryRun ? { valid: this.valid } : { created: this.created }),
      failed: this.failed.length,
      ...(dryRun ? {} : { uncertain: this.uncertain.length, notSent: this.notSent.length }),
      ...(files?.failed === undefined ? {} : { failedFile: files.failed }),
      ...(uncertainFile === undefined ? {} : { uncertainFile }),
    };
  }

  /** The one line for every input not sent, naming the first and why; empty without any. */
  private notSentLine(): string {
    if (!this.firstNotSent) return '';
    const message = `${namedInputs(this.notSent)} not sent: ${this.firstNotSent.message}`;
    return this.options.json
      ? `${stringifyJson({ error: { ...toReport(this.firstNotSent), message } })}\n`
      : `error: ${sanitize(shorten(message))}\n${this.hintOnce(this.firstNotSent)}`;
  }

  /** The `hint:` line of an error (how to log in, that the animal may exist), the first time
   * it comes in this run; nothing after that. */
  private hintOnce(error: CliError): string {
    const { hint } = error;
    if (!hint || this.hinted.has(hint)) return '';
    this.hinted.add(hint);
    return `hint: ${sanitize(hint)}\n`;
  }

  /** Why the import stopped short (a Ctrl-C, a failed stdout), where the summary is not
   * written: a JSON error line under --json, as every stderr line is there. */
  stopLine(code: string, message: string, text = message): void {
    this.err(this.stopLineText(code, message, text));
  }

  private stopLineText(code: string, message: string, text: string): string {
    return this.options.json
      ? `${stringifyJson({ error: { code, message, status: null } })}\n`
      : `${text}\n`;
  }

  /**
   * The last words of an import ended at once (a second Ctrl-C), where `finish` will not come:
   * the lines are the ones `finish` writes
   * for an interrupted import, from the counts of now.
   */
  quitAtOnce(extra: string, resume?: string[]): string {
    this.stopProgress();
    // Drawn again as the inputs still awaited were reported: the last line goes in its place.
    this.progressLine?.done();
    // A terminal's table of the animals created, if its renderer is loaded (it is, but for
    // the first milliseconds of an import): their IDs are shown only there.
    this.rows?.endAtOnce();
    return `${this.notSentLine()}${this.lastLines(extra, resume).join('')}`;
  }

  /** An error beside the line that stopped the import: `error: …`, as every error line (its
   * text made safe for a terminal: it names a file the user gave). */
  errorLine(code: string, message: string): void {
    this.stopLine(code, message, `error: ${sanitize(message)}`);
  }

  /** A warning on stderr, made safe for a terminal; a JSON line under --json. */
  warningLine(message: string): void {
    this.err(warningLine(this.options.json, message));
  }

  /** A notice on stderr (the profile in use), made safe for a terminal; JSON under --json. */
  notice(text: string): void {
    this.err(noticeLine(this.options.json, text));
  }

  /** Every count, and where the files are; on a terminal with the time taken, in a log
   * without it, so that it reads the same. */
  summary(): string {
    const { dryRun, files } = this.options;
    const counted = (count: number, what: string, numbers: readonly number[]) =>
      `${count} ${what}${numbers.length > 0 ? ` (${namedInputs(numbers)})` : ''}`;
    const parts = dryRun
      ? [`Checked ${this.valid + this.failed.length} inputs: ${this.valid} valid`]
      : [`${this.created} created`];
    parts.push(counted(this.failed.length, 'failed', this.failed));
    if (!dryRun) {
      parts.push(counted(this.uncertain.length, 'uncertain', this.uncertain));
      parts.push(counted(this.notSent.length, 'not sent', this.notSent));
    }
    const seconds = this.elapsedSeconds;
    // A rate of typing is no rate of the server's ("0/s"): animals typed at the terminal get none.
    const rate = this.options.typedInput
      ? ''
      : ` (${Math.round((this.created + this.valid) / Math.max(seconds, 0.001))}/s)`;
    if (dryRun) parts.push('nothing was sent');
    let text = parts.join(', ');
    if (this.io.stderrIsTTY) text += ` in ${seconds.toFixed(1)} s${rate}`;
    if (dryRun) return sanitize(text);
    if (files?.failed !== undefined) text += `; failed and not sent in ${files.failed}`;
    if (this.uncertain.length > 0) {
      const file = files?.uncertain?.();
      text += `; uncertain ${file === undefined ? 'inputs' : `in ${file}`}: they may have been created, and adding them again may duplicate them`;
    }
    return sanitize(text);
  }

  private row(pet: Pet): void {
    this.rows ??= rowWriter(this.io, this.options.columns);
    this.rows.write(pet);
  }

  /** Each NDJSON line as its input is answered: a process killed after it printed nothing
   * that a batch would have held. */
  private line(value: unknown): void {
    this.io.out(`${stringifyJson(value)}\n`);
  }

  /** Under --json every line is a JSON object, never wrapped to a terminal's width. */
  private err(text: string): void {
    this.io.err(text, this.options.json);
  }

  /** A 429 was answered: the line says the import is slowed down until the next outcome. */
  rateLimit(): void {
    this.rateLimited = true;
    this.progress(true);
  }

  /** Inputs reported so far. */
  private get reported(): number {
    return (
      this.created + this.valid + this.failed.length + this.uncertain.length + this.notSent.length
    );
  }

  /** `120 of 5000 (2%): `, `120 of about 5000 (2%): ` when estimated; nothing when unknown. */
  private ofTotal(): string {
    const total = this.options.total?.();
    if (!total) return '';
    const count = Math.max(total.count, this.reported);
    const percent = Math.floor((100 * this.reported) / Math.max(count, 1));
    return `${this.reported} of ${total.estimated ? 'about ' : ''}${count} (${percent}%): `;
  }

  /** `, 21 s left` at the rate of now, when the total is known or estimated. */
  private timeLeft(): string {
    const total = this.options.total?.();
    const rate = this.reported / Math.max(this.elapsedSeconds, 0.001);
    if (!total || this.reported === 0) return '';
    const left = Math.max(total.count - this.reported, 0) / rate;
    return `, ${total.estimated ? 'about ' : ''}${duration(left)} left`;
  }

  /** One line on a terminal's stderr, redrawn at most ten times a second unless `now`, and
   * every half second while nothing comes (so that its last counts are never left behind). */
  private progress(now = false, timer = false): void {
    if (!this.io.stderrIsTTY || this.options.typedInput) return;
    const time = performance.now();
    if (!now && time - this.progressDrawn < 100) return;
    this.progressDrawn = time;
    const rate = Math.round((this.created + this.valid) / Math.max(this.elapsedSeconds, 0.001));
    const failed = this.failed.length + this.uncertain.length;
    const done = this.options.dryRun ? `${this.valid} valid` : `${this.created} created`;
    // Waiting for the server: requests in flight, and no outcome since they were seen.
    const awaited = (this.options.inFlight?.() ?? 0) > 0;
    if (!awaited) this.awaitedSince = undefined;
    else this.awaitedSince ??= time;
    const quiet = (time - Math.max(this.lastOutcome, this.awaitedSince ?? time)) / 1000;
    const waiting = this.rateLimited
      ? '; HTTP 429: slowing down'
      : quiet >= 1 && awaited
        ? `; waiting for the server (${Math.floor(quiet)} s)`
        : '';
    const counts = `${done}, ${failed} failed`;
    // The timer redraws only what changed: counts a throttled report left undrawn, or a wait.
    if (timer && counts === this.progressCounts && waiting === '' && !this.progressWaited) return;
    this.progressCounts = counts;
    this.progressWaited = waiting !== '';
    const text = `${this.ofTotal()}${counts} (${rate}/s${this.timeLeft()})${waiting}`;
    if (this.progressLine) this.progressLine.update(text);
    else this.progressLine = this.io.status(text);
  }
}
