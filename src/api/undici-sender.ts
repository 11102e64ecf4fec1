// Requests carried by undici, loaded only for them: through the proxy the environment names
// (its EnvHttpProxyAgent speaks to http and https proxies, CONNECT tunnels, credentials and
// no_proxy, which Node's own client does not on every Node store runs on), and the many
// requests of one process (bulk add, store mcp): its pool checks an idle connection before it
// reuses it, so a request is not written into a server's close (direct.ts, for one request).
import type { Dispatcher } from 'undici';
import {
  Answer,
  type Exchange,
  type Outgoing,
  type Progress,
  type ResponseHeaders,
  type Sender,
} from './exchange.js';

interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

export class UndiciSender implements Sender {
  private agent?: Promise<Dispatcher>;

  constructor(
    /** Through these proxies; none: straight to the server. */
    private readonly proxies: ProxySettings | undefined,
    /** Per attempt, over every phase of it. */
    private readonly timeoutMs: number,
  ) {}

  private dispatcher(): Promise<Dispatcher> {
    this.agent ??= this.newDispatcher();
    return this.agent;
  }

  private newDispatcher(): Promise<Dispatcher> {
    const limits = {
      connectTimeout: this.timeoutMs,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    };
    const { proxies } = this;
    // Straight to the server, its Agent alone, not undici's index (fetch, WebSocket, caches…):
    // a bulk add's memory (docs/performance.md).
    return proxies
      ? import('undici').then((loaded) => {
          // Bundled, a CommonJS module comes back as its `default`.
          const { EnvHttpProxyAgent, Pool } = (
            'EnvHttpProxyAgent' in loaded ? loaded : (loaded as { default: typeof loaded }).default
          ) as typeof loaded;
          return new EnvHttpProxyAgent({
            ...proxies,
            ...limits,
            // The proxy's answer to CONNECT is bounded by the same limit as everything else
            // (undici's default would wait 300 s for it).
            clientFactory: (origin: URL, opts: object) => new Pool(origin, { ...opts, ...limits }),
          } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
        })
      : import('undici/lib/dispatcher/agent.js').then(({ default: Agent }) => new Agent(limits));
  }

  async send(out: Outgoing, signal: AbortSignal, progress: Progress): Promise<Exchange> {
    const dispatcher = await this.dispatcher();
    return new Promise<Exchange>((resolve, reject) => {
      dispatcher.dispatch(
        {
          origin: out.url.origin,
          path: `${out.url.pathname}${out.url.search}`,
          method: out.method,
          headers: out.headers,
          body: out.body ?? null,
        },
        new Collector(signal, progress, new Answer(resolve, reject)),
      );
    });
  }

  async close(): Promise<void> {
    await (await this.agent)?.destroy();
  }
}

/**
 * One request's handler, as undici's dispatchers call it, handing the answer to `Answer` with no
 * stream between (undici's request() would make a body stream, read whole anyway).
 * `progress.started` is set when undici starts writing the request on a connected socket
 * (through the proxy's tunnel, if any); `signal` aborts it, in any phase.
 */
class Collector implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private readonly stopListening: () => void;

  constructor(
    private readonly signal: AbortSignal,
    private readonly progress: Progress,
    private readonly answer: Answer,
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
    this.answer.start(statusCode, headers);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // Thrown past the cap: undici aborts the request with it (onResponseError).
    this.answer.data(chunk);
  }

  onResponseEnd(): void {
    this.stopListening();
    this.answer.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.stopListening();
    this.answer.fail(error);
  }
}
