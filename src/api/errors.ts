// What a failed exchange means: a connection failure becomes a NetworkError (or a usage error
// when the request itself could not be formed), a response outside 2xx an ApiError from its
// Error body, or from its status when the body is not one.

import {
  ApiError,
  type CliError,
  FlagError,
  messageOf,
  NetworkError,
  ResponseError,
  withHint,
} from '../errors.js';
import { fileProblem } from '../file-errors.js';
import { parseJson } from '../json.js';
import { ErrorBody } from '../schemas.js';
import type { ResponseHeaders } from './exchange.js';
import { CONNECTION_CLOSED } from './exchange.js';
import { statusText } from './status-text.js';

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause && cause !== error ? errorCode(cause) : undefined;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** No connection could be made at all: later requests to the same host would fail too. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  // The proxy closed the connection before its tunnel was up (undici's ProxyConnectionError):
  // a web server or a TLS port given as the proxy does that to every request.
  'UND_ERR_PRX_CONN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** The connection broke once the request may have reached the server. */
export const BROKEN_CODES = new Set([
  'ECONNRESET',
  CONNECTION_CLOSED,
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'EPIPE',
]);

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
  [CONNECTION_CLOSED]: 'connection closed unexpectedly',
  UND_ERR_SOCKET: 'connection closed unexpectedly',
  UND_ERR_CLOSED: 'connection closed unexpectedly',
  UND_ERR_PRX_CONN: 'it closed the connection instead of connecting through (is it a proxy?)',
};

/** `started`: the request had begun to be written (transport.ts): only then may a failure
 * have left it delivered. */
export function timeoutError(
  url: URL,
  timeoutMs: number,
  cause: unknown,
  started: boolean,
): NetworkError {
  return new NetworkError(
    `request to ${url.host} timed out after ${timeoutMs / 1000}s`,
    'timeout',
    {
      cause,
      maybeDelivered: started && errorCode(cause) !== 'UND_ERR_CONNECT_TIMEOUT',
    },
  );
}

/** A failure before any response: the network, the proxy, or a request the client refused. */
export function networkError(
  url: URL,
  error: unknown,
  timeoutMs: number,
  started: boolean,
  proxy?: URL,
): CliError {
  const code = errorCode(error);
  if (code && TIMEOUT_CODES.has(code)) return timeoutError(url, timeoutMs, error, started);
  // The request could not be formed: nothing was sent.
  if (code === 'UND_ERR_INVALID_ARG' || code === 'ERR_INVALID_CHAR') {
    return new FlagError(
      'the request cannot be sent: a header (the API key, or one given with -H) holds a character that is not allowed in HTTP headers',
    );
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW' || code === 'HPE_HEADER_OVERFLOW') {
    // The server answered, with what cannot be read: whatever it did, it may have done.
    return new ResponseError(
      `${url.host} sent response headers that are too large`,
      null,
      'unexpected_response',
      { answerUnread: true },
    );
  }
  // What came back is not readable HTTP (llhttp's HPE_… codes, from Node's parser or undici's;
  // undici's own for a body longer or shorter than its length): the server was reached and
  // answered, so the request may have been acted on. An unexpected answer: exit 1, not 6.
  if (code?.startsWith('HPE_') || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return new ResponseError(
      `${url.host} sent an answer that is not valid HTTP`,
      null,
      'unexpected_response',
      { answerUnread: true },
    );
  }
  const message = messageOf(error);
  const proxyStatus = /^Proxy response \((\d+)\)/.exec(message)?.[1];
  if (proxyStatus) {
    const status = Number(proxyStatus);
    const phrase = statusText(status) ?? 'an error';
    // A refusal by its rules or for the credentials (407, 403…) meets every later request
    // too: a bulk add stops. A passing trouble (408, 429, 5xx) does not stop it, and is tried
    // again: nothing went past the proxy.
    const refusal = status >= 400 && status < 500 && status !== 408 && status !== 429;
    return new NetworkError(
      `the proxy refused to connect to ${url.host}: HTTP ${proxyStatus} ${phrase}`,
      'proxy_error',
      { cause: error, unreachable: refusal, passing: !refusal, proxyStatus: status },
    );
  }
  const tls = code ? tlsProblem(code) : undefined;
  let reason = (code ? NETWORK_REASONS[code] : undefined) ?? tls?.reason;
  // Another of undici's own codes: what came back was not readable HTTP.
  if (!reason && code?.startsWith('UND_ERR_')) reason = 'its answer is not valid HTTP';
  reason ??= code && error instanceof Error && 'errno' in error ? fileProblem(error) : message;
  // A proxy that is down or unknown is named: "cannot reach api.example" sends one looking at
  // the service.
  const what =
    proxy === undefined
      ? url.host
      : code === 'UND_ERR_PRX_CONN'
        ? proxyNamed(url, proxy)
        : failedPeer(url, proxy, error);
  const failure = new NetworkError(`cannot reach ${what}: ${reason}`, 'network_error', {
    cause: error,
    unreachable: UNREACHABLE_CODES.has(code ?? ''),
    maybeDelivered: started && BROKEN_CODES.has(code ?? ''),
  });
  return withHint(failure, tls?.hint);
}

