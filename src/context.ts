// What a command gets besides its options: IO, and config / profile / API client built
// lazily, at most once per invocation, so a command pays only for what it uses.

import type { ApiClient, RetryNotice } from './api/client.js';
import type { RetryTiming } from './api/retry.js';
import type { Transport } from './api/transport.js';
import { isLoopbackHost, type UrlSources } from './api/urls.js';
import { type Asker, asker } from './ask.js';
import { configDir } from './config/dir.js';
import { type ConfigData, ConfigFile } from './config/file.js';
import type { KeyringLoader } from './config/key-store.js';
import { commandFor, noKeyError, rejectedKeyHint } from './config/profile-hints.js';
import {
  DEFAULT_PROFILE,
  profileExists,
  profileNames,
  profileSourceName,
  type ResolvedProfile,
  resolveProfile,
  selectedProfile,
  unknownProfileError,
} from './config/profiles.js';
import type { Env } from './env.js';
import { AuthError, withHint } from './errors.js';
import type { IOStreams } from './io.js';
import { sanitize } from './render/sanitize.js';
import { dim } from './render/style.js';

export interface GlobalOptions {
  profile?: string;
  /** JSON on stdout: --json, --json FIELDS or --jq. */
  json: boolean;
  /** --json FIELDS, as given (checked against the command's fields before it runs). */
  jsonFields?: string[];
  /** --jq EXPRESSION. */
  jq?: string;
  /** What `$ENV` and `env` give the --jq filter: the environment. */
  jqEnv?: Env;
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
  /** The selected profile's key, read from the keyring when it is there (exit 4 when its entry
   * is gone); undefined when there is none. */
  apiKey(): Promise<string | undefined>;
  /** The system keyring, loaded on first use; rejects when none can be used. */
  keyring: KeyringLoader;
  /** A client for the selected profile; `apiKey` replaces the resolved key (auth login);
   * `interruptible: false` lets requests in flight finish after Ctrl-C (bulk add). */
  api(overrides?: {
    apiKey?: string;
    interruptible?: boolean;
    /** Further attempts after HTTP 429, instead of the usual number. */
    rateLimitRetries?: number;
    /** Many requests to come (bulk add): undici's pool (TransportOptions.many). */
    many?: boolean;
    /** Where the client's warnings (without `warning:`) and the profile line go, instead of
     * stderr as text (bulk add under --json: JSON lines). */
    say?: { warning: (message: string) => void; notice: (line: string) => void };
    /** Replaces the dim line a terminal shows for each retry. */
    onRetry?: (notice: RetryNotice) => void;
    /** false: no spinner while waiting for an answer (bulk add shows its own progress). */
    spinner?: boolean;
  }): Promise<ApiClient>;
  warn(line: string): void;
  /** Questions and confirmations, by gh's rule (src/ask.ts); the first question says which
   * profile the answers will be written to. */
  readonly prompter: Asker;
  /** A deprecation warning, unless STORE_NO_DEPRECATION_WARNINGS=1 silences them. */
  deprecation(line: string): void;
  /**
   * Has this invocation start over in this process's place with V8 flags given at start-up
   * (src/restart.ts), before it has read or sent anything; returns only when it does not:
   * true when they are in force already, false when they cannot be (and when there is no
   * process to restart, as in tests run in-process).
   */
  restartWithV8Flags(flags: readonly string[]): boolean;
}

/** What a test may replace: how long retries wait; what the process entry adds: restarts. */
export interface ContextDeps {
  timing?: Partial<RetryTiming>;
  /** Stands for the system keyring (tests). */
  keyring?: KeyringLoader;
  restartWithV8Flags?: (flags: readonly string[]) => boolean;
  /** `store mcp`'s, for a tool call: what it settled at its start, used instead of reading the
   * config again (src/mcp/session.ts). */
  session?: Session;
}

