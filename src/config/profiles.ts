// Built-in profiles and how a profile's settings are resolved:
// flag > environment variable > profile in config > built-in default.
import type { Env } from '../io.js';
import type { ConfigData, StoredProfile } from './file.js';
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

export interface ResolvedProfile {
  name: string;
  baseUrl: string;
  messagesUrl: string;
  apiKey: string | undefined;
  keySource: KeySource;
}

export function isBuiltin(name: string): boolean {
  return Object.hasOwn(BUILTIN_PROFILES, name);
}

/** Every profile name: the built-ins first, then the user's in the order they were added. */
export function profileNames(config: ConfigData): string[] {
  const names = Object.keys(BUILTIN_PROFILES);
  for (const name of Object.keys(config.profiles ?? {})) {
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

export function profileExists(config: ConfigData, name: string): boolean {
  return isBuiltin(name) || Object.hasOwn(config.profiles ?? {}, name);
}

export function storedProfile(config: ConfigData, name: string): StoredProfile | undefined {
  return Object.hasOwn(config.profiles ?? {}, name) ? config.profiles?.[name] : undefined;
}

/** The profile in use: --profile, then STORE_PROFILE, then the config's current one. */
export function selectedProfileName(config: ConfigData, env: Env, flag?: string): string {
  return flag || env.STORE_PROFILE || config.currentProfile || DEFAULT_PROFILE;
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

export function resolveProfile(config: ConfigData, env: Env, name: string): ResolvedProfile {
  const settings = withRunningSandbox(config, env, name, profileSettings(config, name));
  const storedKey = storedProfile(config, name)?.apiKey;
  let keySource: KeySource = 'none';
  if (env.STORE_API_KEY) keySource = 'env';
  else if (storedKey || settings.apiKey) keySource = 'config';
  return {
    name,
    baseUrl: env.STORE_BASE_URL || settings.baseUrl,
    // STORE_BASE_URL alone moves the messages URL along: this invocation's key must not go to
    // the profile's (say, production's) messaging host unasked.
    messagesUrl: env.STORE_MESSAGES_URL || env.STORE_BASE_URL || settings.messagesUrl,
    apiKey: env.STORE_API_KEY || settings.apiKey,
    keySource,
  };
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
