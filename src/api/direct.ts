// Requests that go through no proxy (every one on loopback), carried by Node's own HTTP client:
// it is part of Node, with its parser in Node's binary, where undici must load its modules and
// compile its parser's WebAssembly at every start (docs/performance.md). One keep-alive pool
// per scheme, for the requests a bulk add keeps in flight.
import type { Agent, IncomingMessage } from 'node:http';
import {
  Answer,
  CONNECTION_CLOSED,
  type Exchange,
  type Outgoing,
  type Progress,
  type ResponseHeaders,
  type Sender,
} from './exchange.js';

type Http = typeof import('node:http');

export class DirectSender implements Sender {
  private readonly agents = new Map<string, Agent>();

  send(out: Outgoing, signal: AbortSignal, progress: Progress): Promise<Exchange> {
    const secure = out.url.protocol === 'https:';
    const http = process.getBuiltinModule(secure ? 'node:https' : 'node:http') as Http;
    let agent = this.agents.get(out.url.protocol);
    if (!agent) {
      agent = new http.Agent({ keepAlive: true });
      this.agents.set(out.url.protocol, agent);
    }
    return new Promise<Exchange>((resolve, reject) => {
      const answer = new Answer(resolve, reject);
      const headers: Record<string, string | number> = { ...out.headers };
      // A length, never chunked encoding: what undici sent and every server reads.
      if (out.body !== undefined) headers['content-length'] = Buffer.byteLength(out.body);
      let request: import('node:http').ClientRequest;
      try {
        request = http.request({
          protocol: out.url.protocol,
          // An IPv6 address without its brackets; the URL's user and password are not sent.
          hostname: out.url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: out.url.port,
          path: `${out.url.pathname}${out.url.search}`,
          method: out.method,
          headers,
          agent,
          signal,
        });
      } catch (error) {
        // A header or method that HTTP cannot carry: refused before anything is sent.
        reject(error);
        return;
      }
      request.once('socket', (socket) => {
        const begun = () => {
          progress.started = true;
        };
        if (!socket.connecting) begun();
        else socket.once(secure ? 'secureConnect' : 'connect', begun);
      });
      request.once('response', (response: IncomingMessage) => {
        answer.start(response.statusCode ?? 0, headersOf(response));
        response.on('data', (chunk: Buffer) => {
          try {
            answer.data(chunk);
          } catch (error) {
            answer.fail(error);
            request.destroy();
          }
        });
        response.once('end', () => answer.end());
        response.on('error', (error) => answer.fail(closedOrAsIs(error)));
      });
      request.on('error', (error) => answer.fail(closedOrAsIs(error)));
      request.end(out.body);
    });
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy();
  }
}

/** Node reports a connection the server closed, before its answer or in the middle of it, as
 * ECONNRESET ("socket hang up", "aborted") without the system call that a reset by the network
 * carries. */
function closedOrAsIs(error: Error & { code?: string; syscall?: string }): Error {
  if (error.code !== 'ECONNRESET' || error.syscall !== undefined) return error;
  return Object.assign(new Error('the server closed the connection', { cause: error }), {
    code: CONNECTION_CLOSED,
  });
}

/** The answer's headers as undici gives them: a header's value, or its values in order when it
 * came more than once (Node would join some with ", " and drop the repeats of others). */
function headersOf(response: IncomingMessage): ResponseHeaders {
  const headers: ResponseHeaders = {};
  for (const [name, values] of Object.entries(response.headersDistinct)) {
    if (values) headers[name] = values.length === 1 ? values[0] : values;
  }
  return headers;
}
