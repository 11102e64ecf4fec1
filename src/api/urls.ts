// Where the API key may go. Kept apart from the client so that checking a URL
// (profile set) does not load the HTTP stack.
import { FlagError } from '../errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** A base URL the key may be sent to: https anywhere, plain http on loopback only. */
export function checkKeyTarget(url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return;
  if (url.protocol === 'http:') {
    throw new FlagError(
      `refusing to send the API key over plain HTTP to ${url.host}; use an https:// URL (plain http is allowed for loopback hosts only)`,
    );
  }
  throw new FlagError(`unsupported URL scheme ${url.protocol} in ${url.href}; use https://`);
}

export function parseBaseUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new FlagError(`${what} is not a valid URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FlagError(`${what} must be an http:// or https:// URL: ${JSON.stringify(value)}`);
  }
  return url;
}
