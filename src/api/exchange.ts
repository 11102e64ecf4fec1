// One request and its answer as the HTTP layer passes them around, whichever client carries
// them (direct.ts: Node's own; undici-sender.ts: undici's), and the answer gathered
// the same way by both: whole, up to a cap, with one rule for a connection that breaks.
import { GrowingBytes } from '../bytes.js';
import { ResponseError } from '../errors.js';

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The code of a failure where the server closed the connection before its answer was whole
 * (or before any answer): said so, not as a reset, which is the network's doing. */
export const CONNECTION_CLOSED = 'CONNECTION_CLOSED';

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

export interface Outgoing {
  method: Method;
  url: URL;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Ctrl-C; absent where requests in flight are let finish (bulk add). */
  signal?: AbortSignal;
}

/** Set once the request begins to be written on a connected socket (through the proxy's
 * tunnel, if any): a failure before that cannot have delivered it. */
export interface Progress {
  started: boolean;
}

/** One attempt as a client carries it: `signal` ends it in any phase. */
export interface Sender {
  send(out: Outgoing, signal: AbortSignal, progress: Progress): Promise<Exchange>;
  close(): Promise<void>;
}

/** An answer as it comes in: its status, headers and whole body (up to MAX_BODY_BYTES). */
export class Answer {
  private status = 0;
  private headers: ResponseHeaders = {};
  private readonly body = new GrowingBytes();
  private settled = false;

  constructor(
    private readonly resolve: (exchange: Exchange) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  start(status: number, headers: ResponseHeaders): void {
    // An interim answer (100 Continue, 103 Early Hints): the real one follows.
    if (status < 200) return;
    this.status = status;
    this.headers = headers;
  }

  /** Throws past the cap: the client then ends the request with that error (`fail`). Its status
   * is known: a success too large to read may have made something. */
  data(chunk: Uint8Array): void {
    if (this.body.size + chunk.length > MAX_BODY_BYTES) {
      throw new ResponseError(
        `the response body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB; refused`,
        this.status,
        'response_too_large',
      );
    }
    this.body.add(chunk);
  }

  end(): void {
    this.settle(() => this.resolve(this.exchange(false)));
  }

  /** An error answer cut off mid-body (the connection closed or reset): its status says what
   * happened, and the Error body it was sending is read as far as it came (it will not parse:
   * the message is made from the status). A success cut short cannot be used: a network error;
   * so is a failure before any answer, or an abort. */
  fail(error: unknown): void {
    const { status } = this;
    const cut =
      status !== 0 &&
      !(status >= 200 && status < 300) &&
      !(error instanceof ResponseError) &&
      (error as { name?: unknown } | null)?.name !== 'AbortError';
    this.settle(() => (cut ? this.resolve(this.exchange(true)) : this.reject(error)));
  }

  private exchange(cut: boolean): Exchange {
    return { status: this.status, headers: this.headers, body: this.body.bytes(), cut };
  }

  private settle(then: () => void): void {
    if (this.settled) return;
    this.settled = true;
    then();
  }
}
