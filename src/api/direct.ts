// A command's requests that go through no proxy, carried by Node's own HTTP client: it is part
// of Node, with its parser in Node's binary, where undici must load its modules and compile its
// parser's WebAssembly at every start (docs/performance.md). Processes that make many requests
// use undici's pool instead (undici-sender.ts): Node's Agent may hand out an idle connection
// the server is closing.
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import { ResponseError } from '../errors.js';
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

const IDLE_MS = 4000;

export class DirectSender implements Sender {
  private readonly agents = new Map<string, Agent>();

  send(out: Outgoing, signal: AbortSignal, progress: Progress): Promise<Exchange> {
    const secure = out.url.protocol === 'https:';
    const http = process.getBuiltinModule(secure ? 'node:https' : 'node:http') as Http;
    let agent = this.agents.get(out.url.protocol);
    if (!agent) {
      // A connection left idle is closed before the server would close it (4 s, or a second
      // less than its Keep-Alive: timeout=N): a request is not sent into the server's close.
      agent = new http.Agent({ keepAlive: true, timeout: IDLE_MS });
      this.agents.set(out.url.protocol, agent);
    }
    return new Promise<Exchange>((resolve, reject) => {
      const answer = new Answer(resolve, reject);
      const headers: Record<string, string | number> = { ...out.headers };
      // A length, never chunked encoding: what undici sent and every server reads.
      if (out.body !== undefined) headers['content-length'] = Buffer.byteLength(out.body);
      let request: ClientRequest;
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
      let answered: IncomingMessage | undefined;
      request.once('response', (response: IncomingMessage) => {
        answered = response;
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
      // A switch of protocol nobody asked for: Node hands the connection over and waits.
      request.once('upgrade', (_response, socket) => {
        socket.destroy();
        answer.fail(
          new ResponseError(
            `${out.url.host} answered 101 Switching Protocols, which nothing asked for`,
            null,
            'unexpected_response',
            { answerUnread: true },
          ),
        );
      });
      request.on('error', (error) => {
        // Bytes after a whole answer (a Content-Length that counts characters, a body after
        // a HEAD's or a 204's answer): Node's parser fails on them while the answer it has
        // read is complete, and still hands that answer over. It is the answer.
        if (answered?.complete) return;
        answer.fail(closedOrAsIs(error));
      });
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
