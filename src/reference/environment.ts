// The environment variables: the one table that `store help environment`, the man page and the
// README's tables are made from or checked against.

export interface EnvironmentVariable {
  /** As shown, e.g. `STORE_DEBUG=1` or `NO_COLOR (non-empty)`. */
  name: string;
  /** The global option it stands for, when there is one (the flag wins). */
  flag?: string;
  meaning: string;
}

export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  {
    name: 'STORE_PROFILE',
    flag: '-p, --profile <name>',
    meaning: 'profile to use; default: the current profile in the config, else `production`',
  },
  {
    name: 'NO_COLOR (non-empty)',
    flag: '--no-color',
    meaning: 'no ANSI colour; wins over `CLICOLOR_FORCE` and `FORCE_COLOR`',
  },
  {
    name: 'STORE_DEBUG=1',
    flag: '--debug',
    meaning: 'trace each HTTP exchange on stderr; the key is shown masked (`Bearer ****wxyz`)',
  },
  {
    name: 'STORE_TIMEOUT',
    flag: '--timeout <seconds>',
    meaning: 'per-request time limit, default 30',
  },
  { name: 'STORE_API_KEY', meaning: 'API key for this invocation; wins over the stored one' },
  {
    name: 'STORE_BASE_URL',
    meaning: "base URL (including `/v1`) for this invocation; wins over the profile's",
  },
  {
    name: 'STORE_MESSAGES_URL',
    meaning: "base URL of the messaging operation; wins over the profile's",
  },
  {
    name: 'STORE_CONFIG_DIR',
    meaning:
      'folder that holds `config.json`, a full path; default `$XDG_CONFIG_HOME/store` or `~/.config/store` (Linux, macOS)',
  },
  {
    name: 'STORE_NO_DEPRECATION_WARNINGS=1',
    meaning: 'no deprecation warnings on stderr (`pets get`, API responses marked deprecated)',
  },
  { name: 'CLICOLOR=0', meaning: 'no ANSI colour on a terminal either' },
  {
    name: 'CLICOLOR_FORCE=1, FORCE_COLOR=1',
    meaning: 'ANSI colour even when the output is not a terminal (a pipe, a file)',
  },
  {
    name: 'COLUMNS',
    meaning:
      "width of the terminal in columns, for tables and help; wins over the terminal's own width",
  },
  {
    name: 'HTTPS_PROXY, HTTP_PROXY, NO_PROXY (and lower-case forms)',
    meaning: 'honoured for every request',
  },
];

export const PRECEDENCE =
  'Precedence, highest first: flag, environment variable, profile in config, built-in default.';
