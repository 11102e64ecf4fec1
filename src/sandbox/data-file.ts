// The file given with `store sandbox --data`: where it really is (a symlink is followed, never
// replaced), what it holds (the sandbox's SQLite database, a JSON data file of earlier
// versions to import, or nothing yet: missing or empty), and clear one-line errors for anything
// else.
import { constants } from 'node:fs';
import { access, lstat, open, readFile, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

const { isUtf8 } = process.getBuiltinModule('node:buffer');

import { hasLoneSurrogate, JsonDepthError, nestedTooDeep, parseJson, TOO_DEEP } from '../json.js';
import { Int64, Message, NewPet } from '../schemas.js';
import * as z from '../zod.js';

/** The data file cannot be used; it is left untouched. */
export class DataFileError extends Error {
  readonly code = 'EDATA';
}

// The JSON data file written by earlier versions: an object of these keys and no other (any
// JSON object would otherwise pass as an empty one, and be replaced by a database). Orders are
// not validated: the spec defines no shape for them.
const DATA_KEYS = ['pets', 'messages', 'orders'];
// A pet's status is one the service knows (earlier versions took no other): one it does not
// would be served, and could never be listed by --status.
// Its name too is one the service takes ("   " is refused by POST /pets, and was imported).
const StoredPet = z.extend(NewPet, { id: Int64 });
const JsonDataFile = z.strictObject({
  pets: z._default(z.array(StoredPet), []),
  messages: z._default(z.array(Message), []),
  orders: z._default(z.array(z.unknown()), []),
});
export type JsonData = z.infer<typeof JsonDataFile>;

export type DataFile =
  | { kind: 'new'; path: string }
  | { kind: 'sqlite'; path: string }
  | { kind: 'json'; path: string; data: JsonData };

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
  return { kind: 'json', path: real, data: await readJsonData(file, real) };
}

const NEITHER = 'is neither a sandbox SQLite database nor a sandbox JSON data file';

async function readJsonData(file: string, real: string): Promise<JsonData> {
  let json: unknown;
  const refuse = (why: string) =>
    new DataFileError(`data file ${file} ${NEITHER} (${why}); it was left untouched`);
  try {
    const bytes = await readFile(real);
    // What the API refuses is not imported either: bytes that are not UTF-8, or a lone
    // surrogate (SQLite would keep U+FFFD in their place), or JSON nested too deeply.
    if (!isUtf8(bytes)) throw refuse('not UTF-8 text');
    json = parseJson(bytes.toString('utf8'));
  } catch (error) {
    if (error instanceof DataFileError) throw error;
    if (error instanceof JsonDepthError) throw refuse(TOO_DEEP);
    if (!(error instanceof SyntaxError)) throw unusable(file, error);
    throw refuse('not JSON');
  }
  if (nestedTooDeep(json)) throw refuse(TOO_DEEP);
  if (hasLoneSurrogate(json)) throw refuse('a string holds half of a surrogate pair');
  const isObject = typeof json === 'object' && json !== null && !Array.isArray(json);
  if (isObject && !DATA_KEYS.some((key) => Object.hasOwn(json as object, key))) {
    throw refuse('a JSON object without pets, messages or orders');
  }
  const parsed = JsonDataFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'top level';
    throw refuse(`at ${where}: ${issue?.message}`);
  }
  // Each id once: the database refuses a second one, in its own words.
  for (const [kind, ids] of [
    ['pets', parsed.data.pets.map((pet) => BigInt(pet.id))],
    ['messages', parsed.data.messages.map((message) => message.id)],
  ] as const) {
    if (new Set<unknown>(ids).size !== ids.length) {
      throw new DataFileError(
        `data file ${file} has two ${kind} with the same id; it was left untouched`,
      );
    }
  }
  return parsed.data;
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

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ELOOP: 'too many levels of symbolic links',
  ENOTDIR: 'a part of the path is not a folder',
  ENAMETOOLONG: 'the path is too long',
};

function unusable(file: string, error: unknown, detail?: string): DataFileError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reason = REASONS[code] ?? (error as Error).message;
  const what = detail === undefined ? '' : ` (${detail})`;
  return new DataFileError(`data file ${file} cannot be used${what}: ${reason}`, { cause: error });
}
