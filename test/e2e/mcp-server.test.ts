// `store mcp` over its whole life: what it settles at its start (the profile, one set of
// connections), the size of what it writes, the end of its stdin, a line too long to read.
// bin/store.js as a process, the SDK's own client (or raw lines where their bytes are the
// point), loopback servers only.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../../src/mcp/result.js';
import { afterThisTest } from '../helpers/cleanup.js';
import { type FaultServer, faultServer, listen, reply } from '../helpers/fault-server.js';
import { serve } from '../helpers/mcp.js';
import { BIN, collect, processEnv, store } from '../helpers/process.js';

const KEY = 'k-5e1f0a9b7c3d2468';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'store-test', version: '1.0.0' },
  },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** A tools/call request. */
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** `store mcp …args` spoken to in raw lines: what it writes, byte for byte. */
function rawServe(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  afterThisTest(() => child.kill('SIGKILL'));
  const result = collect(child);
  child.stdin.on('error', () => {});
  return {
    child,
    send: (...messages: object[]) =>
      child.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join('')),
    result,
  };
}

/** A message service answering each message as queued, after `delayMs`. */
async function messageService(delayMs = 0): Promise<FaultServer> {
  const service: FaultServer = await faultServer((_req, res, n) => {
    const { message } = JSON.parse(service.seen[n - 1]?.body ?? '{}') as { message: string };
    const answer = { id: `m${n}`, message, status: 'queued', createdAt: '2026-12-07T08:00:00Z' };
    setTimeout(() => reply(res, 201, JSON.stringify(answer)), delayMs);
  });
  return service;
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

it('ends only the cancelled call’s request, not the connections of the others', async () => {
  // Sold animals: never answered; the others after 300 ms.
  const service = await faultServer((req, res) => {
    if (!req.url?.includes('status=sold')) setTimeout(() => reply(res, 200, '[]'), 300);
  });
  const env = processEnv({ STORE_BASE_URL: service.url, STORE_API_KEY: KEY });
  const { client, stderr } = await serve([], env);
  const cancel = new AbortController();
  const sold = client.callTool({ name: 'pets_list', arguments: { status: 'sold' } }, undefined, {
    signal: cancel.signal,
  });
  const available = client.callTool({ name: 'pets_list', arguments: { status: 'available' } });
  await expect.poll(() => service.seen.length).toBe(2);
  // notifications/cancelled for the first.
  cancel.abort();
  await expect(sold).rejects.toThrow();
  expect((await available).structuredContent).toEqual({ profile: 'production', data: [] });
  // Answered on its own connection, the first time: not cut off and sent again.
  expect(service.seen.map(({ url }) => url).sort()).toEqual([
    '/v1/pets?status=available',
    '/v1/pets?status=sold',
  ]);
  await expect.poll(() => stderr()).toContain('pets_list: failed: interrupted\n');
});

describe('store mcp answers within what a stdio client reads', () => {
  /** A service whose GET /v1/big?n=N answers a JSON string of N x's, after a space with sp. */
  async function bigService() {
    const server = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${query.has('sp') ? ' ' : ''}"${'x'.repeat(Number(query.get('n')))}"`);
    });
    const port = await listen(server);
    return processEnv({ STORE_BASE_URL: `http://127.0.0.1:${port}/v1`, STORE_API_KEY: KEY });
  }

  it('sends a result of exactly the limit, and refuses one byte more as a tool error', async () => {
    const env = await bigService();
    // The answer's bytes: a fixed part, and the string twice (text and structuredContent); a
    // space before it is kept in the text alone. Measured on empty strings first.
    const probe = rawServe([], env);
    probe.send(
      INITIALIZE,
      INITIALIZED,
      call(1, 'api_get', { path: '/big?n=0' }),
      call(2, 'api_get', { path: '/big?n=0&sp' }),
    );
    probe.child.stdin.end();
    const empty = (await probe.result).stdout.split('\n').slice(1, 3);
    const fixed = empty.map((line) => Buffer.byteLength(line) + 1);
    /** The path whose answer to a call of a one-digit id takes `bytes`. */
    const pathFor = (bytes: number) => {
      const variant = fixed.findIndex((size) => (bytes - size) % 2 === 0);
      return `/big?n=${(bytes - (fixed[variant] as number)) / 2}${variant === 1 ? '&sp' : ''}`;
    };

    const { child, send, result } = rawServe([], env);
    send(
      INITIALIZE,
      INITIALIZED,
      call(1, 'api_get', { path: pathFor(MAX_MESSAGE_BYTES) }),
      call(2, 'api_get', { path: pathFor(MAX_MESSAGE_BYTES + 1) }),
      call(3, 'orders_list', {}),
    );
    child.stdin.end();
    const { code, stdout, stderr } = await result;
    expect(code).toBe(0);
    // Answered as each call ends, in whatever order.
    const lines = new Map(
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => [JSON.parse(line).id as number, line]),
    );
    expect([...lines.keys()].sort()).toEqual([0, 1, 2, 3]);
    expect(Buffer.byteLength(lines.get(1) as string) + 1).toBe(MAX_MESSAGE_BYTES);
    expect(JSON.parse(lines.get(1) as string).result.isError).toBeUndefined();
    expect(JSON.parse(lines.get(2) as string).result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text:
            'error: the result is too large to send: 8388609 bytes as a message, over the 8388608 (8 MiB) one may take\n' +
            'hint: ask for less (path, rawField, header), or run `store api --method GET --json` in a terminal, where there is no such limit\n' +
            'exit code 1: any other failure: unexpected status or response shape, unreadable config, internal error',
        },
      ],
      structuredContent: {
        profile: 'production',
        error: {
          code: 'result_too_large',
          message:
            'the result is too large to send: 8388609 bytes as a message, over the 8388608 (8 MiB) one may take',
          status: null,
          hint: 'ask for less (path, rawField, header), or run `store api --method GET --json` in a terminal, where there is no such limit',
          exitCode: 1,
          meaning:
            'any other failure: unexpected status or response shape, unreadable config, internal error',
        },
      },
    });
    expect(stderr.split('\n').slice(1).sort()).toEqual([
      '',
      'api_get: failed: result_too_large',
      'api_get: ok',
      'orders_list: ok',
    ]);
  });

  it('keeps the SDK client’s session when an answer would be over 10 MiB', async () => {
    const env = await bigService();
    const { client } = await serve([], env);
    const big = await client.callTool({ name: 'api_get', arguments: { path: '/big?n=5300000' } });
    expect(big).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: 'result_too_large',
          message: expect.stringMatching(
            /^the result is too large to send: 106\d{5} bytes as a message, over the 8388608 \(8 MiB\) one may take$/,
          ),
        },
      },
    });
    const next = await client.callTool({ name: 'api_get', arguments: { path: '/big?n=3' } });
    expect(next.structuredContent).toEqual({ profile: 'production', data: 'xxx' });
  });

  it('stops with exit 1 and one line when a request line is over 10 MiB', async () => {
    const service = await faultServer((_req, res) => reply(res, 200, '[]'));
    const env = processEnv({ STORE_BASE_URL: service.url, STORE_API_KEY: KEY });
    const { child, send, result } = rawServe(['--allow-writes'], env);
    send(INITIALIZE, INITIALIZED, call(1, 'messages_send', { text: 'y'.repeat(11 * 1024 * 1024) }));
    const { code, signal, stdout, stderr } = await result;
    expect({ code, signal }).toEqual({ code: 1, signal: null });
    expect(stdout.split('\n').map((line) => line && JSON.parse(line).id)).toEqual([0, '']);
    expect(stderr.split('\n').slice(1)).toEqual([
      'store mcp: a message from the client was longer than 10 MiB, the most a line of the protocol may be; stopped',
      '',
    ]);
    expect(service.seen).toEqual([]);
    child.stdin.end();
  });
});

