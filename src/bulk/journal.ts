// What a bulk import has sent and what it has reported, kept in a small append-only file so
// that an import ended by anything (kill -9, a crash, a lost terminal) can be resumed without
// sending an input twice: `s N` before input N's request leaves, `r N` before its outcome is
// printed, `end` once the import ended in a known state. Each line is one write(2) to a file
// opened with O_APPEND: once it returns, the line is in the file whatever happens to the
// process (fsync would only add power loss, at a disk flush per input).
//
// Outcomes are reported in input order, so the reported inputs are every input up to one
// number: a resume skips through it, and an input sent after it but not reported may have
// been created (uncertain), and is never sent again.
const fs = process.getBuiltinModule('node:fs');
const { basename, dirname, isAbsolute, join, resolve } = process.getBuiltinModule('node:path');

import { requestRoot } from '../api/urls.js';
import {
  makeFolders,
  NotRegularFileError,
  openRegularForWriting,
  readRegularFile,
} from '../config/safe-fs.js';
import type { Env } from '../env.js';
import { FlagError } from '../errors.js';
import { fileProblem } from '../file-errors.js';
import { cannotWrite } from './inputs-file.js';

const HEADER = 'store pets add journal 1';

/** What a journal says of the import it was kept for. */
export interface JournalState {
  /** Every input up to this one was reported (or skipped with --skip). */
  reportedThrough: number;
  /** Inputs after reportedThrough whose request was sent: no answer was recorded. */
  sentUnreported: Set<number>;
  /** Whether the import ended in a known state (`end`): otherwise it was killed. */
  ended: boolean;
  /** The input file when the import began (`input SIZE MTIME`): input numbers mean the same
   * only in the same file. */
  input?: string;
  /** The base URL the inputs went to (`to URL`): what was sent is there. */
  to?: string;
  /** The import stopped sending (`notsent N BYTES`): input N was the first not sent, and the
   * --failed file held BYTES before it and the inputs after it were written there (no BYTES:
   * there was no --failed file). Every input from N on is to send again: reportedThrough is
   * below N. */
  notSent?: { from: number; failedBytes?: number };
}

/** The state in `text`; undefined when it is no journal. A last line cut short (the process
 * killed in its write) is ignored. */
export function parseJournal(text: string): JournalState | undefined {
  const lines = text.split('\n');
  lines.pop();
  if (lines[0] !== HEADER) return undefined;
  let reportedThrough = 0;
  const sent = new Set<number>();
  let ended = false;
  let input: string | undefined;
  let to: string | undefined;
  let notSent: JournalState['notSent'];
  for (const line of lines.slice(1)) {
    const space = line.indexOf(' ');
    const word = space === -1 ? line : line.slice(0, space);
    const n = Number(line.slice(space + 1));
    ended = word === 'end';
    if (word === 'input') input = line.slice(space + 1);
    else if (word === 'to') to = line.slice(space + 1);
    else if (word === 'notsent') {
      const [from, failedBytes] = line
        .slice(space + 1)
        .split(' ')
        .map(Number);
      if (Number.isSafeInteger(from)) {
        notSent = {
          from: from as number,
          ...(Number.isSafeInteger(failedBytes) && { failedBytes: failedBytes as number }),
        };
      }
    } else if (word === 's') sent.add(n);
    else if (word === 'r' || word === 'skip') reportedThrough = Math.max(reportedThrough, n);
    else if (word === 'resume' && Number.isSafeInteger(n)) {
      // A resumed run sends from n + 1 on: what an earlier one did not send is sent now.
      reportedThrough = n;
      notSent = undefined;
    }
  }
  // The inputs not sent were reported (as not sent): a resume sends them.
  if (notSent !== undefined) reportedThrough = Math.min(reportedThrough, notSent.from - 1);
  const sentUnreported = new Set([...sent].filter((n) => n > reportedThrough));
  return {
    reportedThrough,
    sentUnreported,
    ended,
    ...(input === undefined ? {} : { input }),
    ...(to === undefined ? {} : { to }),
    ...(notSent === undefined ? {} : { notSent }),
  };
}

/**
 * The default journal of an import of `file` (a regular file's full path) to `baseUrl`: in the
 * cache folder, named after the file and where it goes. Undefined without a cache folder
 * (no home folder to find it in).
 */
export function defaultJournalPath(
  env: Env,
  file: string,
  baseUrl: string,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const base = cacheBase(env, platform);
  if (base === undefined) return undefined;
  // The file itself, however it is named (a link to it, `./a/../x`): named two ways, one
  // import killed and run again would not find its journal, and send every input twice.
  let full = resolve(file);
  try {
    full = fs.realpathSync(full);
  } catch {
    // Not there (yet): as named.
  }
  // node:crypto only here: most runs of the command never name a default journal.
  const { createHash } = process.getBuiltinModule('node:crypto');
  const id = createHash('sha256')
    .update(JSON.stringify([full, destinationOf(baseUrl)]))
    .digest('hex');
  const name = basename(full)
    .replace(/[^\w.-]/g, '_')
    .slice(0, 64);
  return join(base, 'store', 'journals', `${name}-${id.slice(0, 16)}.journal`);
}

/** A base URL as the journal records where an import goes: `…/v1/` and `…/v1` are one
 * place, and so are a host in capitals and in lower case (requestRoot). One the client refuses
 * sends nothing, and begins no journal: as written. */
export function destinationOf(baseUrl: string): string {
  return requestRoot(baseUrl) ?? baseUrl;
}