/** The certificate is signed by no authority this machine trusts, or by itself. */
const UNTRUSTED_CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);
const SELF_SIGNED_CODES = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']);

const TRUST_HINT =
  "if it is your organisation's authority (or a proxy that inspects TLS), give its certificate in NODE_EXTRA_CA_CERTS=/path/to/ca.pem";

/** A TLS failure in words, and what to do where something can be done. Node's codes name the
 * check that failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE); the user needs what it means. */
function tlsProblem(code: string): { reason: string; hint?: string } | undefined {
  if (UNTRUSTED_CERT_CODES.has(code)) {
    return {
      reason: 'its certificate is not signed by an authority this machine trusts',
      hint: TRUST_HINT,
    };
  }
  if (SELF_SIGNED_CODES.has(code)) {
    return {
      reason: 'its certificate is self-signed, and this machine does not trust it',
      hint: 'to trust it, give the certificate in NODE_EXTRA_CA_CERTS=/path/to/cert.pem',
    };
  }
  if (code === 'CERT_HAS_EXPIRED') return { reason: 'its certificate has expired' };
  if (code === 'CERT_NOT_YET_VALID') return { reason: 'its certificate is not valid yet' };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return { reason: 'its certificate is for another host name' };
  }
  // EPROTO: a handshake with a server that does not speak TLS (plain HTTP on an https URL).
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_')) {
    return {
      reason: 'the TLS handshake failed',
      hint: 'does it speak HTTPS on that port? an http:// URL is for a server that does not',
    };
  }
  if (/CERT|TLS|SSL/.test(code)) return { reason: 'its certificate was refused' };
  return undefined;
}

/** "the proxy host:port (for api.example)". */
const proxyNamed = (url: URL, proxy: URL) =>
  `the proxy ${proxy.hostname}:${portOf(proxy)} (for ${url.host})`;

const IP_LITERAL = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i;

const portOf = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

/**
 * What a connection failure was about, with a proxy set for the request: the proxy (its name
 * did not resolve, or its address and port refused), or the URL's own host, which no_proxy
 * sends to directly (undici decides that, unseen). A proxy given by name on the port of a host
 * given by name cannot be told from it: both are named then.
 */
export function failedPeer(url: URL, proxy: URL, error: unknown): string {
  const shown = `${proxy.hostname}:${portOf(proxy)}`;
  const named = proxyNamed(url, proxy);
  const failed = (error ?? {}) as Record<string, unknown>;
  if (typeof failed.hostname === 'string') {
    return failed.hostname === proxy.hostname ? named : url.host;
  }
  if (failed.port !== portOf(proxy) || typeof failed.address !== 'string') return url.host;
  const address = failed.address.includes(':') ? `[${failed.address}]` : failed.address;
  const isProxy = IP_LITERAL.test(proxy.hostname)
    ? address === proxy.hostname
    : portOf(url) !== portOf(proxy) || (IP_LITERAL.test(url.hostname) && address !== url.hostname);
  if (isProxy) return named;
  if (IP_LITERAL.test(proxy.hostname) || IP_LITERAL.test(url.hostname)) return url.host;
  return `${url.host} or the proxy ${shown}`;
}

/** A header's (first) value: a repeated header comes as an array (exchange.ts). */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A response outside 2xx as the error the user sees; `trace` hears why a body was not used. */
export function errorFromResponse(
  status: number,
  headers: ResponseHeaders,
  body: Buffer,
  trace?: (line: string) => void,
  /** Masks the key in the server's text (which the line for people may cut later: masked
   * first, no part of the key is left). */
  redact: (text: string) => string = (text) => text,
): CliError {
  if (status >= 300 && status < 400) {
    const location = headerValue(headers.location);
    return new ResponseError(
      `the server answered with a redirect (HTTP ${status}${location ? ` to ${location}` : ''}); redirects are not followed`,
      status,
      'redirect',
    );
  }
  let parsed: unknown;
  try {
    parsed = parseJson(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const error = ErrorBody.safeParse(parsed);
  if (error.success) {
    const { message, code } = error.data;
    // Whole, as the server sent it (--json shows it so); the line for people cuts it
    // (describeError).
    return new ApiError(redact(message), redact(code), status);
  }
  trace?.(`! error response is not an Error body`);
  const phrase = (statusText(status) ?? 'unexpected status').toLowerCase();
  return new ApiError(`the server answered ${phrase}`, `http_${status}`, status);
}
