// The one HTTP layer. Every request of every command goes through ApiClient.request: URL and
// key checks, Authorization, retries by method (retry.ts), the time limit and the body cap
// (transport.ts), deprecation headers, --debug traces (trace.ts), the key masked (redact.ts).
// `send` adds the reading of a JSON answer against a schema, and Error bodies (errors.ts). Commands call the typed functions
// beside this file; `store api` calls `request` itself.

import type { Env } from '../env.js';
import {
  ApiError,
  AuthError,
  CancelledError,
  type CliError,
  NetworkError,
  ResponseError,
  withHint,
} from '../errors.js';
import {
  JsonDepthError,
  MAX_JSON_DEPTH,
  nestedTooDeep,
  parseJson,
  stringifyJson,
  TOO_DEEP,
} from '../json.js';
import type * as z from '../zod.js';
import { errorFromResponse, headerValue } from './errors.js';
import type { Exchange, Method, ResponseHeaders } from './exchange.js';
import { KeyRedactor } from './redact.js';
import {
  backoffMs,
  httpDateMs,
  type RetryTiming,
  retriesFailure,
  retriesStatus,
  retryAfterMs,
} from './retry.js';
import { Tracer } from './trace.js';
import { Transport } from './transport.js';
import { checkKeyTarget, parseProfileUrls, rootHref, type UrlSources } from './urls.js';

export { realTiming } from './retry.js';

export interface RetryNotice {
  /** What went wrong: `HTTP 503`, `cannot reach …`. */
  reason: string;
  delayMs: number;
  /** The attempt about to be made, and how many there can be at most. */
  attempt: number;
  attempts: number;
  status?: number;
}

export interface ApiClientOptions {
  baseUrl: string;
  messagesUrl: string;
  /** Where each URL came from, for the message when it is refused (`STORE_BASE_URL`). */
  urlSources?: UrlSources;
  apiKey: string;
  timeoutMs: number;
  env: Env;
  /** Ctrl-C; absent where requests in flight are let finish (bulk add). */
  signal?: AbortSignal;
  /** Receives --debug trace lines; absent when tracing is off. */
  trace?: (line: string) => void;
  /** Receives warnings (deprecation headers), without their `warning:`; absent when they are
   * silenced. */
  warn?: (message: string) => void;
  timing: RetryTiming;
  /** Told before each retry's wait (a terminal shows it). */
  onRetry?: (notice: RetryNotice) => void;
  /** Called as each attempt starts (a terminal shows a spinner once it takes long); returns
   * what to call when the answer (or the failure) is there. */
  waiting?: (label: string) => () => void;
  /** Called before each request: whether it may change data (any method but GET, HEAD,
   * OPTIONS), and which base URL it is under (the messages URL may be another host). */
  beforeRequest?: (writes: boolean, root: 'api' | 'messages') => void;
  /** The hint of a 401 or 403 answer: where the key came from, how to replace it. */
  authHint?: string;
  /** The hint when the host cannot be reached at all (the sandbox: how to start it). */
  unreachableHint?: string;
  /** Connections kept by another (`store mcp`'s, for all its calls): used, never closed here. */
  transport?: Transport;
  /** This client will make many requests (bulk add): see TransportOptions.many. */
  many?: boolean;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Milliseconds since an arbitrary start. Not performance.now(): the first use of the
 * `performance` global loads perf_hooks and ten more of Node's modules. */
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

export interface RequestOptions {
  method: Method;
  /** Relative to the base URL (or the messages URL), e.g. `/pets`; or a URL already checked
   * to be on one of the profile's origins. */
  path: string | URL;
  base?: 'api' | 'messages';
  query?: Record<string, string | number | undefined>;
  /** A value sent as JSON. */
  json?: unknown;
  /** A body sent as it is. */
  body?: { data: string | Buffer; contentType?: string };
  headers?: Record<string, string>;
  /** A deprecation the command already announced (its sunset date): not said twice. */
  announcedSunset?: string;
  onRetry?: (notice: RetryNotice) => void;
  /** Runs each attempt: where requests in flight are limited (bulk add slows down on 429). */
  throttle?: <T>(attempt: () => Promise<T>) => Promise<T>;
}

export interface ApiResponse extends Exchange {
  method: Method;
  url: URL;
  attempts: number;
}

export class ApiClient {
  private readonly baseUrl: URL;
  private readonly messagesUrl: URL;
  private readonly transport: Transport;
  private readonly redactor: KeyRedactor;
  private readonly tracer: Tracer;
  /** Deprecation warnings given: each once, whatever the retries and requests (a bulk add). */
  private readonly warned = new Set<string>();

