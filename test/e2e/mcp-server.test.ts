// `store mcp` over its whole life: what it settles at its start (the profile, one set of
// connections). bin/store.js as a process, the SDK's own client, loopback servers only.
import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { afterThisTest } from '../helpers/cleanup.js';
import { faultServer, listen, reply } from '../helpers/fault-server.js';
import { BIN, processEnv, store } from '../helpers/process.js';

const KEY = 'k-5e1f0a9b7c3d2468';

/** `store mcp …args` with `env`, connected to the SDK's client. */
async function serve(args: string[], env: NodeJS.ProcessEnv) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'store-test', version: '1.0.0' });
  afterThisTest(() => client.close());
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The text of a result's content items. */
const texts = (result: object) =>
  (result as { content: { text: string }[] }).content.map((item) => item.text);

describe('store mcp keeps what it settled at its start', () => {
  it('writes to the profile it started with, after `store profile use` elsewhere', async () => {
    const alpha = await faultServer((req, res, n) =>
      req.method === 'GET'
        ? reply(res, 200, '[]')
        : reply(
            res,
            201,
            `{"id":"a${n}","message":"m","status":"queued","createdAt":"2026-12-07T08:00:00Z"}`,
          ),
    );
    const beta = await faultServer((_req, res) => reply(res, 500, '{}'));
    const env = processEnv({ STORE_API_KEY: KEY });
    for (const [name, server] of [
      ['alpha', alpha],
      ['beta', beta],
    ] as const) {
      const set = ['profile', 'set', name, '--base-url', server.url, '--messages-url', server.url];
      expect(await store(set, { env })).toMatchObject({ code: 0 });
    }
    expect(await store(['profile', 'use', 'alpha'], { env })).toMatchObject({ code: 0 });

    const { client, stderr } = await serve(['--allow-writes'], env);
    const first = await client.callTool({ name: 'messages_send', arguments: { text: 'one' } });
    expect(texts(first)[1]).toBe('written to profile alpha');
    // Another terminal changes the current profile, and alpha's URL too.
    expect(await store(['profile', 'use', 'beta'], { env })).toMatchObject({ code: 0 });
    const moved = ['profile', 'set', 'alpha', '--base-url', beta.url, '--messages-url', beta.url];
    expect(await store(moved, { env })).toMatchObject({ code: 0 });

    const second = await client.callTool({ name: 'messages_send', arguments: { text: 'two' } });
    expect(second.isError).toBeUndefined();
    expect(texts(second)[1]).toBe('written to profile alpha');
    const status = await client.callTool({ name: 'auth_status', arguments: {} });
    expect(status.structuredContent).toMatchObject({
      profile: 'alpha',
      data: { profile: 'alpha', baseUrl: alpha.url, valid: true },
    });
    expect(alpha.seen.map(({ method, url, body }) => [method, url, body])).toEqual([
      ['POST', '/v1/messages', '{"message":"one"}'],
      ['POST', '/v1/messages', '{"message":"two"}'],
      ['GET', '/v1/pets?limit=1', ''],
    ]);
    expect(beta.seen).toEqual([]);
    expect(stderr()).toContain(`store mcp: serving profile alpha (${alpha.url})`);
  });

  it('reuses one connection for call after call, and keeps no more open', async () => {
    let connections = 0;
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'keep-alive': 'timeout=600' });
      res.end('[]');
    });
    server.keepAliveTimeout = 600_000;
    server.on('connection', () => {
      connections += 1;
    });
    const port = await listen(server);
    const url = `http://127.0.0.1:${port}/v1`;
    const { client } = await serve([], processEnv({ STORE_BASE_URL: url, STORE_API_KEY: KEY }));
    for (let n = 0; n < 20; n += 1) {
      const result = await client.callTool({ name: 'orders_list', arguments: {} });
      expect(result.structuredContent).toEqual({ profile: 'production', data: [] });
    }
    expect(connections).toBe(1);
  });
});
