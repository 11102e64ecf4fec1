// Where a profile's key is kept: the system keyring (Secret Service, Keychain, Credential
// Manager) through @napi-rs/keyring, one entry per profile; or config.json when no keyring can
// be used, or when the user asks for the file (`auth login --insecure-storage`). config.json
// says which: `"keyStorage": "keyring"` in the profile marks a key in the keyring, so commands
// know where to look without asking the keyring, and a vanished entry is told from no key.
import { AuthError, CliError, ExitCode, FlagError, withHint } from '../errors.js';
import type { ConfigData, ConfigFile, StoredProfile } from './file.js';
import { profileExists } from './profiles.js';

/** The keyring's service name; the account is the profile's name. */
export const KEYRING_SERVICE = 'store';

/** One entry per profile. Each call rejects when the keyring cannot be used (locked, no D-Bus
 * session, refused). */
export interface Keyring {
  /** null: no entry for the profile. */
  get(profile: string, signal?: AbortSignal): Promise<string | null>;
  set(profile: string, key: string, signal?: AbortSignal): Promise<void>;
  /** false: there was no entry. */
  delete(profile: string, signal?: AbortSignal): Promise<boolean>;
}

/** The keyring, or a rejection whose message says why none can be used (an unsupported
 * platform, the single executable). Tests inject their own. */
export type KeyringLoader = () => Promise<Keyring>;

interface KeyringModule {
  AsyncEntry: new (
    service: string,
    account: string,
    options?: { linux?: { store?: 'secret-service' | 'keyutils' } },
  ) => {
    getPassword(signal?: AbortSignal): Promise<string | null>;
    setPassword(password: string, signal?: AbortSignal): Promise<void>;
    deleteCredential(signal?: AbortSignal): Promise<boolean>;
  };
}

/** The real keyring. The library is an optional dependency with a native binary per platform,
 * outside the bundle (scripts/build.js): loaded here only, by the commands that need a key. */
export const systemKeyring: KeyringLoader = async () => {
  if (process.getBuiltinModule('node:sea').isSea()) {
    throw new Error('this single executable cannot load the keyring library');
  }
  const library = await loadLibrary();
  // An entry connects to the keyring as it is made (most of a read's cost): one per profile.
  const entries = new Map<string, InstanceType<KeyringModule['AsyncEntry']>>();
  const entry = (profile: string) => {
    let made = entries.get(profile);
    if (!made) {
      // On Linux the Secret Service only: the library would otherwise fall back to the
      // kernel's keyring, which forgets its keys at log-out.
      made = new library.AsyncEntry(KEYRING_SERVICE, profile, {
        linux: { store: 'secret-service' },
      });
      entries.set(profile, made);
    }
    return made;
  };
  return {
    // async: an entry that cannot connect throws as it is made, and that is a rejection too.
    get: async (profile, signal) => entry(profile).getPassword(signal),
    set: async (profile, key, signal) => entry(profile).setPassword(key, signal),
    delete: async (profile, signal) => entry(profile).deleteCredential(signal),
  };
};

/** The library's binding for this platform. Its package first, as the library's index would
 * find it on a common platform without the index's look-ups (a musl check, a file tried beside
 * it: half the load's CPU time); the index where that package is not the one installed. */
async function loadLibrary(): Promise<KeyringModule> {
  const { platform, arch } = process;
  const abi = platform === 'linux' ? '-gnu' : platform === 'win32' ? '-msvc' : '';
  const binding = `@napi-rs/keyring-${platform}-${arch}${abi}`;
  try {
    return (await import(binding)) as KeyringModule;
  } catch {
    // Another libc or ABI (musl, gnueabihf): the index knows.
  }
  try {
    return (await import('@napi-rs/keyring')) as KeyringModule;
  } catch {
    throw new Error(`no keyring library for ${platform}-${arch} is installed`);
  }
}

/** Why the keyring cannot be used, in a few words for a warning or an error line. */
export function keyringFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/D-?Bus/i.test(message)) return 'no D-Bus session';
  if (/locked|prompt was dismissed/i.test(message)) return 'it is locked';
  return message.replace(/\s+/g, ' ').trim();
}

/** Whether config.json marks the profile's key as being in the keyring. */
export function inKeyring(stored: StoredProfile | undefined): boolean {
  return stored?.keyStorage === 'keyring';
}

/** The key of a profile marked as in the keyring. Exit 4 when the entry is gone (deleted by
 * hand; a Secret Service whose locked collection holds nothing says the same) or the keyring
 * cannot be read (locked, no D-Bus session). */