  constructor(private readonly options: ApiClientOptions) {
    if (!options.apiKey) {
      throw withHint(new AuthError('no API key'), 'run `store auth login` or set STORE_API_KEY');
    }
    const urls = parseProfileUrls(options.baseUrl, options.messagesUrl, options.urlSources);
    this.baseUrl = urls.baseUrl;
    this.messagesUrl = urls.messagesUrl;
    this.transport =
      options.transport ??
      new Transport({ env: options.env, timeoutMs: options.timeoutMs, many: options.many });
    this.redactor = new KeyRedactor(options.apiKey);
    this.tracer = new Tracer(this.redactor, options.trace);
  }

  /** The origins the key may be sent to: the profile's base and messages URLs. */
  get origins(): { base: URL; messages: URL } {
    return { base: this.baseUrl, messages: this.messagesUrl };
  }

  url(path: string, base: 'api' | 'messages' = 'api', query: RequestOptions['query'] = {}): URL {
    const root = base === 'messages' ? this.messagesUrl : this.baseUrl;
    const relative = path.startsWith('/') ? path : `/${path}`;
    const url = new URL(rootHref(root) + relative);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  /** Sends the request, again where retry.ts allows, and returns the last answer whatever
   * its status. Fails only when no answer came (network, time limit, Ctrl-C). */
  async request(opts: RequestOptions): Promise<ApiResponse> {
    const url = opts.path instanceof URL ? opts.path : this.url(opts.path, opts.base, opts.query);
    checkKeyTarget(url);
    const method = opts.method.toUpperCase();
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...lowerCaseKeys(opts.headers ?? {}),
      authorization: `Bearer ${this.options.apiKey}`,
    };
    let body: string | Buffer | undefined;
    if (opts.json !== undefined) {
      body = stringifyJson(opts.json);
      headers['content-type'] = 'application/json';
    } else if (opts.body !== undefined) {
      body = opts.body.data;
      if (opts.body.contentType) headers['content-type'] ??= opts.body.contentType;
    }
    this.options.beforeRequest?.(!READ_METHODS.has(method), this.rootOf(url));
    this.tracer.request(method, url, headers, body);

    const { timing, signal } = this.options;
    // Whether another attempt may follow this one: a 429 (the service's, or a proxy's to
    // CONNECT) has its own count (bulk add: five more), anything else the usual one.
    const anotherAfter = (attempt: number, status?: number) =>
      attempt <= timing.retries ||
      (status === 429 && attempt <= (timing.rateLimitRetries ?? timing.retries));
    for (let attempt = 1; ; attempt += 1) {
      const started = nowMs();
      let exchange: Exchange;
      try {
        const attemptOnce = async () => {
          const stop = this.options.waiting?.(`Waiting for ${url.host}…`);
          try {
            return await this.transport.exchange({ method, url, headers, body, signal });
          } finally {
            stop?.();
          }
        };
        exchange = await (opts.throttle ? opts.throttle(attemptOnce) : attemptOnce());
      } catch (error) {
        // A proxy's 429 to CONNECT asks to slow down as the service's own does: as many
        // attempts, and a notice with the status (a bulk add then sends fewer at once).
        const status = error instanceof NetworkError ? error.proxyStatus : undefined;
        if (!anotherAfter(attempt, status) || !retriesFailure(method, error)) {
          if (error instanceof NetworkError && error.unreachable) {
            withHint(error, this.options.unreachableHint);
          }
          throw withAttempts(error, attempt);
        }
        const reason = (error as Error).message;
        await this.pause(opts, backoffMs(attempt - 1, timing), reason, attempt, status);
        continue;
      }
      this.tracer.response(exchange, nowMs() - started);
      this.warnIfDeprecated(method, url, exchange.headers, opts.announcedSunset);
      if (anotherAfter(attempt, exchange.status) && retriesStatus(method, exchange.status)) {
        const delay =
          retryAfterMs(exchange.headers['retry-after']) ?? backoffMs(attempt - 1, timing);
        await this.pause(opts, delay, `HTTP ${exchange.status}`, attempt, exchange.status);
        continue;
      }
      return { ...exchange, method, url, attempts: attempt };
    }
  }

