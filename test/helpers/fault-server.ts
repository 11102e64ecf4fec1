// Real servers on loopback, for what nock cannot fake (resets, stalls, timeouts, proxies, TLS):
// faultServer scripts every answer and records what it was sent; listen() runs any other server
// (HTTPS, a CONNECT proxy); rawServer answers bytes of the test's own. All are closed after each
// test.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { afterThisTest } from './cleanup.js';

export interface SeenRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
}

/** n is the 1-based number of this request. */
export type FaultHandler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

export interface FaultServer {
  origin: string;
  /** The base URL a profile would hold: origin + /v1. */
  url: string;
  seen: SeenRequest[];
}

/** Listens on an ephemeral loopback port until the end of the test; returns the port. */
export async function listen(server: Server | HttpsServer): Promise<number> {
  afterThisTest(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function faultServer(handler: FaultHandler): Promise<FaultServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString(),
        at: performance.now(),
      });
      handler(req, res, seen.length);
    });
  });
  const origin = `http://127.0.0.1:${await listen(server)}`;
  return { origin, url: `${origin}/v1`, seen };
}

/** Answers JSON with a status. */
export function reply(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

/** A loopback server that answers each request with the bytes `answer` gives, as they are
 * (what no well-behaved server library would send); the request lines it read, in order. */
export async function rawServer(answer: (request: string) => string) {
  const requests: string[] = [];
  let connections = 0;
  const server = createNetServer((socket) => {
    connections += 1;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const head = buffered.indexOf('\r\n\r\n');
        if (head === -1) return;
        const length = Number(/content-length: *(\d+)/i.exec(buffered.slice(0, head))?.[1] ?? 0);
        if (buffered.length < head + 4 + length) return;
        const request = buffered.slice(0, head + 4 + length);
        buffered = buffered.slice(request.length);
        requests.push(request.split('\r\n')[0] ?? '');
        socket.write(answer(request), 'latin1');
      }
    });
    socket.on('error', () => {});
    afterThisTest(() => socket.destroy());
  });
  afterThisTest(() => new Promise((resolve) => server.close(resolve)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    /** How many connections were made to it. */
    connections: () => connections,
  };
}
