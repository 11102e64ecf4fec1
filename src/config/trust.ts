// Whether config.json and its folder may be trusted with the API keys, checked as ssh checks
// ~/.ssh: each command that reads or writes the config refuses (exit 1) a folder or file that
// another user owns or may write to, and a config.json that is a symbolic link, a FIFO or
// anything but a regular file. Cheap (node:fs only): completion uses it on every TAB.
import type { Stats } from 'node:fs';

const { statSync } = process.getBuiltinModule('node:fs');

import { ConfigError } from '../errors.js';
import { FileTooLargeError, NotRegularFileError, readRegularFile } from './safe-fs.js';

export interface TrustedText {
  /** The file's text; undefined when there is no config.json yet. */
  text: string | undefined;
  /** Worth a warning line: a file that other users can read. */
  warnings: string[];
}

/** Windows has no POSIX owners or modes to check. */
const POSIX = process.platform !== 'win32' && typeof process.geteuid === 'function';

/** Refuses a config folder that is not a folder, or that another user owns or may write to.
 * A folder that is not there yet passes: store creates it 0700. */
export function checkConfigFolder(dir: string): void {
  let stats: Stats;
  try {
    // Followed: a config folder that is a link to the user's dotfiles is fine, and the
    // folder it leads to is the one checked.
    stats = statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error; // the caller says which file could not be read or written
  }
  if (!stats.isDirectory()) throw new ConfigError(`config folder ${dir} is not a folder`);
  checkOwnerAndMode('config folder', dir, stats, '700');
}

/** Far more than any user's profiles (300,000 of them take about 14 MiB), and little enough to
 * read and parse at every command. */
const MAX_CONFIG_BYTES = 32 * 1024 * 1024;

/** The text of `dir`/config.json after the checks above, read without following a link and
 * without waiting on a FIFO. */
export function readTrustedConfig(dir: string, path: string): TrustedText {
  checkConfigFolder(dir);
  let file: ReturnType<typeof readRegularFile>;
  try {
    file = readRegularFile(path, MAX_CONFIG_BYTES);
  } catch (error) {
    if (error instanceof FileTooLargeError) {
      throw new ConfigError(
        `config file ${path} is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB; fix or remove it`,
      );
    }
    if (!(error instanceof NotRegularFileError)) throw error;
    if (error.kind === 'a symbolic link') {
      throw new ConfigError(
        `config file ${path} is a symbolic link; store does not follow links for the file that holds its keys: replace the link with the file it points to`,
      );
    }
    throw new ConfigError(`config file ${path} is ${error.kind}, not a regular file; remove it`);
  }
  if (file === undefined) return { text: undefined, warnings: [] };
  checkOwnerAndMode('config file', path, file.stats, '600');
  return { text: file.text, warnings: exposure(path, file.stats) };
}

function checkOwnerAndMode(what: string, path: string, stats: Stats, mode: string): void {
  if (!POSIX) return;
  const uid = process.geteuid?.();
  // Root's own files are trusted too, as ssh trusts them.
  if (stats.uid !== uid && stats.uid !== 0) {
    throw new ConfigError(
      `${what} ${path} belongs to another user (uid ${stats.uid}); store only uses its config when it is yours: run: sudo chown ${userName(uid)} ${path}`,
    );
  }
  if ((stats.mode & 0o022) !== 0) {
    throw new ConfigError(
      `${what} ${path} can be changed by other users (mode ${octal(stats.mode)}); run: chmod ${mode} ${path}`,
    );
  }
}

/** The file holds API keys: say so when group or others may read it (the mode of an existing
 * file is kept until it is written again). */
function exposure(path: string, stats: Stats): string[] {
  if (!POSIX || (stats.mode & 0o077) === 0) return [];
  return [
    `warning: config file ${path} can be read by other users (mode ${octal(stats.mode)}); run: chmod 600 ${path}`,
  ];
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

function userName(uid: number | undefined): string {
  try {
    return process.getBuiltinModule('node:os').userInfo().username;
  } catch {
    return String(uid);
  }
}