  /** A request whose 2xx answer is JSON of `schema` (or empty, where the schema allows it). */
  async send<S extends z.ZodMiniType>(opts: RequestOptions & { schema: S }): Promise<z.output<S>> {
    const response = await this.request(opts);
    if (response.status < 200 || response.status >= 300) throw this.errorFor(response);
    return this.decode(response, opts.schema);
  }

  /** The error a non-2xx answer stands for, saying how many attempts were made. */
  errorFor(response: ApiResponse): CliError {
    // A server that echoes the key in its message must not make us print it (nor part of it,
    // where the text line later cuts a long message): masked in what the server said, and in
    // the whole message after.
    const error = errorFromResponse(
      response.status,
      response.headers,
      response.body,
      (line) => this.trace(line),
      (text) => this.redact(text),
    );
    error.message = this.redact(error.message);
    // What store adds goes beside the server's message, never into it.
    if (response.cut) withHint(error, 'the answer was cut off before its end');
    const { authHint } = this.options;
    if (authHint && (response.status === 401 || response.status === 403)) {
      withHint(error, authHint);
    }
    return withAttempts(error, response.attempts) as CliError;
  }

  close(): Promise<void> {
    return this.options.transport ? Promise.resolve() : this.transport.close();
  }

  /** The text with every occurrence of the key masked. */
  redact(text: string): string {
    return this.redactor.text(text);
  }

  /** The same for a body as bytes (`store api` prints bodies byte for byte). */
  redactBytes(body: Buffer): Buffer {
    return this.redactor.bytes(body);
  }

  private trace(line: string): void {
    this.tracer.line(line);
  }

