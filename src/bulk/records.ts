// What a bulk import keeps beside its output, opened before anything is read or sent: the
// --failed and --uncertain files and the journal, and what the journal of an earlier run says
// (where a resume starts, what it sent without an answer).
const { dirname } = process.getBuiltinModule('node:path');

import { holdLock, type LockHolder } from '../config/lock.js';
import { makeFolders } from '../config/safe-fs.js';
import { CliError, ExitCode, FlagError, withHint } from '../errors.js';
import type { ImportOptions } from './import.js';
import { cannotWrite, InputsFile } from './inputs-file.js';
import { Journal, type JournalState, readJournal } from './journal.js';

/** The file the uncertain inputs go to: --uncertain, else beside --failed. */
export function uncertainPath(
  opts: Pick<ImportOptions, 'failed' | 'uncertain'>,
): string | undefined {
  return opts.uncertain ?? (opts.failed === undefined ? undefined : `${opts.failed}.uncertain`);
}

/** The journal's path (none: no journal), and what it records of the import: the input file's
 * identity (`SIZE MTIME`), the base URL the inputs go to. */
export interface JournalSetting {
  path: string | undefined;
  input: string | undefined;
  to: string | undefined;
}

export interface ImportRecords {
  /** Inputs up to this one are not sent: --skip, or what the resumed run reported. */
  skip: number;
  /** Sent by the run cut short, and never answered there: they may have been created. */
  sentBefore: ReadonlySet<number>;
  failedFile: InputsFile | undefined;
  uncertainFile: InputsFile | undefined;
  /** The files opened, to close however the import ends. */
  files: InputsFile[];
  journal: Journal | undefined;
  /** The import begins (its first request, its first outcome, or its input read whole): the
   * files are emptied or cut back, and a new journal replaces an earlier one, now and not
   * before, so that a run refused before it (no key, a --skip past the end) changes nothing. */
  begin(): void;
}

/**
 * Opens what the import keeps; throws a usage error (nothing sent) for a journal that says an
 * earlier run was cut short (unless resumed), a --resume with nothing to resume, or a file that
 * cannot be written; exit 1 while another import holds the journal. A default journal that
 * cannot be made costs only --resume: `warn` says so.
 */
export async function openRecords(
  opts: ImportOptions,
  journal: JournalSetting,
  warn: (message: string) => void,
): Promise<ImportRecords> {
  let journalPath = journal.path;
  const noJournal = (error: unknown) => {
    const failure =
      error instanceof FlagError ? error : cannotWrite('--journal', journalPath as string, error);
    // One in the cache folder that cannot be made (a read-only home) costs only --resume.
    if (opts.journal !== undefined || opts.resume) throw failure;
    warn(
      `${failure.message}; no journal is kept, so an import killed outright cannot be resumed with --resume`,
    );
  };
  let release: (() => void) | undefined;
  if (journalPath !== undefined) {
    try {
      release = await lockJournal(journalPath, opts);
    } catch (error) {
      if (error instanceof CliError) throw error;
      noJournal(error);
      journalPath = undefined;
    }
  }
  try {
    return openLocked(opts, { ...journal, path: journalPath }, noJournal, release);
  } catch (error) {
    release?.();
    throw error;
  }
}

/**
 * Whether a run with --skip continues the import its journal recorded, as the resume advice of
 * a run stopped or interrupted has it (that run's flags, --skip where its sending stopped): the
 * journal ended, through that input at least, of the same file to the same server. It then adds
 * to --failed and --uncertain, as --resume does: emptied, they lost the failures of the run it
 * continues. Any other --skip begins an import afresh.
 */
function continuedBySkip(
  opts: ImportOptions,
  journal: JournalSetting,
  earlier: JournalState | undefined,
): boolean {
  return (
    opts.skip > 0 &&
    earlier !== undefined &&
    earlier.ended &&
    earlier.reportedThrough >= opts.skip &&
    earlier.input === journal.input &&
    (earlier.to === undefined || earlier.to === journal.to)
  );
}

/**
 * The journal's lock (`<journal>.lock`), taken before the journal is read and held until the
 * import ends: two imports with one journal (a cron job started again over one still running,
 * a --resume of an import that is not dead) would each send what the other sends. undefined
 * for a --resume whose journal's folder does not exist: there is nothing to resume.
 */
