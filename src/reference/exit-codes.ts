// The exit codes: the one table that ExitCode (errors.ts), `store help exit-codes`, the man
// page and the README's table are made from or checked against.

export const EXIT_CODE_TABLE = [
  { name: 'ok', code: 0, meaning: 'success (an empty list is a success)' },
  {
    name: 'failure',
    code: 1,
    meaning:
      'any other failure: unexpected status or response shape, unreadable config, internal error',
  },
  {
    name: 'usage',
    code: 2,
    meaning:
      'usage: unknown command or flag, missing or invalid argument or flag value, refused configuration — nothing was sent',
  },
  {
    name: 'rejected',
    code: 3,
    meaning: 'the API rejected the input (HTTP 400, and other 4xx not listed here)',
  },
  {
    name: 'auth',
    code: 4,
    meaning: 'authentication missing or rejected (no key, HTTP 401 or 403)',
  },
  { name: 'notFound', code: 5, meaning: 'not found (HTTP 404)' },
  { name: 'network', code: 6, meaning: 'network: connection refused or reset, DNS, TLS, timeout' },
  { name: 'unavailable', code: 7, meaning: 'service unavailable: HTTP 5xx or 429, after retries' },
  {
    name: 'interrupted',
    code: 130,
    meaning: 'interrupted (Ctrl-C): ended by the signal, which a shell reports as 130',
  },
] as const;

type Entry = (typeof EXIT_CODE_TABLE)[number];

export const ExitCode = Object.fromEntries(
  EXIT_CODE_TABLE.map(({ name, code }) => [name, code]),
) as { readonly [E in Entry as E['name']]: E['code'] };
export type ExitCode = Entry['code'];
