// The one HTTP layer. Every request of every command goes through ApiClient.send:
// URL and key checks, Authorization, time limit, int64-safe JSON, Error bodies,
// deprecation headers, --debug traces. Commands call the typed functions beside this file.
import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
import { maskKey } from '../config/profiles.js';
import {
  ApiError,
  AuthError,
  CancelledError,
  CliError,
  NetworkError,
  ResponseError,
} from '../errors.js';
import type { Env } from '../io.js';
import { parseJson, stringifyJson } from '../json.js';
import { ErrorBody } from '../schemas.js';
import type * as z from '../zod.js';
import { checkKeyTarget, isLoopbackHost, parseBaseUrl } from './urls.js';

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** GETs are retried on these: the server did not do the work, or asks to come back later. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
export const DEFAULT_RETRIES = 2;
export const DEFAULT_RETRY_BASE_MS = 250;
/** The longest Retry-After honoured; a server asking for more gets this. */
export const RETRY_AFTER_CAP_MS = 10_000;

type Headers = Record<string, string | string[] | undefined>;

interface Exchange {
  status: number;
  headers: Headers;
  text: string;
}

export interface ApiClientOptions {
  baseUrl: string;
  messagesUrl: string;
  apiKey: string;
  timeoutMs: number;
  env: Env;
  signal?: AbortSignal;
  /** Receives --debug trace lines; absent when tracing is off. */
  trace?: (line: string) => void;
  /** Receives warning lines (deprecation headers). */
  warn: (line: string) => void;
  /** Further attempts after a retryable failure (see isRetryableFailure, RETRY_STATUSES). */
  retries: number;
  /** First backoff delay; it doubles with each retry, with jitter. */
  retryBaseMs: number;
}

export interface SendOptions<S extends z.ZodMiniType> {
  method: 'GET' | 'POST';
  /** Which base the path is relative to. */
  base?: 'api' | 'messages';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  schema: S;
}

