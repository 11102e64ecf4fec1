// The one HTTP layer. Every request of every command goes through ApiClient.send:
// URL and key checks, Authorization, time limit, int64-safe JSON, Error bodies,
// deprecation headers, --debug traces. Commands call the typed functions beside this file.
import { STATUS_CODES } from 'node:http';
import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
import type { z } from 'zod';
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
import { checkKeyTarget, isLoopbackHost, parseBaseUrl } from './urls.js';

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

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
}

export interface SendOptions<S extends z.ZodType> {
  method: 'GET' | 'POST';
  /** Which base the path is relative to. */
  base?: 'api' | 'messages';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  schema: S;
}

function joinUrl(base: URL, path: string, query: SendOptions<z.ZodType>['query']): URL {
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

  async send<S extends z.ZodType>(opts: SendOptions<S>): Promise<z.output<S>> {
    const base = opts.base === 'messages' ? this.messagesUrl : this.baseUrl;
    const url = joinUrl(base, opts.path, opts.query);
    checkKeyTarget(url);
    const { trace, timeoutMs, signal } = this.options;
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

    const timeout = AbortSignal.timeout(timeoutMs);
    const started = performance.now();
    let status = 0;
    let text: string;
    let responseHeaders: Record<string, string | string[] | undefined>;
    try {
      const response = await request(url, {
        method: opts.method,
        headers,
        body,
        dispatcher: this.dispatcherFor(url),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      responseHeaders = response.headers;
      text = await readCapped(response.body);
    } catch (error) {
      if (signal?.aborted) throw new CancelledError();
      if (timeout.aborted || isTimeout(error)) {
        throw new NetworkError(
          `request to ${url.host} timed out after ${timeoutMs / 1000}s`,
          'timeout',
          { cause: error },
        );
      }
      if (error instanceof CliError) throw error;
      throw new NetworkError(`cannot reach ${url.host}: ${networkReason(error)}`, 'network_error', {
        cause: error,
      });
    }
    trace?.(
      `< ${status} ${STATUS_CODES[status] ?? ''} (${Math.round(performance.now() - started)} ms)`,
    );
    this.warnIfDeprecated(opts.method, opts.path, responseHeaders);

    if (status >= 200 && status < 300) return this.decode(text, status, opts.schema);
    if (status >= 300 && status < 400) {
      const location = headerValue(responseHeaders.location);
      throw new ResponseError(
        `the server answered with a redirect (HTTP ${status}${location ? ` to ${location}` : ''}); redirects are not followed`,
        status,
        'redirect',
      );
    }
    throw this.errorFromResponse(status, text);
  }

  private decode<S extends z.ZodType>(text: string, status: number, schema: S): z.output<S> {
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

  private warnIfDeprecated(
    method: string,
    path: string,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    const deprecation = headerValue(headers.deprecation);
    const sunset = headerValue(headers.sunset);
    if (deprecation === undefined && sunset === undefined) return;
    const when = sunset ? sunsetDate(sunset) : undefined;
    this.options.warn(
      `warning: the API marks ${method} ${path} as deprecated${when ? `; it will be removed on ${when}` : ''}`,
    );
  }
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
