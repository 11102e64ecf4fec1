// A loopback HTTP server whose every answer the test scripts, recording what it was sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

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

let servers: Server[] = [];

afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
});

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
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
