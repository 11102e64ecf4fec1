// What a bulk import keeps beside its output, opened before anything is read or sent: the
// --failed and --uncertain files and the journal, and what the journal of an earlier run says
// (where a resume starts, what it sent without an answer).
import { FlagError, withHint } from '../errors.js';
import type { ImportOptions } from './import.js';
import { InputsFile } from './inputs-file.js';
import { Journal, readJournal } from './journal.js';

/** The file the uncertain inputs go to: --uncertain, else beside --failed. */
export function uncertainPath(
  opts: Pick<ImportOptions, 'failed' | 'uncertain'>,
): string | undefined {
  return opts.uncertain ?? (opts.failed === undefined ? undefined : `${opts.failed}.uncertain`);
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
}

/**
 * Opens what the import keeps; throws a usage error (nothing sent) for a journal that says an
 * earlier run was cut short (unless resumed), a --resume with nothing to resume, or a file that
 * cannot be written. A default journal that cannot be made costs only --resume: `warn` says so.
 */
export function openRecords(
  opts: ImportOptions,
  journal: { path: string | undefined; input: string | undefined },
  warn: (message: string) => void,
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
  // Another file under the same name (edited, replaced): its inputs are not those numbered.
  if (opts.resume && earlier?.input !== undefined && earlier.input !== journal.input) {
    throw withHint(
      new FlagError(
        `--resume: ${opts.file} changed since the import began (journal ${journalPath})`,
      ),
      'resuming would skip or send the wrong inputs; put the file back as it was, or delete the journal and use --skip',
    );
  }
  const skip = opts.resume ? (earlier?.reportedThrough ?? 0) : opts.skip;
  const sentBefore = opts.resume
    ? (earlier?.sentUnreported ?? new Set<number>())
    : new Set<number>();
  const files: InputsFile[] = [];
  // A resumed import adds to what the run it continues wrote.
  const open = (flag: string, path: string | undefined) => {
    if (path === undefined) return undefined;
    try {
      const file = new InputsFile(flag, path, opts.resume);
      files.push(file);
      return file;
    } catch (error) {
      for (const file of files) file.close();
      throw error;
    }
  };
  const failedFile = open('--failed', opts.failed);
  const uncertainFile = open('--uncertain', opts.dryRun ? undefined : uncertainPath(opts));
  let kept: Journal | undefined;
  try {
    kept =
      journalPath === undefined
        ? undefined
        : new Journal(journalPath, { resume: opts.resume, skip, input: journal.input });
  } catch (error) {
    // One in the cache folder that cannot be made (a read-only home) costs only --resume.
    if (!(opts.journal === undefined && !opts.resume && error instanceof FlagError)) {
      for (const file of files) file.close();
      throw error;
    }
    warn(
      `${error.message}; no journal is kept, so an import killed outright cannot be resumed with --resume`,
    );
  }
  return { skip, sentBefore, failedFile, uncertainFile, files, journal: kept };
}