  private decode<S extends z.ZodMiniType>(response: ApiResponse, schema: S): z.output<S> {
    const { status, body } = response;
    if (body.length === 0) {
      const empty = schema.safeParse(undefined);
      if (empty.success) return empty.data;
      throw new ResponseError(`the server sent an empty response (HTTP ${status})`, status);
    }
    const tooDeep = () => {
      this.trace(`! response body ${TOO_DEEP}`);
      return new ResponseError(
        `the server sent a response nested more than ${MAX_JSON_DEPTH} levels deep (HTTP ${status})`,
        status,
      );
    };
    let data: unknown;
    try {
      // The key is never printed but by `auth token`: a server echoing it in its data (a
      // field, a note) shows it masked, as `store api` and the traces do.
      data = parseJson(this.redactBytes(body).toString('utf8'));
    } catch (error) {
      if (error instanceof JsonDepthError) throw tooDeep();
      this.trace(`! response body is not JSON: ${(error as Error).message}`);
      throw new ResponseError(
        `the server sent a response that is not JSON (HTTP ${status})`,
        status,
      );
    }
    // Every level takes two bytes at least: only a long answer can nest too deeply to be
    // printed (or echoed) again.
    if (body.length > 2 * MAX_JSON_DEPTH && nestedTooDeep(data)) throw tooDeep();
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        this.trace(`! ${issue.path.join('.') || '(body)'}: ${issue.message}`);
      }
      // Under --debug the details are the trace lines just above.
      throw withHint(
        new ResponseError(
          `the server sent a response of an unexpected shape (HTTP ${status})`,
          status,
        ),
        this.tracer.on ? undefined : 'run with --debug for details',
      );
    }
    // The parsed value, not zod's copy: it keeps the server's key order and unknown fields.
    return data as z.output<S>;
  }

  /** Waits before the next attempt; Ctrl-C ends the wait (exit 130). */
  private async pause(
    opts: RequestOptions,
    delayMs: number,
    reason: string,
    attempt: number,
    status?: number,
  ): Promise<void> {
    const { timing } = this.options;
    const attempts =
      (status === 429 ? (timing.rateLimitRetries ?? timing.retries) : timing.retries) + 1;
    const notice: RetryNotice = { reason, delayMs, attempt: attempt + 1, attempts, status };
    this.trace(`! ${reason}; retrying in ${Math.round(delayMs)} ms`);
    this.options.onRetry?.(notice);
    opts.onRetry?.(notice);
    try {
      await this.options.timing.sleep(delayMs, this.options.signal);
    } catch {
      throw new CancelledError();
    }
  }

  private warnIfDeprecated(
    method: string,
    url: URL,
    headers: ResponseHeaders,
    announcedSunset: string | undefined,
  ): void {
    const { warn } = this.options;
    // Neither header (nearly every answer): no pattern is compiled for an empty text.
    if (!warn || (headers.deprecation === undefined && headers.sunset === undefined)) return;
    // Only the RFCs' forms count: a header that is neither is as good as absent, and never
    // shown (a 15 KB Sunset would make a 15 KB line; Date.parse reads `Sunset: -1` as 2001).
    const deprecated = DEPRECATION_DATE.test(headerValue(headers.deprecation)?.trim() ?? '');
    const sunsetMs = httpDateMs(headerValue(headers.sunset)?.trim() ?? '');
    if (!deprecated && sunsetMs === undefined) return;
    const when = sunsetMs === undefined ? undefined : new Date(sunsetMs).toISOString().slice(0, 10);
    if (announcedSunset !== undefined && (when === undefined || when === announcedSunset)) return;
    const line = `the API marks ${method} ${this.shownPath(url)} as deprecated${when ? `; it will be removed on ${when}` : ''}`;
    if (this.warned.has(line)) return;
    this.warned.add(line);
    warn(line);
  }

  /** Which base URL `url` goes to: the one whose path it is under, the longer when both (a
   * base URL of `/` and messages at `/msg`); else the one on its host; the API's when it is
   * the same URL, or when neither. */
  private rootOf(url: URL): 'api' | 'messages' {
    const depth = (base: URL) => {
      if (url.origin !== base.origin) return -1;
      const root = base.pathname.replace(/\/+$/, '');
      // Under its path: 1 more than its length, so that a root of `/` still beats a host alone.
      return `${url.pathname}/`.startsWith(`${root}/`) ? root.length + 1 : 0;
    };
    const api = depth(this.baseUrl);
    const messages = depth(this.messagesUrl);
    return messages > api ? 'messages' : 'api';
  }

  /** A URL as the user wrote it: its path below the base URL when it is under it. */
  private shownPath(url: URL): string {
    for (const base of [this.baseUrl, this.messagesUrl]) {
      const root = base.pathname.replace(/\/+$/, '');
      if (url.origin === base.origin && url.pathname.startsWith(`${root}/`)) {
        return url.pathname.slice(root.length);
      }
    }
    return url.pathname;
  }
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
}

/** RFC 9745's Deprecation: a Structured Field Date, `@` and whole seconds since the epoch. */
const DEPRECATION_DATE = /^@-?\d{1,15}$/;

/** The error, saying how many attempts were made when there was more than one. */
function withAttempts(error: unknown, attempts: number): unknown {
  // The service's message stays as it wrote it: how hard store tried is said beside it.
  if (attempts > 1 && error instanceof ApiError) {
    withHint(error, `still failing after ${attempts} attempts; try again later`);
  } else if (attempts > 1 && error instanceof Error && !(error instanceof CancelledError)) {
    error.message = `${error.message} (after ${attempts} attempts)`;
  }
  return error;
}
