// Built-in profiles and how a profile's settings are resolved:
// flag > environment variable > profile in config > built-in default.
import { closest } from '../commands/help/suggest.js';
import type { Env } from '../env.js';
import { FlagError, withHint } from '../errors.js';
import type { ConfigData, StoredProfile } from './file.js';
import { quote } from './quote.js';
import { runningSandboxUrl } from './sandbox-record.js';

export interface ProfileSettings {
  baseUrl: string;
  messagesUrl: string;
  apiKey?: string;
}

// The service's real addresses are not public; these are the documented placeholders.
export const BUILTIN_PROFILES: Readonly<Record<string, ProfileSettings>> = {
  production: {
    baseUrl: 'https://api.animal-store.example/v1',
    messagesUrl: 'https://api.animal-store.example/v1',
  },
  staging: {
    baseUrl: 'https://staging.api.animal-store.example/v1',
    messagesUrl: 'https://staging.api.animal-store.example/v1',
  },
  sandbox: {
    baseUrl: 'http://127.0.0.1:4010/v1',
    messagesUrl: 'http://127.0.0.1:4010/v1',
    apiKey: 'sandbox',
  },
};

export const DEFAULT_PROFILE = 'production';

/** Where the key comes from; a built-in profile's own key (sandbox) counts as its config. */
export type KeySource = 'env' | 'config' | 'none';

/** Where the key is kept (./key-store.ts): the system keyring, config.json, STORE_API_KEY, or
 * the built-in profile itself (sandbox). */
export type KeyStorage = 'keyring' | 'file' | 'env' | 'builtin';

/** Where the profile's name comes from: -p, STORE_PROFILE, the config's current profile, or
 * the built-in default. */
export type ProfileSource = 'flag' | 'env' | 'config' | 'default';

/** Where the base URL comes from: the profile, or STORE_BASE_URL. */
export type BaseUrlSource = 'profile' | 'env';

export interface ResolvedProfile {
  name: string;
  /** Where `name` comes from. */
  source: ProfileSource;
  baseUrl: string;
  baseUrlSource: BaseUrlSource;
  messagesUrl: string;
  /** Where `messagesUrl` comes from: the profile, or the variable that won. */
  messagesUrlSource: 'profile' | 'STORE_MESSAGES_URL' | 'STORE_BASE_URL';
  /** Undefined for a key in the keyring: read only by the commands that send it
   * (Context.apiKey). */
  apiKey: string | undefined;
  keySource: KeySource;
  /** null: no key. */
  keyStorage: KeyStorage | null;
}

/** Letters, digits, '.', '_' and '-', 1–64 of them, starting with a letter or digit: names
 * that are safe in a shell, in completion scripts and on a terminal. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const PROFILE_NAME_RULE =
  'the profile name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit';

/** For a name about to be created (`profile set`): FlagError (exit 2) when it breaks the rule.
 * Names already in a hand-written config are still usable by `use`, `remove` and `-p`. */
export function checkProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) {
    throw new FlagError(`invalid profile name ${quote(name)}: ${PROFILE_NAME_RULE}`);
  }
}

/** The known profile `name` was probably meant to be (`staging` for `stagin`), if any. */
export function suggestProfile(name: string, knownNames: readonly string[]): string | undefined {
  return name === '' ? undefined : closest(name, knownNames);
}

/**
 * The error for a profile that does not exist (exit 2): a did-you-mean when a known name is
 * close, where to see the known ones, and how to create it when the name may be created.
 * `via` says where the name came from when not from the command line (`STORE_PROFILE`).
 */
export function unknownProfileError(
  name: string,
  knownNames: readonly string[],
  via?: string,
  /** False where creating it would not help (`profile remove`). */
  creatable = true,
): FlagError {
  const suggestion = suggestProfile(name, knownNames);
  const notes = [via && `set in ${via}`, suggestion && `did you mean ${quote(suggestion)}?`].filter(
    Boolean,
  );
  const message = `unknown profile ${quote(name)}${notes.length ? ` (${notes.join('; ')})` : ''}`;
  let hint = 'see `store profile list`';
  if (creatable && PROFILE_NAME.test(name)) {
    hint += `, or create it with \`store profile set ${name} --base-url <url>\``;
  }
  return withHint(new FlagError(message), hint);
}

export function isBuiltin(name: string): boolean {
  return Object.hasOwn(BUILTIN_PROFILES, name);
}

/** Every profile name: the built-ins first, then the user's in the order they were added. */
export function profileNames(config: ConfigData): string[] {
  // A set: a list searched for each name would be quadratic in the profiles.
  const names = new Set(Object.keys(BUILTIN_PROFILES));
  for (const name of Object.keys(config.profiles ?? {})) names.add(name);
  return [...names];
}

export function profileExists(config: ConfigData, name: string): boolean {
  return isBuiltin(name) || Object.hasOwn(config.profiles ?? {}, name);
}

