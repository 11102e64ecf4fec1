// Every phase of a request is bounded by --timeout and ended by Ctrl-C, and failures of the
// request itself are named as what they are: real loopback servers that misbehave.

import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { failedPeer, networkError } from '../../src/api/errors.js';
import { NetworkError } from '../../src/errors.js';
import { baseEnv, closedPort, run } from '../helpers/cli.js';

const KEY = 'connect-key-1234';
const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.length = 0;
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers.length = 0;
});

/** A TCP server that answers each connection with `answer` (or never, when it is undefined). */
async function tcpServer(answer?: string): Promise<{ url: string; connections: string[] }> {
  const connections: string[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.once('data', (data) => {
      connections.push(data.toString().split('\r\n')[0] ?? '');
      if (answer !== undefined) socket.end(answer);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections };
}

describe('a request through a proxy', () => {
  // A POST too: it never got past the proxy, so nothing is said of what it may have made.
  const COMMANDS: [string, string[]][] = [
    ['pets list', ['pets', 'list']],
    ['pets add', ['pets', 'add', '--name', 'Rex', '--category-id', '1']],
  ];

  it.each(COMMANDS)(
    '%s gives up after --timeout when the proxy never answers CONNECT: exit 6',
    async (_name, argv) => {
      const proxy = await tcpServer();
      const result = await run([...argv, '--timeout', '0.5'], {
        env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy.url }),
      });
      expect(proxy.connections).toEqual(['CONNECT api.animal-store.example:443 HTTP/1.1']);
      expect(result).toEqual({
        code: 6,
        stdout: '',
        stderr: 'error: request to api.animal-store.example timed out after 0.5s\n',
        prompts: [],
      });
    },
  );

  it.each(COMMANDS)(
    '%s ends at once on Ctrl-C while the proxy says nothing: exit 130',
    async (_name, argv) => {
      const proxy = await tcpServer();
      const controller = new AbortController();
      const result = run(argv, {
        env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy.url }),
        signal: controller.signal,
      });
      while (proxy.connections.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      controller.abort();
      expect(await result).toEqual({ code: 130, stdout: '', stderr: '', prompts: [] });
    },
  );

  it('says the proxy refused when it answers 407: exit 6', async () => {
    const proxy = await tcpServer(
      'HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n',
    );
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy.url }),
    });
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr:
        'error: the proxy refused to connect to api.animal-store.example: HTTP 407 Proxy Authentication Required\n',
      prompts: [],
    });
  });

  it.each(COMMANDS)(
    '%s names a proxy that closes the connection instead of connecting, and tries again: exit 6',
    async (_name, argv) => {
      // A web server or a TLS port given as the proxy: it was "cannot reach
      // api.animal-store.example: UND_ERR_PRX_CONN", after one attempt. Nothing went past the
      // proxy, so a POST is tried again too.
      const proxy = await tcpServer('');
      const port = new URL(proxy.url).port;
      const result = await run(argv, {
        env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy.url }),
      });
      expect(proxy.connections).toEqual(
        Array(3).fill('CONNECT api.animal-store.example:443 HTTP/1.1'),
      );
      expect(result).toEqual({
        code: 6,
        stdout: '',
        stderr: `error: cannot reach the proxy 127.0.0.1:${port} (for api.animal-store.example): it closed the connection instead of connecting through (is it a proxy?) (after 3 attempts)\n`,
        prompts: [],
      });
    },
  );

  it.each([
    ['answers 407', 'HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n', 1],
    ['answers 403', 'HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n', 1],
    ['closes the connection', '', 3],
  ])(
    'stops a bulk add when the proxy %s, as every later input would meet it: exit 6',
    async (_what, answer, connections) => {
      // Each input was sent on, and refused: one failed login at the proxy per animal.
      const proxy = await tcpServer(answer);
      const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
        env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy.url }),
        stdin: '{"name":"A","categoryId":1}\n'.repeat(5),
      });
      expect(proxy.connections).toHaveLength(connections);
      expect(result.code).toBe(6);
      const lines = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => [line.input, line.error.code])).toEqual([
        [1, answer === '' ? 'network_error' : 'proxy_error'],
        [2, 'not_sent'],
        [3, 'not_sent'],
        [4, 'not_sent'],
        [5, 'not_sent'],
      ]);
    },
  );

  it.each([
    ['HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n', 3],
    // As the service's own 429 in a bulk add: five attempts more.
    ['HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\n\r\n', 6],
    ['HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n\r\n', 3],
  ])(
    'does not stop a bulk add for a passing proxy trouble, and tries each input again (%j)',
    async (answer, attempts) => {
      // One 503 from the proxy ended a 10,000-animal import at its first input; before that,
      // each input was tried once.
      const proxy = await tcpServer(answer);
      const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
        env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy.url }),
        stdin: '{"name":"A","categoryId":1}\n'.repeat(3),
      });
      expect(proxy.connections).toHaveLength(3 * attempts);
      expect(result.code).toBe(6);
      const errors = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).error);
      expect(errors.map((error) => error.code)).toEqual([
        'proxy_error',
        'proxy_error',
        'proxy_error',
      ]);
      expect(errors[0].message).toMatch(new RegExp(`\\(after ${attempts} attempts\\)$`));
    },
  );

  it('slows a bulk add down when the proxy answers CONNECT with 429, as for the service', async () => {
    // It was tried again at the same pace, with nothing said.
    const proxy = await tcpServer('HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\n\r\n');
    const result = await run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
      env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy.url, NO_COLOR: '1' }),
      stdin: '{"name":"A","categoryId":1}\n',
      tty: { stderr: true },
    });
    expect(result.code).toBe(6);
    const drawn = result.stderr.replace(/\d+\/s/g, 'N/s').split('\r\u001b[K');
    expect(drawn).toContain('0 created, 0 failed (N/s); HTTP 429: slowing down');
  });

  it.each(COMMANDS)(
    '%s tries again when the proxy answers CONNECT with a 503 (nothing went past it): exit 6',
    async (_name, argv) => {
      const proxy = await tcpServer(
        'HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n',
      );
      const result = await run(argv, {
        env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy.url }),
      });
      expect(proxy.connections).toHaveLength(3);
      expect(result).toEqual({
        code: 6,
        stdout: '',
        stderr:
          'error: the proxy refused to connect to api.animal-store.example: HTTP 503 Service Unavailable (after 3 attempts)\n',
        prompts: [],
      });
    },
  );

  it('says nothing of what a POST may have made when nothing reached the server', async () => {
    // A proxy that refuses CONNECT, and a TLS handshake with a server that speaks plain HTTP:
    // the POST never left, so "the animal may have been created" would be false.
    const proxy = await tcpServer(
      'HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n',
    );
    const plain = await tcpServer('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
    const add = ['pets', 'add', '--name', 'Rex', '--category-id', '1'];
    const viaProxy = await run(add, {
      env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy.url }),
    });
    expect(viaProxy.stderr).toBe(
      'error: the proxy refused to connect to api.animal-store.example: HTTP 407 Proxy Authentication Required\n',
    );
    const tls = await run(add, {
      env: baseEnv({
        STORE_API_KEY: KEY,
        STORE_BASE_URL: `${plain.url.replace('http:', 'https:')}/v1`,
      }),
    });
    expect(tls.code).toBe(6);
    expect(tls.stderr).toMatch(
      /^error: cannot reach 127\.0\.0\.1:\d+: the TLS handshake failed\nhint: does it speak HTTPS on that port\? an http:\/\/ URL is for a server that does not\n$/,
    );
  });

  it('reads https_proxy before HTTPS_PROXY, as curl and Node do', async () => {
    const lower = await tcpServer(
      'HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n',
    );
    const upper = await tcpServer('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: KEY, https_proxy: lower.url, HTTPS_PROXY: upper.url }),
    });
    expect(result.stderr).toContain('HTTP 407');
    expect(lower.connections).toHaveLength(1);
    expect(upper.connections).toHaveLength(0);
  });

  it('takes an empty https_proxy as unset, as curl does: HTTPS_PROXY is used', async () => {
    const upper = await tcpServer('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: KEY, https_proxy: '', HTTPS_PROXY: upper.url }),
    });
    expect(result.stderr).toBe(
      'error: the proxy refused to connect to api.animal-store.example: HTTP 403 Forbidden\n',
    );
    expect(upper.connections).toHaveLength(1);
  });

  it.each([
    ['http://127.0.0.1:PORT', 'api.animal-store.example'],
    // Without a scheme it is http://, as curl takes it (it was an internal error, exit 1).
    ['127.0.0.1:PORT', 'api.animal-store.example'],
    // On the port of the API itself: told apart by its address.
    ['http://127.0.0.1:PORT', 'api.animal-store.example:PORT'],
  ])('names a proxy that is down (%s for %s), not the API host behind it', async (proxy, host) => {
    // It said "cannot reach api.animal-store.example: connection refused".
    const port = String(await closedPort());
    const result = await run(['pets', 'list'], {
      env: baseEnv({
        STORE_API_KEY: KEY,
        HTTPS_PROXY: proxy.replace('PORT', port),
        STORE_BASE_URL: `https://${host.replace('PORT', port)}/v1`,
      }),
    });
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: cannot reach the proxy 127.0.0.1:${port} (for ${host.replace('PORT', port)}): connection refused (after 3 attempts)\n`,
      prompts: [],
    });
  });

  it.each([
    ['http://bob:hunter2@proxy.corp:99999', 'http://****@proxy.corp:99999'],
    // A password with a character a URL reserves is the usual reason it does not parse.
    ['http://bob:se/cret@proxy.corp:8080', 'http://****@proxy.corp:8080'],
    ['http://bob:se#cr?et@proxy.corp:8080', 'http://****@proxy.corp:8080'],
    // Parsed as host "bob", port 12 and a path: undici refused it as an internal error.
    ['http://bob:12/34@proxy.corp:8080', 'http://****@proxy.corp:8080'],
    // An escape that does not decode: undici's decodeURIComponent threw "URI malformed".
    ['http://bob:pa%zz@proxy.corp:8080', 'http://****@proxy.corp:8080'],
    // An @ in the password: all of it up to the last @.
    ['http://bob:p@ss@proxy.corp:99999', 'http://****@proxy.corp:99999'],
    // No scheme (taken for http:// when it parses): the password was shown whole.
    ['alice:se/cret@proxy.corp:8080', '****@proxy.corp:8080'],
    ['alice:pa%zz@proxy.corp:8080', '****@proxy.corp:8080'],
  ])(
    'does not repeat the password of a proxy setting that is not a URL (%s)',
    async (proxy, shown) => {
      const result = await run(['pets', 'list'], {
        env: baseEnv({ STORE_API_KEY: KEY, HTTPS_PROXY: proxy }),
      });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: HTTPS_PROXY must be a proxy's http:// or https:// URL (host, port, perhaps user:password@; no path): "${shown}"\n`,
        prompts: [],
      });
    },
  );

  it.each([
    ['HTTPS_PROXY', 'not a url'],
    // A path, a query or a fragment: undici refused them with "internal error: invalid url".
    ['HTTPS_PROXY', 'http://proxy.corp:3128/path'],
    ['HTTPS_PROXY', 'http://proxy.corp:3128/?x'],
    ['HTTPS_PROXY', 'socks5://proxy.corp:1080'],
    // Named as it was spelt.
    ['https_proxy', 'http://proxy.corp:3128/path'],
  ])('refuses %s=%s, which is no proxy URL: exit 2, nothing sent', async (name, value) => {
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: KEY, [name]: value }),
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${name} must be a proxy's http:// or https:// URL (host, port, perhaps user:password@; no path): ${JSON.stringify(value)}\n`,
      prompts: [],
    });
  });
});