function joinUrl(base: URL, path: string, query: SendOptions<z.ZodMiniType>['query']): URL {
  const url = new URL(base.href.replace(/\/+$/, '') + path);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

export class ApiClient {
  private readonly baseUrl: URL;
  private readonly messagesUrl: URL;
  private directAgent?: Dispatcher;
  private proxyAgent?: Dispatcher;

  constructor(private readonly options: ApiClientOptions) {
    if (!options.apiKey) {
      throw new AuthError('no API key: run `store auth login` or set STORE_API_KEY');
    }
    this.baseUrl = parseBaseUrl(options.baseUrl, 'the base URL');
    this.messagesUrl = parseBaseUrl(options.messagesUrl, 'the messages URL');
  }

  /** Loopback never goes through a proxy; everything else honours *_PROXY / NO_PROXY. */
  private dispatcherFor(url: URL): Dispatcher {
    if (isLoopbackHost(url.hostname)) {
      this.directAgent ??= new Agent();
      return this.directAgent;
    }
    const { env } = this.options;
    this.proxyAgent ??= new EnvHttpProxyAgent({
      httpProxy: env.HTTP_PROXY ?? env.http_proxy,
      httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
      noProxy: env.NO_PROXY ?? env.no_proxy,
    });
    return this.proxyAgent;
  }

  async send<S extends z.ZodMiniType>(opts: SendOptions<S>): Promise<z.output<S>> {
    const base = opts.base === 'messages' ? this.messagesUrl : this.baseUrl;
    const url = joinUrl(base, opts.path, opts.query);
    checkKeyTarget(url);
    const { trace } = this.options;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: 'application/json',
    };
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = stringifyJson(opts.body);
      headers['content-type'] = 'application/json';
    }
    trace?.(`> ${opts.method} ${url.href}`);
    trace?.(`> Authorization: Bearer ${maskKey(this.options.apiKey)}`);
    if (body !== undefined) trace?.(`> ${body}`);

    for (let attempt = 0; ; attempt += 1) {
      const retriesLeft = attempt < this.options.retries;
      let exchange: Exchange;
      try {
        exchange = await this.exchange(opts.method, url, headers, body);
      } catch (error) {
        if (!retriesLeft || !isRetryableFailure(error, opts.method)) throw error;
        await this.pause(
          backoffMs(attempt, this.options.retryBaseMs),
          `${(error as Error).message}`,
        );
        continue;
      }
      this.warnIfDeprecated(opts.method, opts.path, exchange.headers);
      // Only a GET is retried on a status: the server has seen a POST, which must not run twice.
      if (retriesLeft && opts.method === 'GET' && RETRY_STATUSES.has(exchange.status)) {
        const wait = retryAfterMs(exchange.headers['retry-after']);
        await this.pause(
          wait ?? backoffMs(attempt, this.options.retryBaseMs),
          `HTTP ${exchange.status}`,
        );
        continue;
      }
      return this.interpret(exchange, opts.schema);
    }
  }

  /** One request and its whole (capped) body, within the per-attempt time limit. */
  private async exchange(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<Exchange> {
    const { trace, timeoutMs, signal } = this.options;
    // A timer cleared as soon as the attempt ends: AbortSignal.timeout would keep every
    // request's signal alive for the whole time limit (thousands of them in a bulk add).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const started = performance.now();
    try {
      const response = await request(url, {
        method,
        headers,
        body,
        dispatcher: this.dispatcherFor(url),
        signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await readCapped(response.body);
      const { statusCode: status } = response;
      trace?.(
        `< ${status} ${STATUS_CODES[status] ?? ''} (${Math.round(performance.now() - started)} ms)`,
      );
      return { status, headers: response.headers, text };
    } catch (error) {
      if (signal?.aborted) throw new CancelledError();
      if (timeout.signal.aborted || isTimeout(error)) {
        throw new NetworkError(
          `request to ${url.host} timed out after ${timeoutMs / 1000}s`,
          'timeout',
          { cause: error },
        );
      }
      if (error instanceof CliError) throw error;
      throw new NetworkError(`cannot reach ${url.host}: ${networkReason(error)}`, 'network_error', {
        cause: error,
        unreachable: UNREACHABLE_CODES.has(errorCode(error) ?? ''),
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits before the next attempt; Ctrl-C ends the wait (exit 130). */
  private async pause(ms: number, why: string): Promise<void> {
    this.options.trace?.(`! ${why}; retrying in ${Math.round(ms)} ms`);
    try {
      await sleep(ms, undefined, { signal: this.options.signal });
    } catch {
      throw new CancelledError();
    }
  }

  private interpret<S extends z.ZodMiniType>(exchange: Exchange, schema: S): z.output<S> {
    const { status, headers, text } = exchange;
    if (status >= 200 && status < 300) return this.decode(text, status, schema);
    if (status >= 300 && status < 400) {
      const location = headerValue(headers.location);
      throw new ResponseError(
        `the server answered with a redirect (HTTP ${status}${location ? ` to ${location}` : ''}); redirects are not followed`,
        status,
        'redirect',
      );
    }
    throw this.errorFromResponse(status, text);
  }

  private decode<S extends z.ZodMiniType>(text: string, status: number, schema: S): z.output<S> {
    let data: unknown;
    try {
      data = parseJson(text);
    } catch (error) {
      this.options.trace?.(`! response body is not JSON: ${(error as Error).message}`);
      throw new ResponseError(
        `the server sent a response that is not JSON (HTTP ${status})`,
        status,
      );
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        this.options.trace?.(`! ${issue.path.join('.') || '(body)'}: ${issue.message}`);
      }
      throw new ResponseError(
        `the server sent a response of an unexpected shape (HTTP ${status}); run with --debug for details`,
        status,
      );
    }
    // The parsed value, not zod's copy: it keeps the server's key order and unknown fields.
    return data as z.output<S>;
  }

  private errorFromResponse(status: number, text: string): CliError {
    let body: unknown;
    try {
      body = parseJson(text);
    } catch {
      body = undefined;
    }
    const parsed = ErrorBody.safeParse(body);
    if (parsed.success) return new ApiError(parsed.data.message, parsed.data.code, status);
    this.options.trace?.(`! error response is not an Error body: ${text.slice(0, 200)}`);
    const phrase = (STATUS_CODES[status] ?? 'unexpected status').toLowerCase();
    return new ApiError(`the server answered ${phrase}`, `http_${status}`, status);
  }

  private warnIfDeprecated(method: string, path: string, headers: Headers): void {
    const deprecation = headerValue(headers.deprecation);
    const sunset = headerValue(headers.sunset);
    if (deprecation === undefined && sunset === undefined) return;
    const when = sunset ? sunsetDate(sunset) : undefined;
    this.options.warn(
      `warning: the API marks ${method} ${path} as deprecated${when ? `; it will be removed on ${when}` : ''}`,
    );
  }
}

/** Exponential backoff with jitter: half the delay fixed, half random. */
function backoffMs(attempt: number, baseMs: number): number {
  const delay = baseMs * 2 ** attempt;
  return delay / 2 + Math.random() * (delay / 2);
}

/** Retry-After in seconds or as an HTTP-date, capped; undefined when absent or unreadable. */
export function retryAfterMs(
  value: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const text = headerValue(value)?.trim();
  if (!text) return undefined;
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS);
}

/** Connections that failed before the server could act: refused (any method); reset or
 * closed mid-exchange (GET only: a POST may have reached the server). Never a timeout. */
function isRetryableFailure(error: unknown, method: string): boolean {
  if (!(error instanceof NetworkError) || error.code !== 'network_error') return false;
  const code = errorCode(error.cause);
  if (code === 'ECONNREFUSED') return true;
  return (
    method === 'GET' && (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
  );
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** RFC 8594 Sunset is an HTTP-date; show it as YYYY-MM-DD, or as sent if it does not parse. */
function sunsetDate(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : new Date(time).toISOString().slice(0, 10);
}

/** Reads a response body, refusing more than MAX_BODY_BYTES as it streams in. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new ResponseError(
        `the response body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB; refused`,
        null,
        'response_too_large',
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause && cause !== error ? errorCode(cause) : undefined;
}

function isTimeout(error: unknown): boolean {
  return TIMEOUT_CODES.has(errorCode(error) ?? '');
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed unexpectedly',
};

function networkReason(error: unknown): string {
  const code = errorCode(error);
  if (code && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
  if (code && /CERT|TLS|SSL/.test(code)) return `TLS error (${code})`;
  return code ?? (error instanceof Error ? error.message : String(error));
}