export function storedProfile(config: ConfigData, name: string): StoredProfile | undefined {
  return Object.hasOwn(config.profiles ?? {}, name) ? config.profiles?.[name] : undefined;
}

/** The profile in use and where its name comes from: --profile, then STORE_PROFILE, then the
 * config's current one, then the default. */
export function selectedProfile(
  config: ConfigData,
  env: Env,
  flag?: string,
): { name: string; source: ProfileSource } {
  if (flag) return { name: flag, source: 'flag' };
  if (env.STORE_PROFILE) return { name: env.STORE_PROFILE, source: 'env' };
  if (config.currentProfile) return { name: config.currentProfile, source: 'config' };
  return { name: DEFAULT_PROFILE, source: 'default' };
}

/** Where the name of the profile in use was set, as messages say it; nothing for a flag the
 * user just typed, or for the default. */
export function profileSourceName(source: ProfileSource): string | undefined {
  if (source === 'env') return 'STORE_PROFILE';
  if (source === 'config') return 'config.json as the current profile';
  return undefined;
}

/** The profile that is current when neither -p nor STORE_PROFILE says otherwise. */
export function currentProfileName(config: ConfigData): string {
  return config.currentProfile || DEFAULT_PROFILE;
}

/** A profile's settings as stored, before environment overrides (for `profile list`). */
export function profileSettings(config: ConfigData, name: string): ProfileSettings {
  const builtin = BUILTIN_PROFILES[name];
  const stored = storedProfile(config, name);
  const baseUrl = stored?.baseUrl ?? builtin?.baseUrl ?? '';
  return {
    baseUrl,
    // An overridden base URL carries the messages URL with it unless that is set too.
    messagesUrl:
      stored?.messagesUrl ?? (stored?.baseUrl ? baseUrl : builtin?.messagesUrl) ?? baseUrl,
    apiKey: stored?.apiKey ?? builtin?.apiKey,
  };
}

export function resolveProfile(
  config: ConfigData,
  env: Env,
  name: string,
  source: ProfileSource = 'config',
): ResolvedProfile {
  const settings = withRunningSandbox(config, env, name, profileSettings(config, name));
  const stored = storedProfile(config, name);
  const inKeyring = stored?.keyStorage === 'keyring';
  let keyStorage: KeyStorage | null = null;
  if (env.STORE_API_KEY) keyStorage = 'env';
  else if (inKeyring) keyStorage = 'keyring';
  else if (stored?.apiKey) keyStorage = 'file';
  else if (settings.apiKey) keyStorage = 'builtin';
  const keySource: KeySource =
    keyStorage === 'env' ? 'env' : keyStorage === null ? 'none' : 'config';
  return {
    name,
    source,
    baseUrl: env.STORE_BASE_URL || settings.baseUrl,
    baseUrlSource: env.STORE_BASE_URL ? 'env' : 'profile',
    // STORE_BASE_URL alone moves the messages URL along: this invocation's key must not go to
    // the profile's (say, production's) messaging host unasked.
    messagesUrl: env.STORE_MESSAGES_URL || env.STORE_BASE_URL || settings.messagesUrl,
    messagesUrlSource: env.STORE_MESSAGES_URL
      ? 'STORE_MESSAGES_URL'
      : env.STORE_BASE_URL
        ? 'STORE_BASE_URL'
        : 'profile',
    apiKey: env.STORE_API_KEY || (inKeyring ? undefined : settings.apiKey),
    keySource,
    keyStorage,
  };
}

/** A profile's URLs as `profile list` shows them: as stored, and the sandbox's where one runs
 * (what `-p sandbox` reaches), without this invocation's STORE_BASE_URL. */
export function listedSettings(config: ConfigData, env: Env, name: string): ProfileSettings {
  const settings = profileSettings(config, name);
  // Only the sandbox's depends on the environment: no copy of it for every other profile.
  if (name !== 'sandbox') return settings;
  return withRunningSandbox(config, { ...env, STORE_BASE_URL: undefined }, name, settings);
}

/** The built-in sandbox profile goes to the sandbox that runs (any port), as its record in
 * the config folder says, unless the user set its base URL, or STORE_BASE_URL is set. */
function withRunningSandbox(
  config: ConfigData,
  env: Env,
  name: string,
  settings: ProfileSettings,
): ProfileSettings {
  const stored = storedProfile(config, name);
  if (name !== 'sandbox' || stored?.baseUrl || env.STORE_BASE_URL) return settings;
  const url = runningSandboxUrl(env);
  if (url === undefined) return settings;
  return { ...settings, baseUrl: url, messagesUrl: stored?.messagesUrl ?? url };
}

/** `****` and the last four characters: the only form a key is shown in. */
export function maskKey(key: string): string {
  return `****${key.length > 8 ? key.slice(-4) : ''}`;
}
