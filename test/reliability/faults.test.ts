// The HTTP layer under faults, against a real loopback server that scripts each answer.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/api/retry.js';
import { baseEnv, closedPort, run } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { processEnv, store } from '../helpers/process.js';

const KEY = 'fault-key-9876';
const PETS = '[{"id":1,"name":"Rex","categoryId":1}]';
const PET = '{"id":1,"name":"Rex","categoryId":1}';
const TSV = 'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t1\t\n';

const envFor = (url: string, extra: Record<string, string> = {}) =>
  baseEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: url, ...extra });

const ADD = ['pets', 'add', '--name', 'Rex', '--category-id', '1'];

describe('retries', () => {
  it('retries a GET after 503 and succeeds', async () => {
    const server = await faultServer((_req, res, n) =>
      n === 1
        ? reply(res, 503, '{"code":"busy","message":"busy","status":503}')
        : reply(res, 200, PETS),
    );
    const result = await run(['pets', 'list'], { env: envFor(server.url) });
    expect(result).toEqual({ code: 0, stdout: TSV, stderr: '', prompts: [] });
    expect(server.seen.map((r) => `${r.method} ${r.url} ${r.authorization}`)).toEqual([
      `GET /v1/pets Bearer ${KEY}`,
      `GET /v1/pets Bearer ${KEY}`,
    ]);
  });

  it('waits as long as Retry-After asks after a 429', async () => {
    const server = await faultServer((_req, res, n) =>
      n === 1 ? reply(res, 429, '', { 'retry-after': '1' }) : reply(res, 200, PETS),
    );
    const sleeps: number[] = [];
    const result = await run(['pets', 'list'], { env: envFor(server.url), sleeps });
    expect(result.code).toBe(0);
    expect(server.seen).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
  });

  it.each([
    [
      503,
      '{"code":"maintenance","message":"down for maintenance","status":503}',
      'error: down for maintenance (maintenance, HTTP 503)\nhint: still failing after 3 attempts; try again later\n',
    ],
    [
      502,
      '<html><h1>502 Bad Gateway</h1></html>',
      'error: the server answered bad gateway (http_502, HTTP 502)\nhint: still failing after 3 attempts; try again later\n',
    ],
    [
      504,
      '',
      'error: the server answered gateway timeout (http_504, HTTP 504)\nhint: still failing after 3 attempts; try again later\n',
    ],
  ])(
    'gives up on a GET after two retries of HTTP %i: exit 7, three requests',
    async (status, body, stderr) => {
      const server = await faultServer((_req, res) => reply(res, status, body));
      const sleeps: number[] = [];
      const result = await run(['pets', 'list'], { env: envFor(server.url), sleeps });
      expect(result).toEqual({ code: 7, stdout: '', stderr, prompts: [] });
      expect(server.seen).toHaveLength(3);
      // Backoff doubles from 250 ms; jitter is pinned to its middle in tests.
      expect(sleeps).toEqual([187.5, 375]);
    },
  );

  it('does not retry HTTP 500', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 500, '{"code":"internal","message":"boom","status":500}'),
    );
    const result = await run(['pets', 'list'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 7,
      stdout: '',
      stderr: 'error: boom (internal, HTTP 500)\n',
      prompts: [],
    });
    expect(server.seen).toHaveLength(1);
  });

  it('retries a GET whose connection is reset, then reports exit 6', async () => {
    const server = await faultServer((req) => req.socket.destroy());
    const sleeps: number[] = [];
    const result = await run(['pets', 'list', '--json'], { env: envFor(server.url), sleeps });
    // The backoff of a failed connection, as of a 503: the base, then twice it (jitter mid-range).
    expect(sleeps).toEqual([187.5, 375]);
    expect(result.code).toBe(6);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        code: 'network_error',
        message: `cannot reach ${server.origin.slice(7)}: connection closed unexpectedly (after 3 attempts)`,
        status: null,
      },
    });
    expect(server.seen).toHaveLength(3);
  });

  it('never retries a POST the server may have acted on: reset and 503 each give one request', async () => {
    for (const fault of ['reset', 503] as const) {
      const server = await faultServer((req, res) =>
        fault === 'reset' ? req.socket.destroy() : reply(res, fault, '', { 'retry-after': '0' }),
      );
      const result = await run(ADD, { env: envFor(server.url) });
      expect(result.code).toBe(fault === 'reset' ? 6 : 7);
      expect(result.stdout).toBe('');
      expect(server.seen.map((r) => `${r.method} ${r.body}`)).toEqual([
        'POST {"name":"Rex","categoryId":1}',
      ]);
    }
  });

  it('retries a POST answered 429 (the server did not act on it), honouring Retry-After', async () => {
    const server = await faultServer((_req, res, n) =>
      n < 3 ? reply(res, 429, '', { 'retry-after': '2' }) : reply(res, 201, PET),
    );
    const sleeps: number[] = [];
    const result = await run([...ADD, '--json'], { env: envFor(server.url), sleeps });
    expect(result).toEqual({ code: 0, stdout: `${PET}\n`, stderr: '', prompts: [] });
    expect(server.seen.map((r) => `${r.method} ${r.body}`)).toEqual(
      Array(3).fill('POST {"name":"Rex","categoryId":1}'),
    );
    expect(sleeps).toEqual([2000, 2000]);
  });

  it('gives up on a POST still answered 429 after two resends: three attempts, exit 7', async () => {
    const server = await faultServer((_req, res) => reply(res, 429, '', { 'retry-after': '1' }));
    const sleeps: number[] = [];
    const result = await run(ADD, { env: envFor(server.url), sleeps });
    expect(result).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'error: the server answered too many requests (http_429, HTTP 429)\nhint: still failing after 3 attempts; try again later\n',
      prompts: [],
    });
    expect(server.seen.map((r) => `${r.method} ${r.body}`)).toEqual(
      Array(3).fill('POST {"name":"Rex","categoryId":1}'),
    );
    expect(sleeps).toEqual([1000, 1000]);
  });

  it('retries a POST whose connection was refused outright (nothing was sent)', async () => {
    const port = await closedPort();
    const result = await run([...ADD, '--debug'], { env: envFor(`http://127.0.0.1:${port}/v1`) });
    expect(result.code).toBe(6);
    expect(result.stdout).toBe('');
    const retries = result.stderr.split('\n').filter((line) => line.includes('retrying in'));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatch(
      new RegExp(
        `^! cannot reach 127\\.0\\.0\\.1:${port}: connection refused; retrying in \\d+ ms$`,
      ),
    );
  });

  it('does not retry after a timeout', async () => {
    const server = await faultServer(() => {}); // never answers
    const result = await run(['pets', 'list', '--timeout', '0.3'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: request to ${server.origin.slice(7)} timed out after 0.3s\n`,
      prompts: [],
    });
    expect(server.seen).toHaveLength(1);
  });

  it('bounds a whole attempt, not only its silences: a body that trickles in times out', async () => {
    // A byte every 100 ms never lets undici's idle timers fire: only store's own timer for the
    // attempt ends it (the README: --timeout bounds the headers and the body).
    const server = await faultServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    });
    const result = await run(['pets', 'list', '--timeout', '0.5'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: request to ${server.origin.slice(7)} timed out after 0.5s\n`,
      prompts: [],
    });
  });

  it('exits 130 when interrupted while waiting to retry', async () => {
    const server = await faultServer((_req, res) => reply(res, 503, '', { 'retry-after': '10' }));
    const controller = new AbortController();
    const started = performance.now();
    // Ctrl-C once the wait has begun: a timer of 300 ms from the start could fire before the
    // first answer on a busy machine (a Ctrl-C during the request, not during the wait).
    const result = await run(['pets', 'list'], {
      env: envFor(server.url),
      signal: controller.signal,
      timing: {
        sleep: (ms, signal) => {
          setTimeout(() => controller.abort(), 50);
          return sleep(ms, undefined, { signal });
        },
      },
    });
    expect(result).toEqual({ code: 130, stdout: '', stderr: '', prompts: [] });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(server.seen).toHaveLength(1);
  });
});