/** The user's cache folder, as bin/store.js finds it for code caches. */
function cacheBase(env: Env, platform: NodeJS.Platform): string | undefined {
  if (platform === 'win32')
    return env.LOCALAPPDATA && isAbsolute(env.LOCALAPPDATA) ? env.LOCALAPPDATA : undefined;
  if (platform !== 'darwin' && env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) {
    return env.XDG_CACHE_HOME;
  }
  if (!env.HOME || !isAbsolute(env.HOME)) return undefined;
  return platform === 'darwin' ? join(env.HOME, 'Library', 'Caches') : join(env.HOME, '.cache');
}

/** The journal at `file`, read; undefined when there is none. */
export function readJournal(file: string): JournalState | undefined {
  let found: ReturnType<typeof readRegularFile>;
  try {
    found = readRegularFile(file);
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      throw new FlagError(`cannot read --journal ${file}: it is ${error.kind}`);
    }
    const code = (error as NodeJS.ErrnoException).code;
    // A file where a folder of the path should be: no journal there either.
    if (code === 'ENOTDIR') return undefined;
    throw new FlagError(`cannot read --journal ${file}: ${fileProblem(error)}`);
  }
  if (found === undefined) return undefined;
  const state = parseJournal(found.text);
  if (state === undefined) {
    throw new FlagError(`--journal ${file} is not the journal of a \`store pets add --file\``);
  }
  return state;
}

export class Journal {
  private readonly fd: number;
  private readonly sentOnce = new Set<number>();
  /** The first write that failed: the journal no longer says it all from there on. */
  error: NodeJS.ErrnoException | undefined;

  /** The header of a new journal, written when the import begins (begin()); none once written,
   * or for the journal resumed. */
  private header: string | undefined;
  /** Whether the file held a journal when opened (an earlier import's). */
  private readonly existed: boolean;
  /** Closed or removed, and its lock given up: another import may own the path now. */
  private done = false;
  /** A resumed journal's first line of this run, `resume SKIP`, written with the run's first
   * line: what the earlier run did not send (`notsent`) is sent from there. */
  private resumeLine: string | undefined;

  /** Opens the journal: the one resumed, or a new one recording `skip`. A new one replaces an
   * earlier import's only when this import begins (an input sent or its outcome known): a run
   * that ends before that (no key, a refused --skip, a file that is no JSON, a Ctrl-C) leaves
   * the earlier journal as it was, which a resume may still need. `release` gives up its lock
   * (records.ts), once it is closed. */
  constructor(
    readonly path: string,
    how: { resume: boolean; skip: number; input?: string; to?: string },
    private readonly release: () => void = () => {},
  ) {
    try {
      makeFolders(dirname(path), 0o700);
      this.fd = openRegularForWriting(path, { append: true, mode: 0o600 });
      this.existed = fs.fstatSync(this.fd).size > 0;
    } catch (error) {
      throw cannotWrite('--journal', path, error);
    }
    if (!how.resume) {
      const input = how.input === undefined ? '' : `input ${how.input}\n`;
      const to = how.to === undefined ? '' : `to ${how.to}\n`;
      this.header = `${HEADER}\nskip ${how.skip}\n${input}${to}`;
    } else this.resumeLine = `resume ${how.skip}\n`;
  }

  /** Whether the import has begun, for this journal: it holds this import's lines. */
  get begun(): boolean {
    return this.header === undefined;
  }

  /** The import begins: a new journal replaces what the file held. */
  begin(): void {
    const { header } = this;
    if (header === undefined) return;
    this.header = undefined;
    try {
      fs.ftruncateSync(this.fd);
    } catch (error) {
      this.error ??= error as NodeJS.ErrnoException;
    }
    this.line(header);
  }

  /** Input n's request is about to leave (once per input: a resend after 429 is no news). */
  sent(n: number): void {
    if (this.sentOnce.has(n)) return;
    this.sentOnce.add(n);
    this.line(`s ${n}\n`);
  }

  /** Input n's outcome is about to be printed. */
  reported(n: number): void {
    this.sentOnce.delete(n);
    this.line(`r ${n}\n`);
  }

  /** Input n is the first the import will not send, and --failed (if any) holds
   * `failedBytes` before it and the rest are written there: a run resuming (--resume, or
   * --skip n - 1) sends them again. */
  notSent(n: number, failedBytes: number | undefined): void {
    this.line(`notsent ${n}${failedBytes === undefined ? '' : ` ${failedBytes}`}\n`);
  }

  /** The import ended in a state its output says: a plain run may start over. (One that never
   * began leaves the file as it was.) */
  end(): void {
    if (this.begun) this.line('end\n');
  }

  /** Every input was reported, or the import recorded nothing: nothing is left to resume.
   * Removed before its lock is given up (the next import must not find it); an earlier
   * import's journal is left as it was when this import never began. */
  remove(): void {
    this.finish(this.begun || !this.existed);
  }

  /** Kept for a resume; but one made by this run and never begun, empty, would read as no
   * journal at all: removed. */
  close(): void {
    this.finish(!this.begun && !this.existed);
  }

  private finish(unlink: boolean): void {
    if (this.done) return;
    this.done = true;
    try {
      fs.closeSync(this.fd);
    } catch {
      // Closed already.
    }
    if (unlink) {
      try {
        fs.unlinkSync(this.path);
      } catch {
        // Gone already: as good.
      }
    }
    this.release();
  }

  private line(text: string): void {
    // A journal's first line is its header, whoever writes first (records.ts begins it).
    this.begin();
    if (this.error) return;
    const resume = this.resumeLine ?? '';
    this.resumeLine = undefined;
    try {
      fs.writeSync(this.fd, `${resume}${text}`);
    } catch (error) {
      this.error = error as NodeJS.ErrnoException;
    }
  }
}
