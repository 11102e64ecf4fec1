// Requests without a proxy go by Node's own HTTP client (src/api/direct.ts): what it sends, and
// how the answers and failures it reports read, against real loopback servers.
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { baseEnv, run } from '../helpers/cli.js';
import { faultServer, listen, rawServer, reply } from '../helpers/fault-server.js';
import { processEnv, store } from '../helpers/process.js';

const KEY = 'direct-key-5678';
const ADD = ['pets', 'add', '--name', 'Rex', '--category-id', '1', '--json'];
const envFor = (url: string) => baseEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: url });

describe('what a request carries', () => {
  it('sends a body with its length, not in chunks, and the key', async () => {
    const heard: Record<string, string | string[] | undefined>[] = [];
    const server = await faultServer((req, res) => {
      heard.push(req.headers);
      reply(res, 201, '{"id":7,"name":"Rex","categoryId":1}');
    });
    const result = await run(ADD, { env: envFor(server.url) });
    expect(result).toEqual({
      code: 0,
      stdout: '{"id":7,"name":"Rex","categoryId":1}\n',
      stderr: '',
      prompts: [],
    });
    expect(server.seen.map((r) => [r.method, r.url, r.authorization, r.body])).toEqual([
      ['POST', '/v1/pets', `Bearer ${KEY}`, '{"name":"Rex","categoryId":1}'],
    ]);
    expect(heard[0]?.['content-length']).toBe('29');
    expect(heard[0]?.['transfer-encoding']).toBeUndefined();
    expect(heard[0]?.host).toBe(new URL(server.url).host);
  });

  it('reaches a server on the IPv6 loopback address (its brackets are not part of the host name)', async () => {
    const server = createServer((_req, res) => reply(res, 200, '[]'));
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    const { port } = server.address() as { port: number };
    try {
      // As a process: nock, in this one, takes [::1] for a host off the machine.
      const env = processEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: `http://[::1]:${port}/v1` });
      const result = await store(['pets', 'list', '--json'], { env });
      expect(result).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('what an answer brings', () => {
  it('keeps each value of a repeated header, in order (store api -i)', async () => {
    const server = createServer((_req, res) => {
      res.sendDate = false;
      res.setHeader('x-note', ['first', 'second']);
      res.setHeader('content-type', 'application/json');
      res.setHeader('connection', 'close');
      res.end('[]');
    });
    const origin = `http://127.0.0.1:${await listen(server)}`;
    const result = await run(['api', 'pets', '-i'], { env: envFor(`${origin}/v1`) });
    expect(result).toEqual({
      code: 0,
      stdout:
        'HTTP/1.1 200 OK\nx-note: first\nx-note: second\ncontent-type: application/json\nconnection: close\ncontent-length: 2\n\n[]\n',
      stderr: '',
      prompts: [],
    });
  });
});

describe('a connection that breaks', () => {
  it('tells a reset by the network from a connection the server closed', async () => {
    const reset = await faultServer((req) => req.socket.resetAndDestroy());
    const closed = await faultServer((req) => req.socket.destroy());
    const note =
      'hint: the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)';
    const fromReset = await run(ADD.slice(0, -1), { env: envFor(reset.url) });
    const fromClose = await run(ADD.slice(0, -1), { env: envFor(closed.url) });
    expect(fromReset).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: cannot reach ${new URL(reset.url).host}: connection reset\n${note}\n`,
      prompts: [],
    });
    expect(fromClose).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: cannot reach ${new URL(closed.url).host}: connection closed unexpectedly\n${note}\n`,
      prompts: [],
    });
    // A write is not sent again when it may have been received.
    expect(reset.seen).toHaveLength(1);
    expect(closed.seen).toHaveLength(1);
  });
});

const CREATED = '{"id":7,"name":"Zoë","categoryId":1}';
const ZOE = ['pets', 'add', '--name', 'Zoë', '--category-id', '1'];
const created = (declared: number, after = '') =>
  `HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n${Buffer.from(CREATED).toString('latin1')}${after}`;

describe('an answer with bytes after it, or not HTTP at all', () => {
  it('takes a whole 201 followed by stray bytes as the 201 it is', async () => {
    const server = await rawServer(() => created(Buffer.byteLength(CREATED), 'GARBAGE'));
    const result = await run([...ZOE, '--json'], { env: envFor(server.url) });
    expect(result).toEqual({ code: 0, stdout: `${CREATED}\n`, stderr: '', prompts: [] });
    expect(server.requests).toEqual(['POST /v1/pets HTTP/1.1']);
  });

  it('a Content-Length that counts characters, not bytes: the body is cut, so the animal may exist', async () => {
    const server = await rawServer(() => created(CREATED.length));
    const result = await run(ZOE, { env: envFor(server.url) });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the server sent a response that is not JSON (HTTP 201)\n' +
        'hint: the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)\n',
      prompts: [],
    });
    expect(server.requests).toEqual(['POST /v1/pets HTTP/1.1']);
  });

  it("keeps the service's words when stray bytes follow its Error body", async () => {
    const body = '{"code":"name_taken","message":"an animal named Zoë exists","status":400}';
    const server = await rawServer(
      () =>
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${Buffer.from(body).toString('latin1')}XX`,
    );
    const result = await run(ZOE, { env: envFor(server.url) });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr: 'error: an animal named Zoë exists (name_taken, HTTP 400)\n',
      prompts: [],
    });
  });

  it('takes the answer to a HEAD, and a 204, when a body follows them anyway', async () => {
    const server = await rawServer((request) =>
      request.startsWith('HEAD')
        ? 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n[]'
        : 'HTTP/1.1 204 No Content\r\n\r\n{"x":1}',
    );
    const head = await run(['api', '-X', 'HEAD', 'pets'], { env: envFor(server.url) });
    const remove = await run(['api', '-X', 'DELETE', 'pets/1'], { env: envFor(server.url) });
    expect(head).toEqual({ code: 0, stdout: '', stderr: '', prompts: [] });
    expect(remove).toEqual({ code: 0, stdout: '', stderr: '', prompts: [] });
  });

  it('an answer to a POST that is not HTTP: exit 1, and the animal may have been created', async () => {
    const server = await rawServer(
      () => 'HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\nZZZ\r\n{}\r\n0\r\n\r\n',
    );
    const result = await run(ZOE, { env: envFor(server.url) });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `error: ${new URL(server.url).host} sent an answer that is not valid HTTP\n` +
        'hint: the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)\n',
      prompts: [],
    });
    expect(server.requests).toEqual(['POST /v1/pets HTTP/1.1']);
  });

  it('a switch of protocol nobody asked for (101): exit 1 at once, not at the time limit', async () => {
    const server = await rawServer(
      () => 'HTTP/1.1 101 Switching Protocols\r\nupgrade: other\r\nconnection: upgrade\r\n\r\n',
    );
    const result = await run(['pets', 'list', '--timeout', '20'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${new URL(server.url).host} answered 101 Switching Protocols, which nothing asked for\n`,
      prompts: [],
    });
  });
});
