// Where the API key may go. Kept apart from the client so that checking a URL
// (profile set) does not load the HTTP stack.

import { quote } from '../config/quote.js';
import { FlagError, withHint } from '../errors.js';
import { lazyPattern } from '../lazy-pattern.js';

// Not `localhost.`: the system's resolver does not match the hosts file's `localhost` to it,
// and asks DNS, which may answer any address (the key would go there over plain http).
const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return (
    LOOPBACK_HOSTS.has(hostname) ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    // ::ffff:127.x.y.z, IPv4's loopback mapped into IPv6, as the URL parser writes it.
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname)
  );
}

/** The same for an address as given to listen() (`::1`, `0:0:0:0:0:0:0:1`, not `[::1]`):
 * `store sandbox --host`. An IPv6 address is read in its shortest form first. */
export function isLoopbackAddress(address: string): boolean {
  if (!address.includes(':')) return isLoopbackHost(address);
  try {
    return isLoopbackHost(new URL(`http://[${address}]/`).hostname);
  } catch {
    return false;
  }
}

/** A base URL the key may be sent to: https anywhere, plain http on loopback only. */
export function checkKeyTarget(url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return;
  if (url.protocol === 'http:') {
    throw withHint(
      new FlagError(`refusing to send the API key over plain HTTP to ${url.host}`),
      'use an https:// URL (plain http is allowed for loopback hosts only)',
    );
  }
  throw withHint(
    new FlagError(`unsupported URL scheme ${url.protocol} in ${url.href}`),
    'use an https:// URL',
  );
}

/** A URL's text with its user and password (`user:pass@`) replaced by `****@`: the text may
 * not parse as a URL (a password with a `/`, `?` or `#` in it is the usual reason), so it is
 * what comes between `//` and the last `@`, or between the start and the last `@` when there
 * is no scheme (`alice:secret@proxy.corp:8080`, which a proxy setting may be). */
export function withoutUserinfo(text: string): string {
  return text.replace(/^((?:[^:/?#]*:\/\/)?).*@/s, '$1****@');
}

// Control characters (escape sequences among them), invisible format characters (bidi
// overrides, zero-width) and white space. The URL parser would percent-encode some and
// silently drop others (tab, newline, leading and trailing spaces), while the text as typed
// is what is stored and shown.
const UNSAFE_IN_URL = lazyPattern(() => /[\p{Cc}\p{Cf}\p{Z}\s]/u);
// In ASCII those are the controls and the space: text of only visible ASCII (nearly every URL)
// is safe without the Unicode classes, whose first use in a process has ICU build their sets.
const VISIBLE_ASCII = /^[\x21-\x7e]*$/;

/** A base URL as typed (flag, STORE_BASE_URL, STORE_MESSAGES_URL, config): http(s) and
 * nothing invisible in it; `what` names where it came from. Bad: FlagError (exit 2). */
export function parseBaseUrl(value: string, what: string): URL {
  // Shown in every refusal, without a user or password it may hold (whatever else is wrong);
  // made only for a refusal.
  const shown = () => quote(withoutUserinfo(value));
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new FlagError(`${what} is not a valid URL: ${shown()}`);
  }
  if (!VISIBLE_ASCII.test(value) && UNSAFE_IN_URL().test(value)) {
    throw new FlagError(`${what} must not contain control characters or white space: ${shown()}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FlagError(`${what} must be an http:// or https:// URL: ${shown()}`);
  }
  // Paths are appended to the base URL: after a query or a fragment they would become part of
  // it (`/v1?x=1` + `/pets` would be sent as GET /v1?x=1%2Fpets, and answered 200).
  if (value.includes('?') || value.includes('#')) {
    // Shown without what follows: a query is where a URL carries a token (`?api_key=`).
    const cut = quote(withoutUserinfo(value).replace(/([?#]).*$/s, '$1…'));
    throw new FlagError(`${what} must not have a query (?) or a fragment (#): ${cut}`);
  }
  // The API key is the credential; a password in the URL would be shown wherever it is.
  if (url.username !== '' || url.password !== '') {
    throw new FlagError(`${what} must not contain a user name or password: ${quote(url.host)}`);
  }
  return url;
}

/** What a profile's refused URLs are called in messages: where each came from. */
export interface UrlSources {
  base: string;
  messages: string;
}

/** A profile's base and messages URLs, each refused as parseBaseUrl says: what every client of
 * the profile needs of them (ApiClient, and `store mcp` before it serves). */
export function parseProfileUrls(
  baseUrl: string,
  messagesUrl: string,
  sources: UrlSources = { base: 'the base URL', messages: 'the messages URL' },
): { baseUrl: URL; messagesUrl: URL } {
  return {
    baseUrl: parseBaseUrl(baseUrl, sources.base),
    messagesUrl: parseBaseUrl(messagesUrl, sources.messages),
  };
}

/** Warning lines for a URL `profile set` saves anyway: plain http to a host that is not
 * loopback (the key will not be sent there), no path (the service's base URL ends in /v1). */
export function baseUrlWarnings(url: URL, what = '--base-url'): string[] {
  const warnings: string[] = [];
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    warnings.push(
      `warning: ${what} uses plain http:// to a host that is not loopback; store will refuse to send the API key there`,
    );
  }
  if (url.pathname === '/') {
    warnings.push(
      `warning: ${what} ${url.origin} has no path; the service's base URL usually ends in /v1, as in ${url.origin}/v1`,
    );
  }
  return warnings;
}

/** A base URL as requests' paths are joined to it: without its trailing slashes. */
export function rootHref(url: URL): string {
  return url.href.replace(/\/+$/, '');
}

/** The URL requests are sent under, as the client makes it (api/client.ts): parsed, so that
 * `HTTP://…` and `…/v1/.` are the place `http://…/v1` is, and joined to paths without a
 * trailing slash. One the client refuses (a carriage return from a CRLF env file, which the URL parser
 * alone would drop) reaches nothing: undefined. */
export function requestRoot(text: string): string | undefined {
  try {
    return rootHref(parseBaseUrl(text, 'the URL'));
  } catch {
    return undefined;
  }
}