describe('store mcp at the end of its stdin', () => {
  it('answers the calls it has read before ending: piped requests, then EOF', async () => {
    const service = await messageService(600);
    const env = processEnv({ STORE_BASE_URL: service.url, STORE_API_KEY: KEY });
    const { child, send, result } = rawServe(['--allow-writes'], env);
    send(INITIALIZE, INITIALIZED, call(1, 'messages_send', { text: 'restock done' }));
    child.stdin.end();
    const { code, stdout, stderr } = await result;
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.map((line) => line && JSON.parse(line).id)).toEqual([0, 1, '']);
    expect(JSON.parse(lines[1] as string).result.structuredContent).toEqual({
      profile: 'production',
      data: {
        id: 'm1',
        message: 'restock done',
        status: 'queued',
        createdAt: '2026-12-07T08:00:00Z',
      },
    });
    expect(stderr.split('\n').slice(1)).toEqual(['messages_send: ok', '']);
    expect(service.seen.map(({ method, body }) => [method, body])).toEqual([
      ['POST', '{"message":"restock done"}'],
    ]);
  });

  it('gives a call still running past the time limit after EOF an interrupted answer', async () => {
    // Asks to come back in 5 s: the call waits, longer than the 1 s it is given after EOF.
    const service = await faultServer((_req, res) => reply(res, 503, '{}', { 'retry-after': '5' }));
    const env = processEnv({ STORE_BASE_URL: service.url, STORE_API_KEY: KEY });
    const { child, send, result } = rawServe(['--timeout', '1'], env);
    send(INITIALIZE, INITIALIZED, call(1, 'pets_list', {}));
    await expect.poll(() => service.seen.length).toBe(1);
    const eof = performance.now();
    child.stdin.end();
    const { code, stdout, stderr } = await result;
    expect(code).toBe(0);
    expect(performance.now() - eof).toBeLessThan(4000);
    const answers = stdout.split('\n').map((line) => line && JSON.parse(line));
    expect(answers.map((answer) => answer?.id)).toEqual([0, 1, undefined]);
    expect(answers[1].result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'interrupted', exitCode: 130 } },
    });
    expect(stderr.split('\n').slice(1)).toEqual(['pets_list: failed: interrupted', '']);
    expect(service.seen.map(({ method, url }) => [method, url])).toEqual([['GET', '/v1/pets']]);
  });

  it('says a write whose answer never came may have been made', async () => {
    // Takes the message, never answers.
    const service = await faultServer(() => {});
    const env = processEnv({ STORE_BASE_URL: service.url, STORE_API_KEY: KEY });
    const { child, send, result } = rawServe(['--allow-writes', '--timeout', '1'], env);
    send(INITIALIZE, INITIALIZED, call(1, 'messages_send', { text: 'restock done' }));
    await expect.poll(() => service.seen.length).toBe(1);
    child.stdin.end();
    const { code, stdout, stderr } = await result;
    expect(code).toBe(0);
    const answer = JSON.parse(stdout.split('\n')[1] as string);
    expect(answer).toMatchObject({
      id: 1,
      result: {
        isError: true,
        structuredContent: {
          error: {
            code: 'timeout',
            message: `request to ${new URL(service.url).host} timed out after 1s`,
            hint: 'the message may have been sent',
          },
        },
      },
    });
    expect(stderr.split('\n').slice(1)).toEqual([
      'messages_send: failed: timeout; the message may have been sent',
      '',
    ]);
  });
});