describe('a request that cannot be formed', () => {
  it('refuses a key holding a newline with exit 2, not as a network error', async () => {
    const server = await tcpServer('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n[]');
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: 'abc\ndef', STORE_BASE_URL: `${server.url}/v1` }),
    });
    expect(server.connections).toEqual([]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: the request cannot be sent: a header (the API key, or one given with -H) holds a character that is not allowed in HTTP headers\n',
      prompts: [],
    });
  });

  it('stops a server that accepts the connection but never answers at --timeout', async () => {
    const server = await tcpServer();
    const result = await run(['pets', 'list', '--timeout', '0.5'], {
      env: baseEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: `${server.url}/v1` }),
    });
    expect(result.code).toBe(6);
    expect(result.stderr).toBe(`error: request to ${server.url.slice(7)} timed out after 0.5s\n`);
  });
});

describe('an answer in more than one part', () => {
  const PETS = '[{"id":1,"name":"Rex","categoryId":2}]';
  const final = (status: string, body: string) =>
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;

  it('takes the answer after an interim one (103 Early Hints)', async () => {
    const server = await tcpServer(
      `HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n${final('200 OK', PETS)}`,
    );
    const result = await run(['pets', 'list', '--json'], {
      env: baseEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: `${server.url}/v1` }),
    });
    expect(result).toEqual({ code: 0, stdout: `${PETS}\n`, stderr: '', prompts: [] });
    expect(server.connections).toEqual(['GET /v1/pets HTTP/1.1']);
  });

  it('takes an interim answer and then a closed connection for no answer: exit 6', async () => {
    const server = await tcpServer('HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n');
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: `${server.url}/v1` }),
    });
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: cannot reach ${server.url.slice(7)}: connection closed unexpectedly (after 3 attempts)\n`,
      prompts: [],
    });
  });

  it('reads the Error body after an interim answer', async () => {
    const error = '{"code":"pet_not_found","message":"no pet 7","status":404}';
    const server = await tcpServer(
      `HTTP/1.1 103 Early Hints\r\n\r\n${final('404 Not Found', error)}`,
    );
    const result = await run(['pets', 'get', '7'], {
      env: baseEnv({
        STORE_API_KEY: KEY,
        STORE_BASE_URL: `${server.url}/v1`,
        STORE_NO_DEPRECATION_WARNINGS: '1',
      }),
    });
    expect(result).toEqual({
      code: 5,
      stdout: '',
      stderr: 'error: no pet 7 (pet_not_found, HTTP 404)\n',
      prompts: [],
    });
  });
});

describe('a connection that could not be made at all', () => {
  it.each([
    ['ENOTFOUND', 'host not found', true],
    ['EAI_AGAIN', 'DNS lookup failed', true],
    ['ECONNREFUSED', 'connection refused', true],
    ['EHOSTUNREACH', 'host unreachable', true],
    ['ENETUNREACH', 'network unreachable', true],
    ['ECONNRESET', 'connection reset', false],
  ])(
    '%s: "%s", unreachable %s (an import stops sending when it is)',
    (code, reason, unreachable) => {
      const cause = Object.assign(new Error(code), { code });
      const error = networkError(new URL('https://api.example/v1/pets'), cause, 1000, true);
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.message).toBe(`cannot reach api.example: ${reason}`);
      expect((error as NetworkError).unreachable).toBe(unreachable);
      // Only a connection that broke once made may have delivered the request.
      expect((error as NetworkError).maybeDelivered).toBe(!unreachable);
    },
  );
});

describe('which end a connection failure was about, with a proxy set', () => {
  const refused = (address: string, port: number) => ({ code: 'ECONNREFUSED', address, port });
  const u = (text: string) => new URL(text);
  it.each([
    // The proxy's name did not resolve; the URL's own did (no_proxy sent it direct).
    [
      'https://api.example/v1',
      'http://proxy.corp:3128',
      { code: 'ENOTFOUND', hostname: 'proxy.corp' },
      'the proxy proxy.corp:3128 (for api.example)',
    ],
    [
      'https://api.example/v1',
      'http://proxy.corp:3128',
      { code: 'ENOTFOUND', hostname: 'api.example' },
      'api.example',
    ],
    // A proxy given as an address: that address and port.
    [
      'https://api.example/v1',
      'http://127.0.0.1:443',
      refused('127.0.0.1', 443),
      'the proxy 127.0.0.1:443 (for api.example)',
    ],
    ['https://api.example/v1', 'http://127.0.0.1:443', refused('192.0.2.7', 443), 'api.example'],
    // A proxy given by name: on another port than the URL's, that port is the proxy's.
    [
      'https://api.example/v1',
      'http://proxy.corp:3128',
      refused('192.0.2.9', 3128),
      'the proxy proxy.corp:3128 (for api.example)',
    ],
    ['https://api.example/v1', 'http://proxy.corp:3128', refused('192.0.2.7', 443), 'api.example'],
    // On the same port: a URL given as an address tells them apart (no_proxy sent it direct).
    ['https://192.0.2.2/v1', 'https://proxy.corp', refused('192.0.2.2', 443), '192.0.2.2'],
    [
      'https://192.0.2.2/v1',
      'https://proxy.corp',
      refused('192.0.2.9', 443),
      'the proxy proxy.corp:443 (for 192.0.2.2)',
    ],
    // Both by name on one port: either.
    [
      'https://api.example/v1',
      'https://proxy.corp',
      refused('192.0.2.9', 443),
      'api.example or the proxy proxy.corp:443',
    ],
  ])('%s through %s, %j: %s', (url, proxy, error, what) => {
    expect(failedPeer(u(url), u(proxy), error)).toBe(what);
  });
});
