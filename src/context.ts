// What a command gets besides its options: IO, and config / profile / API client built
// lazily, at most once per invocation, so a command pays only for what it uses.
import type { ApiClient } from './api/client.js';
import { configDir } from './config/dir.js';
import { type ConfigData, ConfigFile } from './config/file.js';
import {
  DEFAULT_PROFILE,
  profileExists,
  type ResolvedProfile,
  resolveProfile,
  selectedProfileName,
} from './config/profiles.js';
import { FlagError } from './errors.js';
import type { Env, IOStreams } from './io.js';
import { sanitize } from './render/sanitize.js';
import { dim } from './render/style.js';

export interface GlobalOptions {
  profile?: string;
  json: boolean;
  color: boolean;
  debug: boolean;
  /** Per-request time limit in milliseconds. */
  timeoutMs: number;
}

export interface Context {
  readonly io: IOStreams;
  readonly env: Env;
  readonly options: GlobalOptions;
  readonly signal: AbortSignal;
  config(): Promise<ConfigFile>;
  /** The selected profile with environment overrides applied. */
  profile(): Promise<ResolvedProfile>;
  /** A client for the selected profile; `apiKey` replaces the resolved key (auth login);
   * `interruptible: false` lets requests in flight finish after Ctrl-C (bulk add). */
  api(overrides?: { apiKey?: string; interruptible?: boolean }): Promise<ApiClient>;
  warn(line: string): void;
}

export function createContext(
  io: IOStreams,
  env: Env,
  options: GlobalOptions,
  signal: AbortSignal,
): Context {
  let config: Promise<ConfigFile> | undefined;
  let profile: Promise<ResolvedProfile> | undefined;
  let announced = false;

  // Warnings and traces quote the server (headers, bodies): shown as text, never as escapes.
  const warn = (line: string) => io.err(`${sanitize(line)}\n`);

  const loadProfile = async (): Promise<ResolvedProfile> => {
    const data: ConfigData = (await ctx.config()).read();
    const name = selectedProfileName(data, env, options.profile);
    if (!profileExists(data, name)) {
      throw new FlagError(
        `unknown profile "${name}"; see \`store profile list\`, or create it with \`store profile set ${name} --base-url <url>\``,
      );
    }
    return resolveProfile(data, env, name);
  };

  const ctx: Context = {
    io,
    env,
    options,
    signal,
    config: () => {
      config ??= ConfigFile.open(configDir(env)).then((file) => {
        for (const line of file.warnings) warn(line);
        return file;
      });
      return config;
    },
    profile: () => {
      profile ??= loadProfile();
      return profile;
    },
    api: async (overrides = {}) => {
      const resolved = await ctx.profile();
      // Loaded on first use: commands that never call the API do not pay for the HTTP stack.
      const { ApiClient, DEFAULT_RETRIES, DEFAULT_RETRY_BASE_MS } = await import('./api/client.js');
      const client = new ApiClient({
        baseUrl: resolved.baseUrl,
        messagesUrl: resolved.messagesUrl,
        apiKey: overrides.apiKey ?? resolved.apiKey ?? '',
        timeoutMs: options.timeoutMs,
        env,
        signal: overrides.interruptible === false ? undefined : signal,
        trace: options.debug ? (line) => io.err(`${sanitize(line)}\n`) : undefined,
        warn,
        retries: DEFAULT_RETRIES,
        retryBaseMs: DEFAULT_RETRY_BASE_MS,
      });
      // So nobody hits staging or production by accident, say which profile is in use.
      if (!announced && resolved.name !== DEFAULT_PROFILE && io.stderrIsTTY) {
        announced = true;
        io.err(`${dim(`Using profile ${resolved.name} (${resolved.baseUrl})`, io.colorErr)}\n`);
      }
      return client;
    },
    warn,
  };
  return ctx;
}
