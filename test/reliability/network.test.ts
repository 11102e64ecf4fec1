// Network failures against real loopback sockets (nock cannot fake a refused port or a stall).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { baseEnv, closedPort, run } from '../helpers/cli.js';

let servers: Server[] = [];

afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('network failures', () => {
  it('reports a refused connection with exit 6', async () => {
    const port = await closedPort();
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: `http://127.0.0.1:${port}/v1` }),
    });
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: cannot reach 127.0.0.1:${port}: connection refused (after 3 attempts)\n`,
      prompts: [],
    });
  });

  it('gives up after --timeout with exit 6 when the server stalls', async () => {
    let seen = 0;
    const port = await listen(() => {
      seen += 1; // never answers
    });
    const started = Date.now();
    const result = await run(['pets', 'list', '--timeout', '0.3', '--json'], {
      env: baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: `http://127.0.0.1:${port}/v1` }),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(seen).toBe(1);
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: `{"error":{"code":"timeout","message":"request to 127.0.0.1:${port} timed out after 0.3s","status":null}}\n`,
      prompts: [],
    });
  });

  it('exits 130 when interrupted while a request is in flight', async () => {
    const port = await listen(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: `http://127.0.0.1:${port}/v1` }),
      signal: controller.signal,
    });
    expect(result).toEqual({ code: 130, stdout: '', stderr: '', prompts: [] });
  });

  it('refuses a response body larger than 32 MiB while it streams', async () => {
    let written = 0;
    const port = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const pump = () => {
        while (written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
        if (written < 64 * 1024 * 1024) res.once('drain', pump);
        else res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: `http://127.0.0.1:${port}/v1` }),
    });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: the response body is larger than 32 MiB; refused\n',
      prompts: [],
    });
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });
});
