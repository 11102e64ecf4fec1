// What a command gets besides its options: IO, and config / profile / API client built
// lazily, at most once per invocation, so a command pays only for what it uses.
import type { ApiClient, RetryNotice } from './api/client.js';
import type { RetryTiming } from './api/retry.js';
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
   * `interruptible: false` lets requests in flight finish after Ctrl-C (bulk add); `retries`
   * replaces the default number of further attempts. */
  api(overrides?: {
    apiKey?: string;
    interruptible?: boolean;
    retries?: number;
    /** Further attempts after HTTP 429, when not `retries`. */
    rateLimitRetries?: number;
    /** Replaces the dim line a terminal shows for each retry. */
    onRetry?: (notice: RetryNotice) => void;
  }): Promise<ApiClient>;
  warn(line: string): void;
  /** A deprecation warning, unless STORE_NO_DEPRECATION_WARNINGS=1 silences them. */
  deprecation(line: string): void;
}

/** What a test may replace: how long retries wait. */
export interface ContextDeps {
  timing?: Partial<RetryTiming>;
}

export function createContext(
  io: IOStreams,
  env: Env,
  options: GlobalOptions,
  signal: AbortSignal,
  deps: ContextDeps = {},
): Context {
  let config: Promise<ConfigFile> | undefined;
  let profile: Promise<ResolvedProfile> | undefined;
  let announced = false;

  // Warnings and traces quote the server (headers, bodies): shown as text, never as escapes.
  const warn = (line: string) => io.err(`${sanitize(line)}\n`);
  const deprecationsOn = env.STORE_NO_DEPRECATION_WARNINGS !== '1';
  const dimLine = (line: string) => io.err(`${dim(sanitize(line), io.colorErr)}\n`);
  // On a terminal each retry says so, so a long wait is never silent.
  const onRetry = io.stderrIsTTY
    ? (notice: RetryNotice) =>
        dimLine(
          `${notice.reason}; retrying in ${(notice.delayMs / 1000).toFixed(1)} s (attempt ${notice.attempt} of ${notice.attempts})`,
        )
    : undefined;

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
      config ??= ConfigFile.open(configDir(env), { signal }).then((file) => {
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
      const [{ ApiClient }, { realTiming }] = await Promise.all([
        import('./api/client.js'),
        import('./api/retry.js'),
      ]);
      const timing = { ...realTiming(overrides.retries), ...deps.timing };
      if (overrides.retries !== undefined) timing.retries = overrides.retries;
      if (overrides.rateLimitRetries !== undefined) {
        timing.rateLimitRetries = overrides.rateLimitRetries;
      }
      const client = new ApiClient({
        baseUrl: resolved.baseUrl,
        messagesUrl: resolved.messagesUrl,
        apiKey: overrides.apiKey ?? resolved.apiKey ?? '',
        timeoutMs: options.timeoutMs,
        env,
        signal: overrides.interruptible === false ? undefined : signal,
        trace: options.debug ? (line) => io.err(`${sanitize(line)}\n`) : undefined,
        warn: deprecationsOn ? warn : undefined,
        timing,
        onRetry: overrides.onRetry ?? onRetry,
      });
      // So nobody hits staging or production by accident, say which profile is in use.
      if (!announced && resolved.name !== DEFAULT_PROFILE && io.stderrIsTTY) {
        announced = true;
        dimLine(`Using profile ${resolved.name} (${resolved.baseUrl})`);
      }
      return client;
    },
    warn,
    deprecation: (line) => {
      if (deprecationsOn) warn(line);
    },
  };
  return ctx;
}