export async function readFromKeyring(
  profile: string,
  loadKeyring: KeyringLoader,
  loginCommand: string,
  signal?: AbortSignal,
): Promise<string> {
  let key: string | null;
  try {
    key = await (await loadKeyring()).get(profile, signal);
  } catch (error) {
    throw withHint(
      new AuthError(
        `cannot read the key of profile ${profile} from the system keyring (${keyringFailure(error)})`,
      ),
      `unlock the keyring, or run \`${loginCommand}\` to store the key again`,
    );
  }
  if (key === null || key === '') {
    throw withHint(
      new AuthError(`the key of profile ${profile} is no longer in the system keyring`),
      `run \`${loginCommand}\` to store it again (or unlock the keyring, if it is locked)`,
    );
  }
  return key;
}

export interface SaveOptions {
  /** --insecure-storage: the file, on purpose. */
  insecure: boolean;
  signal?: AbortSignal;
}

export type SaveResult =
  | { storage: 'keyring' }
  /** `failure`: why the keyring could not be used (none when the file was asked for). */
  | { storage: 'file'; failure?: string };

/**
 * Stores `key` as the profile's key: in the keyring, with config.json marking it there and
 * holding no key (a key it held is removed: moved); or, when the keyring fails or the file is
 * asked for, in config.json as before. A profile removed meanwhile: exit 2, nothing kept.
 */
export async function saveKey(
  config: ConfigFile,
  profile: string,
  key: string,
  loadKeyring: KeyringLoader,
  options: SaveOptions,
): Promise<SaveResult> {
  let keyring: Keyring | undefined;
  let failure: string | undefined;
  let previous: string | null = null;
  const wasInKeyring = inKeyring(config.read().profiles?.[profile]);
  if (!options.insecure) {
    try {
      keyring = await loadKeyring();
      if (wasInKeyring) previous = await keyring.get(profile, options.signal);
      await keyring.set(profile, key, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      keyring = undefined;
      failure = keyringFailure(error);
    }
  }
  try {
    await config.update((data) => {
      const stored = profileToChange(data, profile);
      delete stored.apiKey;
      delete stored.keyStorage;
      if (keyring) stored.keyStorage = 'keyring';
      else stored.apiKey = key;
    });
  } catch (error) {
    // config.json still says what it said: the keyring is put back as it was.
    if (keyring) await putBack(keyring, profile, previous);
    throw error;
  }
  if (keyring) return { storage: 'keyring' };
  // The file holds the key now: an entry left in the keyring is out of date.
  if (wasInKeyring && options.insecure) await removeFromKeyring(loadKeyring, profile);
  return { storage: 'file', failure };
}

/**
 * Forgets the profile's key wherever it is: the keyring's entry (when config.json marks one)
 * and config.json's copy. False when there was none. A keyring that cannot be reached: exit 1
 * and nothing changed, so that `auth status` still says where the key is.
 */
export async function removeKey(
  config: ConfigFile,
  profile: string,
  loadKeyring: KeyringLoader,
  signal?: AbortSignal,
): Promise<boolean> {
  const stored = config.read().profiles?.[profile];
  const marked = inKeyring(stored);
  if (!marked && stored?.apiKey === undefined) return false;
  if (marked) {
    try {
      await (await loadKeyring()).delete(profile, signal);
    } catch (error) {
      throw new CliError(
        `cannot remove the key of profile ${profile} from the system keyring (${keyringFailure(error)}); nothing was changed`,
        ExitCode.failure,
        'keyring_error',
      );
    }
  }
  await config.update((data) => {
    const changed = data.profiles?.[profile];
    if (!changed) return;
    delete changed.apiKey;
    delete changed.keyStorage;
    if (Object.keys(changed).length === 0) delete data.profiles?.[profile];
  });
  return true;
}

/**
 * The keyring entry of a profile that `profile remove` just removed: the reason it stays
 * when it cannot be removed, for a warning.
 */
export async function removeFromKeyring(
  loadKeyring: KeyringLoader,
  profile: string,
): Promise<string | undefined> {
  try {
    await (await loadKeyring()).delete(profile);
    return undefined;
  } catch (error) {
    return keyringFailure(error);
  }
}

function profileToChange(data: ConfigData, profile: string): StoredProfile {
  // Removed while the key was typed or checked: a key alone would bring back a profile
  // without URLs. Nothing is written.
  if (!profileExists(data, profile)) {
    throw new FlagError(`profile ${profile} was removed meanwhile; nothing was saved`);
  }
  data.profiles ??= {};
  data.profiles[profile] ??= {};
  return data.profiles[profile];
}

async function putBack(keyring: Keyring, profile: string, previous: string | null) {
  try {
    if (previous === null) await keyring.delete(profile);
    else await keyring.set(profile, previous);
  } catch {
    // The error that stopped the save is the one to report.
  }
}