/** A profile resolved once, its key read once, and connections kept, for many contexts. */
export interface Session {
  profile: ResolvedProfile;
  apiKey?: () => Promise<string | undefined>;
  transport: Transport;
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
  let apiKey: Promise<string | undefined> | undefined;
  let keyring: ReturnType<KeyringLoader> | undefined;
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
    const { name, source } = selectedProfile(data, env, options.profile);
    if (!profileExists(data, name)) {
      throw unknownProfileError(name, profileNames(data), profileSourceName(source));
    }
    return resolveProfile(data, env, name, source);
  };

  // So nobody hits the wrong environment by accident, a terminal is told which profile is in
  // use: by every command on a profile other than production or with STORE_BASE_URL, and by
  // every command that changes data, production included.
  // The line names the base URL of the request: the messages URL for a message, when the
  // profile or STORE_MESSAGES_URL sends messages elsewhere.
  const announce = (
    resolved: ResolvedProfile,
    writes: boolean,
    root: 'api' | 'messages',
    show: (line: string) => void,
  ) => {
    if (announced || !io.stderrIsTTY) return;
    const messages = root === 'messages' && resolved.messagesUrl !== resolved.baseUrl;
    const source = messages
      ? resolved.messagesUrlSource
      : resolved.baseUrlSource === 'env'
        ? 'STORE_BASE_URL'
        : 'profile';
    const special = resolved.name !== DEFAULT_PROFILE || source !== 'profile';
    if (!writes && !special) return;
    announced = true;
    const url = messages ? resolved.messagesUrl : resolved.baseUrl;
    const from = source === 'profile' ? '' : `, from ${source}`;
    show(`Using profile ${resolved.name} (${url}${from})`);
  };

  const ctx: Context = {
    io,
    env,
    options,
    signal,
    config: () => {
      // configDir may throw (no home folder): a rejected promise, as for an unreadable file.
      config ??= Promise.resolve()
        .then(() => ConfigFile.open(configDir(env), { signal }))
        .then((file) => {
          for (const line of file.warnings) warn(line);
          return file;
        });
      return config;
    },
    profile: () => {
      profile ??= deps.session ? Promise.resolve(deps.session.profile) : loadProfile();
      return profile;
    },
    apiKey: () => {
      apiKey ??= deps.session?.apiKey?.();
      apiKey ??= ctx.profile().then(async (resolved) => {
        // Set, but no key: nothing is sent with it (`Bearer` alone), nor is the stored key
        // used in its place.
        if (resolved.keyStorage === 'env' && resolved.apiKey?.trim() === '') {
          throw withHint(
            new AuthError('STORE_API_KEY holds only white space, no key'),
            'set it to the key, or unset it to use the profile’s',
          );
        }
        if (resolved.keyStorage !== 'keyring') return resolved.apiKey;
        const { readFromKeyring } = await import('./config/key-store.js');
        const login = commandFor(resolved, 'auth login');
        return readFromKeyring(
          (await ctx.config()).read(),
          resolved.name,
          ctx.keyring,
          login,
          signal,
        );
      });
      return apiKey;
    },
    keyring: () => {
      keyring ??= deps.keyring
        ? deps.keyring()
        : import('./config/key-store.js').then(({ systemKeyring }) => systemKeyring());
      return keyring;
    },
    api: async (overrides = {}) => {
      const resolved = await ctx.profile();
      // Loaded on first use: commands that never call the API do not pay for the HTTP stack.
      // (In dist/store.cjs it is there, but its code runs only from here.)
      const { ApiClient, realTiming } = await import('./api/client.js');
      const timing = { ...realTiming(), ...deps.timing };
      if (overrides.rateLimitRetries !== undefined) {
        timing.rateLimitRetries = overrides.rateLimitRetries;
      }
      const apiKey = overrides.apiKey ?? (await ctx.apiKey());
      if (!apiKey) throw noKeyError(resolved);
      const client = new ApiClient({
        baseUrl: resolved.baseUrl,
        messagesUrl: resolved.messagesUrl,
        urlSources: urlSources(resolved),
        apiKey,
        timeoutMs: options.timeoutMs,
        env,
        signal: overrides.interruptible === false ? undefined : signal,
        trace: options.debug ? (line) => io.err(`${sanitize(line)}\n`, true) : undefined,
        warn: deprecationsOn
          ? (overrides.say?.warning ?? ((message) => warn(`warning: ${message}`)))
          : undefined,
        timing,
        onRetry: overrides.onRetry ?? onRetry,
        waiting: overrides.spinner === false ? undefined : (label) => io.waiting(label),
        beforeRequest: (writes, root) =>
          announce(resolved, writes, root, overrides.say?.notice ?? dimLine),
        // A key given for this call (auth login) is not the profile's: no hint about it.
        authHint: overrides.apiKey === undefined ? rejectedKeyHint(resolved) : undefined,
        unreachableHint: sandboxHint(resolved),
        transport: deps.session?.transport,
        many: overrides.many,
      });
      return client;
    },
    warn,
    prompter: asker(io, signal, async () => announce(await ctx.profile(), true, 'api', dimLine)),
    deprecation: (line) => {
      if (deprecationsOn) warn(line);
    },
    restartWithV8Flags: (flags) => deps.restartWithV8Flags?.(flags) ?? false,
  };
  return ctx;
}

/** What a refused URL is called: the variable it came from, or the profile that holds it. */
export function urlSources(resolved: ResolvedProfile): UrlSources {
  const inProfile = (what: string) => `the ${what} of profile ${resolved.name}`;
  const { baseUrlSource, messagesUrlSource } = resolved;
  return {
    base: baseUrlSource === 'env' ? 'STORE_BASE_URL' : inProfile('base URL'),
    messages: messagesUrlSource === 'profile' ? inProfile('messages URL') : messagesUrlSource,
  };
}

/** The built-in sandbox profile, at its own URL: nothing answers there until it is started.
 * Not when the profile was set to another host (`profile set sandbox --base-url`). */
function sandboxHint(resolved: ResolvedProfile): string | undefined {
  if (resolved.name !== 'sandbox' || resolved.baseUrlSource === 'env') return undefined;
  if (!isLoopbackHost(new URL(resolved.baseUrl).hostname)) return undefined;
  return 'is the sandbox running? start it with `store sandbox` in another terminal';
}