describe('a write whose fate is unknown says so', () => {
  it('pets add cut off after sending, or answered 201 with what cannot be read: may have been created', async () => {
    const host = (url: string) => new URL(url).host;
    const cut = await faultServer((req) => req.socket.destroy());
    const garbled = await faultServer((_req, res) => reply(res, 201, '{"id":"one"}'));
    const note =
      'the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)';
    expect(await run(ADD, { env: envFor(cut.url) })).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: cannot reach ${host(cut.url)}: connection closed unexpectedly\nhint: ${note}\n`,
      prompts: [],
    });
    expect(await run(ADD, { env: envFor(garbled.url) })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: the server sent a response of an unexpected shape (HTTP 201)\nhint: run with --debug for details; ${note}\n`,
      prompts: [],
    });
    // A success with no body at all, where the command needs the animal (or the list).
    const empty = await faultServer((_req, res) => reply(res, 201, ''));
    expect(await run(ADD, { env: envFor(empty.url) })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: the server sent an empty response (HTTP 201)\nhint: ${note}\n`,
      prompts: [],
    });
    const emptyList = await faultServer((_req, res) => reply(res, 200, ''));
    expect(await run(['pets', 'list'], { env: envFor(emptyList.url) })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: the server sent an empty response (HTTP 200)\n',
      prompts: [],
    });
  });

  it('names the profile in use in the command to look with (-p staging)', async () => {
    // Without it, the command as told would look at the config's current profile.
    const cut = await faultServer((req) => req.socket.destroy());
    const host = new URL(cut.url).host;
    expect(await run(['-p', 'staging', ...ADD], { env: envFor(cut.url) })).toEqual({
      code: 6,
      stdout: '',
      stderr:
        `error: cannot reach ${host}: connection closed unexpectedly\n` +
        'hint: the animal may have been created: before adding it again, look for it with `store -p staging pets list --limit 100` (the service cannot search by name)\n',
      prompts: [],
    });
  });

  it('an answer whose headers are too large: one error line; after a POST, may have been created', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 201, PET, { 'x-big': 'a'.repeat(100_000) }),
    );
    const host = new URL(server.url).host;
    const note =
      'the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)';
    expect(await run(['pets', 'list'], { env: envFor(server.url) })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${host} sent response headers that are too large\n`,
      prompts: [],
    });
    expect(await run(ADD, { env: envFor(server.url) })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${host} sent response headers that are too large\nhint: ${note}\n`,
      prompts: [],
    });
  });

  it('takes headers of up to 16 KiB, Node’s limit, or as many as --max-http-header-size allows', async () => {
    // A real process: undici takes Node's limit, which NODE_OPTIONS or Node's own command line
    // may raise with --max-http-header-size.
    const server = await faultServer((req, res) =>
      reply(res, 200, PETS, {
        'x-big': 'a'.repeat(req.url === '/v1/pets?limit=1' ? 15_000 : 20_000),
      }),
    );
    const env = processEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: server.url });
    const host = new URL(server.url).host;
    expect(await store(['pets', 'list', '--limit', '1'], { env })).toMatchObject({
      code: 0,
      stdout: TSV,
    });
    expect(await store(['pets', 'list'], { env })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: ${host} sent response headers that are too large\n`,
    });
    const larger = { ...env, NODE_OPTIONS: '--max-http-header-size=32768' };
    expect(await store(['pets', 'list'], { env: larger })).toMatchObject({
      code: 0,
      stdout: TSV,
      stderr: '',
    });
    const onCommandLine = { env, nodeArgs: ['--max-http-header-size=32768'] };
    expect(await store(['pets', 'list'], onCommandLine)).toMatchObject({ code: 0, stdout: TSV });
    expect(server.seen).toHaveLength(4);
  });

  it.each([201, 502])(
    'a POST answered %i with a body over 32 MiB: refused, and may have been created',
    async (status) => {
      const server = await faultServer((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(Buffer.alloc(33 * 1024 * 1024, 0x20));
      });
      expect(await run([...ADD, '--json'], { env: envFor(server.url) })).toEqual({
        code: 1,
        stdout: '',
        stderr: `{"error":{"code":"response_too_large","message":"the response body is larger than 32 MiB; refused","status":${status},"hint":"the animal may have been created: before adding it again, look for it with \`store pets list --limit 100\` (the service cannot search by name)"}}\n`,
        prompts: [],
      });
    },
  );

  it('Ctrl-C while a POST is awaited says the animal may exist; during a wait to retry, nothing', async () => {
    const silent = await faultServer(() => {}); // holds every request
    const controller = new AbortController();
    const pending = run(ADD, { env: envFor(silent.url), signal: controller.signal });
    while (silent.seen.length === 0) await sleep(10);
    controller.abort();
    expect(await pending).toEqual({
      code: 130,
      stdout: '',
      stderr:
        'error: interrupted\nhint: the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)\n',
      prompts: [],
    });
    // A POST answered 429 was not acted on: Ctrl-C during the wait before sending it again.
    const limited = await faultServer((_req, res) => reply(res, 429, '', { 'retry-after': '10' }));
    const second = new AbortController();
    let waitingToRetry = false;
    const waiting = run(ADD, {
      env: envFor(limited.url),
      signal: second.signal,
      timing: {
        sleep: (ms, signal) => {
          waitingToRetry = true;
          return sleep(ms, undefined, { signal });
        },
      },
    });
    while (!waitingToRetry) await sleep(10);
    second.abort();
    expect(await waiting).toEqual({ code: 130, stdout: '', stderr: '', prompts: [] });
  });

  it('Ctrl-C while a POST sent again after 429 is awaited: the note, and no count of attempts', async () => {
    // Answered 429 first, then held: the second attempt is in flight when Ctrl-C comes.
    const server = await faultServer((_req, res, n) => {
      if (n === 1) reply(res, 429, '');
    });
    const controller = new AbortController();
    const sleeps: number[] = [];
    const pending = run(ADD, { env: envFor(server.url), signal: controller.signal, sleeps });
    while (server.seen.length < 2) await sleep(10);
    controller.abort();
    expect(await pending).toEqual({
      code: 130,
      stdout: '',
      stderr:
        'error: interrupted\nhint: the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)\n',
      prompts: [],
    });
    expect(sleeps).toHaveLength(1);
  });

  it('an error answer cut off mid-body is told by its status, not as a network failure', async () => {
    // It said "cannot reach …: connection closed unexpectedly (after 3 attempts)", exit 6.
    const server = await faultServer((req, res) => {
      const status = req.method === 'GET' ? 404 : 400;
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': '60' });
      res.write('{"code":"not_found","mess');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const cut = 'the answer was cut off before its end';
    expect(await run(['pets', 'list'], { env: envFor(server.url) })).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: the server answered not found (http_404, HTTP 404)\nhint: ${cut}\n`,
      prompts: [],
    });
    expect(await run(ADD, { env: envFor(server.url) })).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: the server answered bad request (http_400, HTTP 400)\nhint: ${cut}\n`,
      prompts: [],
    });
    // store api prints no part of a body as if it were all of it (a `| jq` read broken JSON).
    expect(await run(['api', '/pets/9'], { env: envFor(server.url) })).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: the server answered not found (http_404, HTTP 404)\nhint: ${cut}\n`,
      prompts: [],
    });
    expect(server.seen.map((r) => r.method)).toEqual(['GET', 'POST', 'GET']);
  });

  it('a POST answered 504 or 502 by a gateway: the server behind it may have acted', async () => {
    const server = await faultServer((_req, res, n) => reply(res, n === 1 ? 504 : 502, ''));
    const note =
      'the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)';
    expect((await run(ADD, { env: envFor(server.url) })).stderr).toBe(
      `error: the server answered gateway timeout (http_504, HTTP 504)\nhint: ${note}\n`,
    );
    expect((await run(ADD, { env: envFor(server.url) })).stderr).toBe(
      `error: the server answered bad gateway (http_502, HTTP 502)\nhint: ${note}\n`,
    );
  });

  it('store api -X POST/PATCH answered 502 or 504 says the server may have acted', async () => {
    const server = await faultServer((_req, res, n) =>
      reply(res, n === 1 ? 502 : 504, '{"code":"bad_gateway","message":"upstream timed out"}'),
    );
    const env = envFor(server.url);
    expect(await run(['api', '-X', 'POST', '/pets', '-f', 'name=Rex'], { env })).toEqual({
      code: 7,
      stdout: '{"code":"bad_gateway","message":"upstream timed out"}\n',
      stderr:
        'error: the server answered bad gateway (http_502, HTTP 502)\nhint: the server may have acted on the POST\n',
      prompts: [],
    });
    expect((await run(['api', '-X', 'PATCH', '/pets/1', '-f', 'name=Rex'], { env })).stderr).toBe(
      'error: the server answered gateway timeout (http_504, HTTP 504)\nhint: the server may have acted on the PATCH\n',
    );
    expect(server.seen.map((r) => r.method)).toEqual(['POST', 'PATCH']);
  });

  it('a POST answered 303 See Other may have been acted on; a 307 was not', async () => {
    const server = await faultServer((_req, res, n) =>
      reply(res, n === 1 ? 303 : 307, '', { location: '/v1/pets/42' }),
    );
    const note =
      'the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)';
    expect((await run(ADD, { env: envFor(server.url) })).stderr).toBe(
      `error: the server answered with a redirect (HTTP 303 to /v1/pets/42); redirects are not followed\nhint: ${note}\n`,
    );
    expect((await run(ADD, { env: envFor(server.url) })).stderr).toBe(
      'error: the server answered with a redirect (HTTP 307 to /v1/pets/42); redirects are not followed\n',
    );
  });

  it('messages send and store api -X POST after a timeout; not a GET, nor a POST refused outright', async () => {
    const silent = await faultServer(() => {}); // never answers
    const host = silent.origin.slice(7);
    const env = envFor(silent.url, { STORE_TIMEOUT: '0.3' });
    expect((await run(['messages', 'send', 'hi'], { env })).stderr).toBe(
      `error: request to ${host} timed out after 0.3s\nhint: the message may have been sent\n`,
    );
    expect((await run(['api', '-X', 'POST', '/pets'], { env })).stderr).toBe(
      `error: request to ${host} timed out after 0.3s\nhint: the server may have acted on the POST\n`,
    );
    expect((await run(['api', '/pets'], { env })).stderr).toBe(
      `error: request to ${host} timed out after 0.3s\n`,
    );
    const port = await closedPort();
    const refused = await run(ADD, { env: envFor(`http://127.0.0.1:${port}/v1`) });
    expect(refused.stderr).toBe(
      `error: cannot reach 127.0.0.1:${port}: connection refused (after 3 attempts)\n`,
    );
  });
});

