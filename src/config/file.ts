// config.json: the current profile and the user's profiles (URLs, and keys kept in the file). Read with
// node:fs, written through `conf` (atomic writes) under a lock (./lock.ts), loaded only by
// commands that need it.
const { lstatSync, readdirSync, unlinkSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');

import { CliError, ConfigError } from '../errors.js';
import { fileProblem } from '../file-errors.js';
import { nestedTooDeep, TOO_DEEP } from '../json.js';
import * as z from '../zod.js';
import { LOCK_STALE_MS, withLock } from './lock.js';
import { makeFolders } from './safe-fs.js';
import { checkConfigFolder, readTrustedConfig } from './trust.js';

export { configDir } from './dir.js';

const StoredProfileSchema = z.looseObject({
  baseUrl: z.optional(z.string()),
  messagesUrl: z.optional(z.string()),
  apiKey: z.optional(z.string()),
  /** "keyring": the key is in the system keyring (./key-store.ts), not here. */
  keyStorage: z.optional(z.literal('keyring')),
  /** The account of its keyring entry (./key-store.ts, keyringAccount). */
  keyringAccount: z.optional(z.string()),
});
export type StoredProfile = z.infer<typeof StoredProfileSchema>;

const ConfigSchema = z.looseObject({
  currentProfile: z.optional(z.string()),
  profiles: z.optional(z.record(z.string(), StoredProfileSchema)),
});
export type ConfigData = z.infer<typeof ConfigSchema>;

export interface OpenOptions {
  /** Ctrl-C: stop waiting for another process's lock. */
  signal?: AbortSignal;
}

export class ConfigFile {
  private data: ConfigData | undefined;

  /** Problems worth a warning line, such as a file other users can read. */
  warnings: string[] = [];

  private constructor(
    private readonly dir: string,
    readonly path: string,
    private readonly options: OpenOptions,
  ) {}

  static async open(dir: string, options: OpenOptions = {}): Promise<ConfigFile> {
    const path = join(dir, 'config.json');
    const file = new ConfigFile(dir, path, options);
    file.read(); // a broken file is reported by every command that uses the config
    return file;
  }

  /** Read with node:fs and JSON.parse: commands that only read never load `conf`. The folder
   * and the file are checked first (./trust.ts): no link followed, no FIFO waited on, nothing
   * used that another user owns or may change. */
  read(): ConfigData {
    if (this.data) return this.data;
    let text: string;
    try {
      const trusted = readTrustedConfig(this.dir, this.path);
      text = trusted.text ?? '{}';
      this.warnings = trusted.warnings;
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw unreadable(this.path, error);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (error) {
      throw unreadable(this.path, error);
    }
    // conf would read [] or 5 as an empty store and then overwrite it: refuse instead.
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new ConfigError(
        `config file ${this.path} is invalid: expected a JSON object; fix or remove it`,
      );
    }
    // JSON.parse reads any depth; copying and writing it back recurse, and overflow the stack.
    if (nestedTooDeep(raw)) {
      throw new ConfigError(
        `config file ${this.path} is invalid: it ${TOO_DEEP}; fix or remove it`,
      );
    }
    // A profile named __proto__ (written by hand: `profile set` refuses the name) would be
    // dropped by parsing, and with it its key at the next write: refused instead.
    const { profiles } = raw as { profiles?: unknown };
    if (typeof profiles === 'object' && profiles !== null && Object.hasOwn(profiles, '__proto__')) {
      throw new ConfigError(
        `config file ${this.path} is invalid at profiles.__proto__: a profile cannot have that name; fix or remove it`,
      );
    }
    const parsed = ConfigSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError(
        `config file ${this.path} is invalid at ${issue?.path.join('.') || 'top level'}: ${issue?.message}; fix or remove it`,
      );
    }
    this.data = parsed.data;
    return this.data;
  }

  /** Changes and writes the whole file through `conf`: atomic (temp file and rename), 0600 in
   * a 0700 folder whatever the umask. Under the lock, the file is read again and `change`
   * applied to what it holds then, so changes made meanwhile by other processes are kept. */
  async update(change: (data: ConfigData) => void): Promise<ConfigData> {
    try {
      // Loaded and the folder made before the lock is taken: the lock is held for the
      // read and the write alone.
      const { default: Conf } = await import('conf');
      makeFolders(this.dir, 0o700);
      // Before any lock file is made there: not in a folder another user controls.
      checkConfigFolder(this.dir);
      return await withLock(
        this.path,
        // Read again under the lock, with the checks: conf's write (temp file and rename)
        // would follow a link at config.json, and none is there now; the folder is the
        // user's alone, so nobody else can put one there before the rename.
        () => {
          this.data = undefined;
          const data = structuredClone(this.read());
          change(data);
          const conf = new Conf({
            cwd: this.dir,
            configName: 'config',
            configFileMode: 0o600,
            accessPropertiesByDotNotation: false,
            clearInvalidConfig: false,
          });
          conf.store = data;
          this.data = data;
          removeLeftTemporaryFiles(this.dir);
          return data;
        },
        { signal: this.options.signal },
      );
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new ConfigError(`cannot write config file ${this.path}: ${fileProblem(error)}`, {
        cause: error,
      });
    }
  }
}

/** conf's temporary files (config.json.tmp-<time><random>) left by a process killed in the
 * middle of a write: they pile up otherwise. Every write happens under the lock, so one that
 * is not brand new is no write in progress. */
function removeLeftTemporaryFiles(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!/^config\.json\.tmp-\d+[0-9a-f]*$/.test(name)) continue;
    const path = join(dir, name);
    try {
      const stats = lstatSync(path);
      if (stats.isFile() && Date.now() - stats.mtimeMs > LOCK_STALE_MS) unlinkSync(path);
    } catch {
      // gone already
    }
  }
}

function unreadable(path: string, error: unknown): ConfigError {
  const what =
    error instanceof SyntaxError
      ? `is not valid JSON${jsonFault(error)}`
      : `cannot be read (${fileProblem(error)})`;
  return new ConfigError(`config file ${path} ${what}; fix or remove it`, { cause: error });
}

/** Where JSON.parse stopped, without the text it quotes around the fault: that text may be
 * part of a key (`"apiKey": SECRET-…` unquoted). */
function jsonFault(error: SyntaxError): string {
  const at = /\(line (\d+) column (\d+)\)/.exec(error.message);
  if (at) return ` (line ${at[1]}, column ${at[2]})`;
  return /end of JSON input/.test(error.message) ? ' (it ends too soon)' : '';
}
