// config.json: the current profile and the user's profiles (URLs and keys). Read and
// written through `conf` (atomic writes), loaded only by commands that need it.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { Env } from '../io.js';

const StoredProfileSchema = z.looseObject({
  baseUrl: z.string().optional(),
  messagesUrl: z.string().optional(),
  apiKey: z.string().optional(),
});
export type StoredProfile = z.infer<typeof StoredProfileSchema>;

const ConfigSchema = z.looseObject({
  currentProfile: z.string().optional(),
  profiles: z.record(z.string(), StoredProfileSchema).optional(),
});
export type ConfigData = z.infer<typeof ConfigSchema>;

/** STORE_CONFIG_DIR, else the platform's config folder (XDG on Linux). */
export function configDir(env: Env, platform: NodeJS.Platform = process.platform): string {
  if (env.STORE_CONFIG_DIR) return env.STORE_CONFIG_DIR;
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'store');
  if (platform === 'win32') {
    return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'store', 'Config');
  }
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'store');
}

interface ConfStore {
  store: Record<string, unknown>;
  readonly path: string;
}

export class ConfigFile {
  private constructor(
    private readonly conf: ConfStore,
    readonly path: string,
    /** Problems worth a warning line, such as a file other users can read. */
    readonly warnings: string[],
  ) {}

  static async open(dir: string): Promise<ConfigFile> {
    const path = join(dir, 'config.json');
    try {
      // 0700: the folder holds API keys.
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new ConfigError(`cannot create config folder ${dir}: ${reason(error)}`, {
        cause: error,
      });
    }
    checkIsObject(path);
    const { default: Conf } = await import('conf');
    try {
      const conf = new Conf({
        cwd: dir,
        configName: 'config',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
      return new ConfigFile(conf, path, exposure(path));
    } catch (error) {
      throw unreadable(path, error);
    }
  }

  read(): ConfigData {
    let raw: unknown;
    try {
      raw = this.conf.store;
    } catch (error) {
      throw unreadable(this.path, error);
    }
    const parsed = ConfigSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError(
        `config file ${this.path} is invalid at ${issue?.path.join('.') || 'top level'}: ${issue?.message}; fix or remove it`,
      );
    }
    return parsed.data;
  }

  /** Reads, changes and writes the whole file (atomically, through conf). */
  update(change: (data: ConfigData) => void): ConfigData {
    const data = structuredClone(this.read());
    change(data);
    try {
      this.conf.store = data;
    } catch (error) {
      throw new ConfigError(`cannot write config file ${this.path}: ${reason(error)}`, {
        cause: error,
      });
    }
    return data;
  }
}

/** The file holds API keys: say so when group or others may read it (conf keeps the mode
 * of an existing file until it writes it again). */
function exposure(path: string): string[] {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return [];
  }
  if ((mode & 0o077) === 0) return [];
  const octal = mode.toString(8).padStart(4, '0');
  return [
    `warning: config file ${path} can be read by other users (mode ${octal}); run: chmod 600 ${path}`,
  ];
}

/** conf reads JSON that is not an object (`[]`, `5`) as an empty store and would then
 * overwrite it; such a file is reported and left alone instead. */
function checkIsObject(path: string): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw unreadable(path, error);
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw unreadable(path, error);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ConfigError(
      `config file ${path} is invalid: expected a JSON object; fix or remove it`,
    );
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function unreadable(path: string, error: unknown): ConfigError {
  const what = error instanceof SyntaxError ? 'is not valid JSON' : 'cannot be read';
  return new ConfigError(`config file ${path} ${what} (${reason(error)}); fix or remove it`, {
    cause: error,
  });
}