async function lockJournal(path: string, opts: ImportOptions): Promise<(() => void) | undefined> {
  const locked = (holder: LockHolder) =>
    withHint(
      new CliError(
        `another import is running with the journal ${path} (${holder.by}, for ${holder.seconds} s); nothing was sent`,
        ExitCode.failure,
        'import_running',
      ),
      `wait for it to end, or give this import a --journal of its own; if no store is importing, remove ${holder.lockPath}`,
    );
  try {
    return await holdLock(path, locked);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (opts.resume) return undefined;
  }
  // The first import with a journal there: its folder is made.
  makeFolders(dirname(path), 0o700);
  return holdLock(path, locked);
}

function openLocked(
  opts: ImportOptions,
  journal: JournalSetting,
  noJournal: (error: unknown) => void,
  release: (() => void) | undefined,
): ImportRecords {
  const journalPath = journal.path;
  const earlier = journalPath === undefined ? undefined : readJournal(journalPath);
  if (opts.resume && earlier === undefined) {
    throw new FlagError(
      journalPath === undefined
        ? '--resume needs --journal with --file - (stdin): no journal is kept for it otherwise'
        : `--resume: no import of ${opts.file} to resume (no journal at ${journalPath})`,
    );
  }
  if (!opts.resume && earlier && !earlier.ended) {
    throw withHint(
      new FlagError(
        `an import of ${opts.file} was cut short before it could say how far it got (journal ${journalPath})`,
      ),
      'continue it with --resume (inputs it may have sent are not sent again), or delete the journal to send every input again',
    );
  }
  // Another file under the same name (edited, replaced), or on stdin: its inputs are not those
  // numbered.
  if (opts.resume && earlier?.input !== undefined && earlier.input !== journal.input) {
    const what =
      opts.file === '-'
        ? 'stdin is not the file the import began with'
        : `${opts.file} changed since the import began`;
    throw withHint(
      new FlagError(`--resume: ${what} (journal ${journalPath})`),
      'resuming would skip or send the wrong inputs; put the file back as it was, or delete the journal and use --skip',
    );
  }
  // Sent elsewhere (another profile, STORE_BASE_URL): what was sent is there, not here.
  if (opts.resume && earlier?.to !== undefined && earlier.to !== journal.to) {
    throw withHint(
      new FlagError(
        `--resume: the import in journal ${journalPath} was sending to ${earlier.to}, not to ${journal.to}`,
      ),
      'resume it with the profile (or STORE_BASE_URL) it began with; the inputs it reported are there',
    );
  }
  const skip = opts.resume ? (earlier?.reportedThrough ?? 0) : opts.skip;
  const sentBefore = opts.resume
    ? (earlier?.sentUnreported ?? new Set<number>())
    : new Set<number>();
  const files: InputsFile[] = [];
  const continues = opts.resume || continuedBySkip(opts, journal, earlier);
  const open = (flag: string, path: string | undefined) => {
    if (path === undefined) return undefined;
    const file = new InputsFile(flag, path, continues);
    files.push(file);
    return file;
  };
  // Whatever fails from here closes the files opened so far (the caller gives the lock up).
  try {
    const failedFile = open('--failed', opts.failed);
    // What the run stopped did not send is in its --failed, and this run sends it.
    const notSent = earlier?.notSent;
    const sendsWhatWasNotSent = opts.resume || notSent?.from === opts.skip + 1;
    if (continues && sendsWhatWasNotSent && notSent?.failedBytes !== undefined) {
      failedFile?.keepFirst(notSent.failedBytes);
    }
    const uncertainFile = open('--uncertain', opts.dryRun ? undefined : uncertainPath(opts));
    let kept: Journal | undefined;
    if (journalPath !== undefined) {
      try {
        kept = new Journal(
          journalPath,
          { resume: opts.resume, skip, input: journal.input, to: journal.to },
          release,
        );
      } catch (error) {
        // Refused (it was asked for), or the import goes on without one, its lock given up.
        noJournal(error);
        release?.();
      }
    }
    const begin = () => {
      for (const file of files) file.begin();
      kept?.begin();
    };
    return { skip, sentBefore, failedFile, uncertainFile, files, journal: kept, begin };
  } catch (error) {
    for (const file of files) file.close();
    throw error;
  }
}
