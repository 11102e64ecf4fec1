// Network failures against real loopback sockets (nock cannot fake a refused port or a stall).
import { describe, expect, it } from 'vitest';
import { baseEnv, closedPort, run } from '../helpers/cli.js';
import { faultServer } from '../helpers/fault-server.js';

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
    const server = await faultServer(() => {}); // never answers
    const started = Date.now();
    const result = await run(['pets', 'list', '--timeout', '0.3', '--json'], {
      env: baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url }),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.seen).toHaveLength(1);
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: `{"error":{"code":"timeout","message":"request to ${new URL(server.url).host} timed out after 0.3s","status":null}}\n`,
      prompts: [],
    });
  });

  it('exits 130 when interrupted while a request is in flight', async () => {
    const controller = new AbortController();
    // Ctrl-C once the request has reached the server, which never answers it.
    const server = await faultServer(() => controller.abort());
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url }),
      signal: controller.signal,
    });
    expect(result).toEqual({ code: 130, stdout: '', stderr: '', prompts: [] });
  });

  it('reports a body cut off after the headers as a network failure, retried for a GET', async () => {
    const server = await faultServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('[{"id":1,');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url }),
    });
    expect(server.seen).toHaveLength(3);
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: cannot reach ${new URL(server.url).host}: connection closed unexpectedly (after 3 attempts)\n`,
      prompts: [],
    });
  });

  it('takes a response body of exactly 32 MiB: only a larger one is refused', async () => {
    const body = Buffer.alloc(32 * 1024 * 1024, 0x20);
    body.write('[', 0);
    body.write(']', body.length - 1);
    const server = await faultServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const result = await run(['pets', 'list', '--json'], {
      env: baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url }),
    });
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
  });

  it('refuses a response body larger than 32 MiB while it streams', async () => {
    let written = 0;
    const server = await faultServer((_req, res) => {
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
      env: baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url }),
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
