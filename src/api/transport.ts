// One HTTP exchange and nothing more: the client that carries it (Node's own for a command's
// request, undici's pool for a process that makes many and through a proxy the environment
// names), the time limit over every phase (connect, TLS, proxy CONNECT, headers, body), and
// Ctrl-C. Retries and meanings are elsewhere (retry.ts, errors.ts).
import type { Env } from '../env.js';
import { CancelledError, FlagError, ResponseError } from '../errors.js';
import { DirectSender } from './direct.js';
import { networkError, timeoutError } from './errors.js';
import type { Exchange, Outgoing, Sender } from './exchange.js';
import { UndiciSender } from './undici-sender.js';
import { isLoopbackHost, withoutUserinfo } from './urls.js';

export interface TransportOptions {
  env: Env;
  /** Per attempt, over every phase of it. */
  timeoutMs: number;
  /** Used by several clients at once (`store mcp`'s calls): a cancelled request ends only
   * itself, not the connections the others are using; the owner closes it. */
  shared?: boolean;
  /** Many requests from one process (bulk add, store mcp): undici's pool, which loads once
   * and checks an idle connection before it reuses it; else Node's own client, which a
   * command's one request finds already in Node. */
  many?: boolean;
}

/** Proxy settings as curl and Node read them: the lower-case spelling first; an empty one is
 * unset (`https_proxy=` leaves HTTPS_PROXY in force). */
function proxyEnv(env: Env) {
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
  private direct?: Sender;
  private proxied?: Sender;

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

  /** Loopback never goes through a proxy; everything else honours *_proxy / no_proxy. */
  private senderFor(url: URL): Sender {
    if (this.proxySetting(url) === undefined) {
      this.direct ??= this.options.many
        ? new UndiciSender(undefined, this.options.timeoutMs)
        : new DirectSender();
      return this.direct;
    }
    this.proxied ??= this.proxiedSender();
    return this.proxied;
  }

  private proxiedSender(): Sender {
    const proxies = this.proxies;
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
    return new UndiciSender(
      {
        httpProxy: proxies.httpProxy && proxyUrl(proxies.httpProxy)?.href,
        httpsProxy: proxies.httpsProxy && proxyUrl(proxies.httpsProxy)?.href,
        noProxy: proxies.noProxy,
      },
      this.options.timeoutMs,
    );
  }

  /** One request and its whole (capped) body, within the time limit. */
  async exchange(out: Outgoing): Promise<Exchange> {
    const { timeoutMs } = this.options;
    const sender = this.senderFor(out.url);
    // A timer cleared as soon as the attempt ends: AbortSignal.timeout would keep every
    // request's signal alive for the whole time limit (thousands of them in a bulk add).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = out.signal ? AbortSignal.any([out.signal, timeout.signal]) : timeout.signal;
    // A client may not end every phase on abort (undici, a proxy that never answers CONNECT):
    // the attempt ends when the signal fires, whatever the client is still waiting for.
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const progress = { started: false };
    try {
      const exchange = sender.send(out, signal, progress);
      exchange.catch(() => {});
      return await Promise.race([exchange, aborted]);
    } catch (error) {
      if (out.signal?.aborted) {
        // Ctrl-C: nothing else of this client is wanted; end its connections now.
        if (!this.options.shared) void this.close();
        throw new CancelledError({ inFlight: progress.started });
      }
      if (error instanceof ResponseError || error instanceof FlagError) throw error;
      if (timeout.signal.aborted) throw timeoutError(out.url, timeoutMs, error, progress.started);
      const setting = sender === this.proxied ? this.proxySetting(out.url) : undefined;
      const proxy = setting === undefined ? undefined : proxyUrl(setting);
      throw networkError(out.url, error, timeoutMs, progress.started, proxy);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.direct?.close(), this.proxied?.close()]);
  }
}