describe('pets add --file when the server goes away', () => {
  it('resumes with the --json fields the run was given', async () => {
    const port = await closedPort();
    const result = await run(
      ['pets', 'add', '--file', '-', '--json', 'id,name', '--concurrency', '1'],
      {
        env: envFor(`http://127.0.0.1:${port}/v1`),
        stdin: '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n',
      },
    );
    expect(result.code).toBe(6);
    expect(result.stderr.split('\n').at(-2)).toBe(
      '{"summary":{"created":0,"failed":1,"uncertain":0,"notSent":1,"hint":"resume with: store pets add --file - --json id,name --concurrency 1 --skip 1"}}',
    );
  });

  it('reports the rest as not sent once the server cannot be reached, instead of retrying each', async () => {
    const port = await closedPort();
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
      env: envFor(`http://127.0.0.1:${port}/v1`),
      stdin: '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n{"name":"C"}\n',
    });
    const refused = `cannot reach 127.0.0.1:${port}: connection refused (after 3 attempts)`;
    expect(result).toEqual({
      code: 6,
      stdout:
        `{"input":1,"line":1,"error":{"code":"network_error","message":"${refused}","status":null}}\n` +
        `{"input":2,"error":{"code":"not_sent","message":"input 1 failed: ${refused}","status":null}}\n` +
        '{"input":3,"line":3,"error":{"code":"invalid_input","message":"categoryId is required","status":null}}\n',
      stderr:
        `{"error":{"code":"not_sent","message":"input 2 not sent: input 1 failed: ${refused}","status":null}}\n` +
        '{"summary":{"created":0,"failed":2,"uncertain":0,"notSent":1,"hint":"resume with: store pets add --file - --json --concurrency 1 --skip 1"}}\n',

      prompts: [],
    });
  });

  it('goes on after a reset: each animal is still tried once', async () => {
    const server = await faultServer((req, res, n) =>
      n === 1 ? req.socket.destroy() : reply(res, 201, `{"id":${n},"name":"B","categoryId":1}`),
    );
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
      env: envFor(server.url),
      stdin: '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n',
    });
    expect(result.code).toBe(6);
    expect(result.stdout.split('\n')[1]).toBe('{"id":2,"name":"B","categoryId":1}');
    expect(server.seen.map((r) => r.body)).toEqual([
      '{"name":"A","categoryId":1}',
      '{"name":"B","categoryId":1}',
    ]);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it.each([
    ['3', 3000],
    [' 0 ', 0],
    ['Sun, 22 Nov 2026 10:00:04 GMT', 4000],
    ['Sun, 22 Nov 2026 09:00:00 GMT', 0],
    ['3600', 10_000],
    ['soon', undefined],
    ['', undefined],
    // Not seconds nor a date: the usual backoff (they were read as dates past: no wait).
    ['1.5', undefined],
    ['-5', undefined],
    ['+3', undefined],
    ['Mon 5', undefined],
    ['Soon 2', undefined],
    // The two obsolete forms of an HTTP-date are dates too.
    ['Sunday, 22-Nov-26 10:00:04 GMT', 4000],
    ['Sun Nov 22 10:00:04 2026', 4000],
  ])('reads %j as %s ms (capped at 10 s)', (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });

  it('is absent without the header', () => {
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it("reads asctime's form, which names no zone, as GMT whatever the machine's zone", () => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York'; // Node applies a change of TZ at once
    try {
      expect(retryAfterMs('Sun Nov 22 10:00:04 2026', now)).toBe(4000);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('bad responses', () => {
  it('reports truncated JSON as exit 1 without retrying', async () => {
    const server = await faultServer((_req, res) => reply(res, 200, '[{"id":1,"na'));
    const result = await run(['pets', 'list'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: the server sent a response that is not JSON (HTTP 200)\n',
      prompts: [],
    });
    expect(server.seen).toHaveLength(1);
  });

  it('takes a status of 600 or more as unexpected (exit 1), not as a 5xx (7), and does not retry it', async () => {
    const server = await faultServer((_req, res) => reply(res, 600, ''));
    expect(await run(['pets', 'list'], { env: envFor(server.url) })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: the server answered unexpected status (http_600, HTTP 600)\n',
      prompts: [],
    });
    expect(server.seen).toHaveLength(1);
  });

  it('does not follow a redirect to another port, which never receives the key', async () => {
    const other = await faultServer((_req, res) => reply(res, 200, PETS));
    const server = await faultServer((_req, res) =>
      reply(res, 307, '', { location: `${other.origin}/v1/pets` }),
    );
    const result = await run(['pets', 'list'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: the server answered with a redirect (HTTP 307 to ${other.origin}/v1/pets); redirects are not followed\n`,
      prompts: [],
    });
    expect(server.seen).toHaveLength(1);
    expect(other.seen).toEqual([]);
  });

  it('warns on Deprecation and Sunset headers and still succeeds', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 200, PET, { deprecation: '@1767225600', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' }),
    );
    const result = await run(['pets', 'get', '1', '--json'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 0,
      stdout: `${PET}\n`,
      stderr:
        "warning: 'store pets get' is deprecated and will be removed on 2030-12-05; use 'store pets list --status <status>' instead\n",
      prompts: [],
    });
  });

  it("adds the API's warning to pets get's own only when it names another date", async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 200, PET, { deprecation: '@1767225600', sunset: 'Sat, 01 Jun 2030 00:00:00 GMT' }),
    );
    const result = await run(['pets', 'get', '1', '--json'], { env: envFor(server.url) });
    expect(result.stderr).toBe(
      "warning: 'store pets get' is deprecated and will be removed on 2030-12-05; use 'store pets list --status <status>' instead\n" +
        'warning: the API marks GET /pets/1 as deprecated; it will be removed on 2030-06-01\n',
    );
  });

  it('silences both deprecation warnings with STORE_NO_DEPRECATION_WARNINGS=1, and only with 1', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 200, PET, { deprecation: '@1767225600', sunset: 'Sat, 01 Jun 2030 00:00:00 GMT' }),
    );
    const env = envFor(server.url, { STORE_NO_DEPRECATION_WARNINGS: '1' });
    const result = await run(['pets', 'get', '1', '--json'], { env });
    expect(result).toEqual({ code: 0, stdout: `${PET}\n`, stderr: '', prompts: [] });
    const zero = envFor(server.url, { STORE_NO_DEPRECATION_WARNINGS: '0' });
    const warned = await run(['pets', 'get', '1', '--json'], { env: zero });
    expect(warned.stderr).toBe(
      "warning: 'store pets get' is deprecated and will be removed on 2030-12-05; use 'store pets list --status <status>' instead\n" +
        'warning: the API marks GET /pets/1 as deprecated; it will be removed on 2030-06-01\n',
    );
  });

  it("adds no line of the API's to pets get's own for a Deprecation without a Sunset", async () => {
    const server = await faultServer((_req, res) => reply(res, 200, PET, { deprecation: 'true' }));
    const result = await run(['pets', 'get', '1', '--json'], { env: envFor(server.url) });
    expect(result.stderr).toBe(
      "warning: 'store pets get' is deprecated and will be removed on 2030-12-05; use 'store pets list --status <status>' instead\n",
    );
  });

  it('prints the answer with its keys in the order the server sent them', async () => {
    const reordered = '{"name":"Rex","status":"sold","id":1,"categoryId":1}';
    const server = await faultServer((_req, res) => reply(res, 200, reordered));
    const result = await run(['pets', 'get', '1', '--json'], {
      env: envFor(server.url, { STORE_NO_DEPRECATION_WARNINGS: '1' }),
    });
    expect(result).toEqual({ code: 0, stdout: `${reordered}\n`, stderr: '', prompts: [] });
  });

  it('takes a Sunset that is not an HTTP-date for none: nothing of it is shown', async () => {
    // It named the value as sent: "it will be removed on next year".
    const server = await faultServer((_req, res) => reply(res, 200, PETS, { sunset: 'next year' }));
    const result = await run(['pets', 'list'], { env: envFor(server.url) });
    expect(result.stderr).toBe('');
  });
});

describe('a huge Error message', () => {
  it('is cut to one readable line, saying how much was left out', async () => {
    const message = 'x'.repeat(20 * 1024 * 1024);
    const server = await faultServer((_req, res) =>
      reply(res, 400, JSON.stringify({ code: 'bad', message, status: 400 })),
    );
    const result = await run(['pets', 'list'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: ${'x'.repeat(1000)}… (${20 * 1024 * 1024 - 1000} more characters) (bad, HTTP 400)\n`,
      prompts: [],
    });
  });

  it('is cut before an emoji that the cut would split, never in its middle', async () => {
    // Half of the emoji's surrogate pair was kept: U+FFFD on a terminal.
    const message = `${'x'.repeat(999)}${'🐶'.repeat(10)}`;
    const server = await faultServer((_req, res) =>
      reply(res, 400, JSON.stringify({ code: 'bad', message, status: 400 })),
    );
    const result = await run(['pets', 'list'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: ${'x'.repeat(999)}… (20 more characters) (bad, HTTP 400)\n`,
      prompts: [],
    });
  });

  it('is cut in bulk add’s lines for people, the not-sent line too', async () => {
    const message = 'm'.repeat(1500);
    const server = await faultServer((_req, res) =>
      reply(res, 401, JSON.stringify({ code: 'unauthorized', message, status: 401 })),
    );
    const result = await run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
      env: envFor(server.url),
      stdin: '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n',
    });
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        `error: input 1 (line 1): ${'m'.repeat(1000)}… (500 more characters) (unauthorized, HTTP 401)\n` +
        'hint: the key came from STORE_API_KEY\n' +
        `error: input 2 not sent: input 1 failed: ${'m'.repeat(966)}… (534 more characters)\n` +
        '0 created, 1 failed (input 1), 0 uncertain, 1 not sent (input 2)\n' +
        'hint: resume with: store pets add --file - --concurrency 1 --skip 1\n',
      prompts: [],
    });
  });

  it('is kept whole under --json, as the server sent it: in the error line and in bulk add’s lines', async () => {
    // It was cut at 1,000 characters with store's "… (503 more characters)" appended: the
    // message was no longer the server's.
    const message = `${'m'.repeat(1400)}${'🐶'.repeat(50)}end`;
    const code = 'c'.repeat(1200);
    const body = JSON.stringify({ code, message, status: 400 });
    const server = await faultServer((_req, res) => reply(res, 400, body));
    const error = `{"code":"${code}","message":"${message}","status":400}`;
    expect(await run(['pets', 'list', '--json'], { env: envFor(server.url) })).toEqual({
      code: 3,
      stdout: '',
      stderr: `{"error":${error}}\n`,
      prompts: [],
    });
    const bulk = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
      env: envFor(server.url),
      stdin: '{"name":"A","categoryId":1}\n',
    });
    expect(bulk).toEqual({
      code: 3,
      stdout: `{"input":1,"line":1,"error":${error}}\n`,
      stderr: '{"summary":{"created":0,"failed":1,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
    // For people, each is cut.
    const text = await run(['pets', 'list'], { env: envFor(server.url) });
    expect(text.stderr).toBe(
      `error: ${'m'.repeat(1000)}… (503 more characters) (${'c'.repeat(1000)}… (200 more characters), HTTP 400)\n`,
    );
  });
});

describe('retries on a terminal', () => {
  it('shows one dim line per retry on a terminal, none in a pipe', async () => {
    const server = await faultServer((_req, res, n) =>
      n % 3 === 0 ? reply(res, 200, PETS) : reply(res, 503, ''),
    );
    const tty = await run(['pets', 'list', '--json'], {
      env: envFor(server.url, { NO_COLOR: '1' }),
      tty: { stderr: true },
    });
    expect(tty.stderr).toBe(
      `Using profile production (${server.url}, from STORE_BASE_URL)\n` +
        'HTTP 503; retrying in 0.2 s (attempt 2 of 3)\n' +
        'HTTP 503; retrying in 0.4 s (attempt 3 of 3)\n',
    );
    const piped = await run(['pets', 'list', '--json'], { env: envFor(server.url) });
    expect(piped).toEqual({ code: 0, stdout: `${PETS}\n`, stderr: '', prompts: [] });
  });
});
