// One HTTP exchange and nothing more: the dispatcher (direct for loopback, else the proxy the
// environment names), the time limit over every phase (connect, TLS, proxy CONNECT, headers,
// body), Ctrl-C, and the body read whole up to a cap. Retries and meanings are elsewhere
// (retry.ts, errors.ts).
import type { Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import { GrowingBytes } from '../bytes.js';
import type { Env } from '../env.js';
import { CancelledError, FlagError, ResponseError } from '../errors.js';
import { networkError, timeoutError } from './errors.js';
import { isLoopbackHost, withoutUserinfo } from './urls.js';

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | (string & {});

export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface Exchange {
  status: number;
  headers: ResponseHeaders;
  body: Buffer;
  /** The connection broke before the whole body came (an error answer: a success is then a
   * network failure); `body` is what came. */
  cut?: boolean;
}

export interface TransportOptions {
  env: Env;
  /** Per attempt, over every phase of it. */
  timeoutMs: number;
}

export interface Outgoing {
  method: Method;
  url: URL;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Ctrl-C; absent where requests in flight are let finish (bulk add). */
  signal?: AbortSignal;
}

/** Proxy settings as curl and Node read them: the lower-case spelling first; an empty one is
 * unset (`https_proxy=` leaves HTTPS_PROXY in force). */
export function proxyEnv(env: Env) {
  return {
    httpProxy: env.http_proxy || env.HTTP_PROXY || undefined,
    httpsProxy: env.https_proxy || env.HTTPS_PROXY || undefined,
    noProxy: env.no_proxy || env.NO_PROXY || undefined,
    // The spelling in use, for a message about it.
    names: {
      http: env.http_proxy ? 'http_proxy' : 'HTTP_PROXY',
      https: env.https_proxy ? 'https_proxy' : 'HTTPS_PROXY',
    },
  };
}

/** A proxy setting as a URL: one without a scheme (`proxy.corp:3128`) is http://, as curl
 * takes it (the URL parser would read `proxy.corp:` as a scheme); undefined when it is not
 * an http(s) URL of a host, a port and perhaps a user and password (undici refuses a path, a
 * query or an escape that does not decode, with an error that would read as a bug). */
function proxyUrl(value: string): URL | undefined {
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') return undefined;
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    return undefined;
  }
  return url;
}

export class Transport {
  private direct?: Dispatcher;
  private proxied?: Dispatcher;

  /** Read once: a lookup in process.env is a system call (it showed in a bulk add's profile). */
  private readonly proxies: ReturnType<typeof proxyEnv>;

  constructor(private readonly options: TransportOptions) {
    this.proxies = proxyEnv(options.env);
  }

  /** The proxy setting a request to `url` goes through: https_proxy for https, http_proxy for
   * http (undici would send https through http_proxy when only that is set; curl and Node do
   * not); none for loopback. no_proxy is undici's to apply. */
  private proxySetting(url: URL): string | undefined {
    if (isLoopbackHost(url.hostname)) return undefined;
    return url.protocol === 'https:' ? this.proxies.httpsProxy : this.proxies.httpProxy;
  }

  /** Loopback never goes through a proxy; everything else honours *_proxy / no_proxy. undici's
   * proxy support (its whole index) is loaded only when a proxy is set. */
  private dispatcherFor(url: URL): Dispatcher | Promise<Dispatcher> {
    const limits = {
      connectTimeout: this.options.timeoutMs,
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
    };
    if (this.proxySetting(url) === undefined) {
      this.direct ??= new Agent(limits);
      return this.direct;
    }
    return this.proxiedFor(this.proxies, limits);
  }