describe('store mcp takes text as the command line does', () => {
  it('refuses text that is not valid Unicode (a lone surrogate), with nothing sent', async () => {
    const service = await messageService();
    const env = processEnv({ STORE_BASE_URL: service.url, STORE_API_KEY: KEY });
    const { client } = await serve(['--allow-writes'], env);
    const result = await client.callTool({
      name: 'messages_send',
      arguments: { text: 'a\ud800b' },
    });
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: 'usage_error',
          message: 'text is not valid Unicode text (a lone surrogate, U+D800); nothing was sent',
          exitCode: 2,
        },
      },
    });
    expect(service.seen).toEqual([]);
  });
});

describe('store mcp logs for people', () => {
  it('keeps the service’s whole error code in the result, and a short one in its log line', async () => {
    const code = 'c'.repeat(5000);
    const service = await faultServer((_req, res) =>
      reply(res, 404, JSON.stringify({ code, message: 'no such orders', status: 404 })),
    );
    const env = processEnv({ STORE_BASE_URL: service.url, STORE_API_KEY: KEY });
    const { client, stderr } = await serve([], env);
    const result = await client.callTool({ name: 'orders_list', arguments: {} });
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error: { code, message: 'no such orders', status: 404 } },
    });
    await expect
      .poll(() => stderr())
      .toContain(`orders_list: failed: ${'c'.repeat(1000)}… (4000 more characters) (HTTP 404)\n`);
  });
});
