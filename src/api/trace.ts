// --debug traces of requests and answers: `>` lines for what is sent, `<` for what came back,
// `!` for what store made of it. The key is masked in every line.

import type { Exchange } from './exchange.js';
import type { KeyRedactor } from './redact.js';
import { statusText } from './status-text.js';

/** How much of each body a trace shows. */
const TRACE_BODY_BYTES = 4096;

export class Tracer {
  constructor(
    private readonly redactor: KeyRedactor,
    /** Receives each line; absent when tracing is off. */
    private readonly write: ((line: string) => void) | undefined,
  ) {}

  get on(): boolean {
    return this.write !== undefined;
  }

  line(text: string): void {
    this.write?.(this.redactor.text(text));
  }

  request(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
  ): void {
    if (!this.write) return;
    this.line(`> ${method} ${url.href}`);
    for (const [name, value] of Object.entries(headers)) {
      this.line(`> ${name}: ${name === 'authorization' ? this.redactor.authorization() : value}`);
    }
    // The key masked before the body is cut: a cut could leave part of it.
    if (body !== undefined) this.line(`> ${excerpt(this.redactor.bytes(Buffer.from(body)))}`);
  }

  response(exchange: Exchange, ms: number): void {
    if (!this.write) return;
    const { status, headers, body } = exchange;
    this.line(`< ${status} ${statusText(status) ?? ''} (${Math.round(ms)} ms)`);
    for (const [name, value] of Object.entries(headers)) {
      for (const one of Array.isArray(value) ? value : [value]) this.line(`< ${name}: ${one}`);
    }
    if (body.length > 0) this.line(`< ${excerpt(this.redactor.bytes(body))}`);
  }
}

/** The start of a body for a trace, with how much was left out. */
function excerpt(body: Buffer): string {
  const shown = body.subarray(0, TRACE_BODY_BYTES).toString('utf8');
  const rest = body.length - TRACE_BODY_BYTES;
  return rest > 0 ? `${shown}… (${rest} more bytes)` : shown;
}