  private async proxiedFor(
    proxies: ReturnType<typeof proxyEnv>,
    limits: {
      connectTimeout: number;
      headersTimeout: number;
      bodyTimeout: number;
    },
  ): Promise<Dispatcher> {
    if (!this.proxied) {
      for (const [name, value] of [
        [proxies.names.https, proxies.httpsProxy],
        [proxies.names.http, proxies.httpProxy],
      ] as const) {
        if (value !== undefined && proxyUrl(value) === undefined) {
          // A proxy URL often holds a password: it is not repeated on the screen.
          const shown = JSON.stringify(withoutUserinfo(value));
          throw new FlagError(
            `${name} must be a proxy's http:// or https:// URL (host, port, perhaps user:password@; no path): ${shown}`,
          );
        }
      }
      // Bundled, a CommonJS module comes back as its `default`.
      const loaded = await import('undici');
      const { EnvHttpProxyAgent, Pool } = (
        'EnvHttpProxyAgent' in loaded ? loaded : (loaded as { default: typeof loaded }).default
      ) as typeof loaded;
      this.proxied = new EnvHttpProxyAgent({
        httpProxy: proxies.httpProxy && proxyUrl(proxies.httpProxy)?.href,
        httpsProxy: proxies.httpsProxy && proxyUrl(proxies.httpsProxy)?.href,
        noProxy: proxies.noProxy,
        ...limits,
        // The proxy's answer to CONNECT is bounded by the same limit as everything else
        // (undici's default would wait 300 s for it).
        clientFactory: (origin: URL, opts: object) => new Pool(origin, { ...opts, ...limits }),
      } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
    }
    return this.proxied;
  }

  /** One request and its whole (capped) body, within the time limit. */
  async exchange(out: Outgoing): Promise<Exchange> {
    const { timeoutMs } = this.options;
    const found = this.dispatcherFor(out.url);
    const dispatcher = found instanceof Promise ? await found : found;
    // A timer cleared as soon as the attempt ends: AbortSignal.timeout would keep every
    // request's signal alive for the whole time limit (thousands of them in a bulk add).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = out.signal ? AbortSignal.any([out.signal, timeout.signal]) : timeout.signal;
    // undici does not end every phase on abort (a proxy that never answers CONNECT): the
    // attempt ends when the signal fires, whatever undici is still waiting for.
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    // Whether undici began writing this request on a connected socket (through the proxy's
    // tunnel, if any): a failure before that cannot have delivered it.
    const progress = { started: false };
    try {
      const exchange = new Promise<Exchange>((resolve, reject) => {
        const handler = new Collector(signal, progress, resolve, reject);
        dispatcher.dispatch(
          {
            origin: out.url.origin,
            path: `${out.url.pathname}${out.url.search}`,
            method: out.method,
            headers: out.headers,
            body: out.body ?? null,
          },
          handler,
        );
      });
      exchange.catch(() => {});
      return await Promise.race([exchange, aborted]);
    } catch (error) {
      if (out.signal?.aborted) {
        // Ctrl-C: nothing else of this client is wanted; end its connections now.
        void this.close();
        throw new CancelledError({ inFlight: progress.started });
      }
      if (error instanceof ResponseError || error instanceof FlagError) throw error;
      if (timeout.signal.aborted) throw timeoutError(out.url, timeoutMs, error, progress.started);
      const setting = dispatcher === this.proxied ? this.proxySetting(out.url) : undefined;
      const proxy = setting === undefined ? undefined : proxyUrl(setting);
      throw networkError(out.url, error, timeoutMs, progress.started, proxy);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.direct?.destroy(), this.proxied?.destroy()]);
  }
}

/**
 * One request's handler, as undici's dispatchers call it: the answer's status, headers and
 * whole body (up to MAX_BODY_BYTES), with no stream between (undici's request() gives the body
 * as a Readable, read here whole anyway: that stream, its async iterator and the request's
 * AsyncResource were work at every request, and their modules more to load). `progress.started`
 * is set when undici starts writing the request on a connected socket (through the proxy's
 * tunnel, if any); `signal` aborts it, in any phase.
 */
class Collector implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: ResponseHeaders = {};
  private readonly body = new GrowingBytes();
  private settled = false;
  private readonly stopListening: () => void;

  constructor(
    private readonly signal: AbortSignal,
    private readonly progress: { started: boolean },
    private readonly resolve: (exchange: Exchange) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    const onAbort = () => this.controller?.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    this.stopListening = () => signal.removeEventListener('abort', onAbort);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.progress.started = true;
    this.controller = controller;
    if (this.signal.aborted) controller.abort(this.signal.reason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: ResponseHeaders,
  ): void {
    // An interim answer (100 Continue, 103 Early Hints): the real one follows.
    if (statusCode < 200) return;
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.body.size + chunk.length > MAX_BODY_BYTES) {
      // Thrown, undici aborts the request with it (onResponseError). Its status is known: a
      // success too large to read may have made something.
      throw new ResponseError(
        `the response body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB; refused`,
        this.status,
        'response_too_large',
      );
    }
    this.body.add(chunk);
  }

  onResponseEnd(): void {
    this.settle(() =>
      this.resolve({
        status: this.status,
        headers: this.headers,
        body: this.body.bytes(),
        cut: false,
      }),
    );
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const { status } = this;
    // An error answer cut off mid-body (the connection closed or reset): its status says what
    // happened, and the Error body it was sending is read as far as it came (it will not parse:
    // the message is made from the status). A success cut short cannot be used: a network
    // error; so is a failure before any answer, or an abort.
    const cut =
      status !== 0 &&
      !(status >= 200 && status < 300) &&
      !(error instanceof ResponseError) &&
      error.name !== 'AbortError';
    this.settle(() =>
      cut
        ? this.resolve({ status, headers: this.headers, body: this.body.bytes(), cut })
        : this.reject(error),
    );
  }

  private settle(then: () => void): void {
    if (this.settled) return;
    this.settled = true;
    this.stopListening();
    then();
  }
}
