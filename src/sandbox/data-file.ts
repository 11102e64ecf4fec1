// The file given with `store sandbox --data`: where it really is (a symlink is followed, never
// replaced), what it holds (the sandbox's SQLite database, or nothing yet: missing or empty),
// and clear one-line errors for anything else.
import { constants } from 'node:fs';
import { access, lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileProblem } from '../file-errors.js';

/** The data file cannot be used; it is left untouched. */
export class DataFileError extends Error {
  readonly code = 'EDATA';
}

export type DataFile = { kind: 'new'; path: string } | { kind: 'sqlite'; path: string };

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Finds and classifies the data file; `path` is where it really is (symlinks resolved). */
export async function inspectDataFile(file: string): Promise<DataFile> {
  const real = await resolveLinks(file);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(real);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unusable(file, error);
    await checkFolder(file, path.dirname(real));
    return { kind: 'new', path: real };
  }
  if (info.isDirectory()) throw new DataFileError(`data file ${file} is a folder, not a file`);
  if (!info.isFile()) throw new DataFileError(`data file ${file} is not a regular file`);
  await checkFolder(file, path.dirname(real));
  // Empty (`--data "$(mktemp)"`): SQLite itself takes an empty file for an empty database.
  if (info.size === 0) return { kind: 'new', path: real };
  const head = Buffer.alloc(SQLITE_MAGIC.length);
  try {
    const handle = await open(real, 'r');
    try {
      await handle.read(head, 0, head.length, 0);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw unusable(file, error);
  }
  if (head.equals(SQLITE_MAGIC)) return { kind: 'sqlite', path: real };
  throw new DataFileError(
    `data file ${file} is not a sandbox SQLite database; it was left untouched`,
  );
}

/** Follows symlinks, a dangling one included (the file is then created where it points). */
async function resolveLinks(file: string): Promise<string> {
  let current = path.resolve(file);
  for (let hops = 0; hops < 40; hops++) {
    try {
      return await realpath(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unusable(file, error);
    }
    // Missing: either nothing is there (the file will be created), or a dangling symlink.
    try {
      if (!(await lstat(current)).isSymbolicLink()) return current;
      current = path.resolve(path.dirname(current), await readlink(current));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unusable(file, error);
      // The folder itself may be reached through links: resolve it, keep the name.
      try {
        return path.join(await realpath(path.dirname(current)), path.basename(current));
      } catch {
        return current;
      }
    }
  }
  throw new DataFileError(`data file ${file}: too many levels of symbolic links`);
}

/** SQLite writes its -wal and -shm files beside the database: the folder must be writable. */
async function checkFolder(file: string, folder: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new DataFileError(`data file ${file}: folder ${folder} does not exist`);
    }
    throw unusable(file, error);
  }
  if (!info.isDirectory()) throw new DataFileError(`data file ${file}: ${folder} is not a folder`);
  try {
    await access(folder, constants.W_OK);
  } catch (error) {
    throw unusable(file, error, `cannot write in folder ${folder}`);
  }
}

function unusable(file: string, error: unknown, detail?: string): DataFileError {
  const what = detail === undefined ? '' : ` (${detail})`;
  return new DataFileError(`data file ${file} cannot be used${what}: ${fileProblem(error)}`, {
    cause: error,
  });
}
