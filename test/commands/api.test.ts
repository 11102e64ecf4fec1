import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { afterThisTest } from '../helpers/cleanup.js';
import { baseEnv, NO_KEY, run, tempDir } from '../helpers/cli.js';
import { listen } from '../helpers/fault-server.js';
import { API, api, KEY, unexpected } from '../helpers/http.js';

const env = (extra: Record<string, string> = {}) => baseEnv({ STORE_API_KEY: KEY, ...extra });
const BIG = '[{"id":9007199254740993,"name":"Tom","categoryId":3,"tag":{"x":1}}]';
const JSON_TYPE = { 'content-type': 'application/json' };

describe('store api', () => {
  it('GETs a path below the base URL and prints the JSON as sent when piped, int64 exact', async () => {
    const scope = api().get('/v1/pets').query({ limit: '5' }).reply(200, BIG, JSON_TYPE);
    const result = await run(['api', '/pets?limit=5'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: `${BIG}\n`, stderr: '', prompts: [] });
  });

  it('takes a path with a colon in it as a path, not as a URL of scheme "pets"', async () => {
    // It said "refusing to send the API key to null", exit 2.
    const scope = api().get('/v1/pets:search').query({ q: 'rex' }).reply(200, '[]', JSON_TYPE);
    const result = await run(['api', 'pets:search?q=rex'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
  });

  it('rejects an empty --input file name with exit 2, nothing sent', async () => {
    const result = await run(['api', '/pets', '--input', ''], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --input needs a file name (got "")\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it('accepts a path without the leading slash, and indents JSON on a terminal', async () => {
    api().get('/v1/pets/9007199254740993').reply(200, '{"id":9007199254740993}', JSON_TYPE);
    const result = await run(['api', 'pets/9007199254740993'], { env: env(), tty: true });
    expect(result).toEqual({
      code: 0,
      stdout: '{\n  "id": 9007199254740993\n}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('POSTs -f and -F fields as a JSON body: strings, numbers as typed, int64 digit for digit, true, false, null, @file', async () => {
    const dir = tempDir();
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'friendly\n');
    const scope = api()
      .post(
        '/v1/pets',
        '{"name":"Rex","code":"007","categoryId":9007199254740993,"weight":1.50,"height":2e1,"vaccinated":true,"sold":false,"owner":null,"notes":"friendly\\n"}',
      )
      .matchHeader('content-type', 'application/json')
      .reply(201, '{"id":1}', JSON_TYPE);
    const result = await run(
      [
        'api',
        '/pets',
        '-f',
        'name=Rex',
        '-f',
        'code=007',
        '-F',
        'categoryId=9007199254740993',
        '-F',
        'weight=1.50',
        '-F',
        'height=2e1',
        '-F',
        'vaccinated=true',
        '-F',
        'sold=false',
        '-F',
        'owner=null',
        '-F',
        `notes=@${notes}`,
      ],
      { env: env() },
    );
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '{"id":1}\n', stderr: '', prompts: [] });
  });

  it('sends every number as typed: the int64 extremes, one past them, -0, 1e400, 18446744073709551615.0', async () => {
    // One past int64 went as a string while 18446744073709551615.0 went as a number; -0 as 0 and
    // 1e400 as a string. -F is for numbers; -f sends digits as a string.
    const scope = api()
      .post(
        '/v1/pets',
        '{"max":9223372036854775807,"min":-9223372036854775808,"over":9223372036854775808,"u64":18446744073709551615,"u64f":18446744073709551615.0,"zero":-0,"huge":1e400,"tiny":-1E-400,"zip":"007","plus":"+1","dot":"1."}',
      )
      .reply(201, '{}', JSON_TYPE);
    const fields = [
      'max=9223372036854775807',
      'min=-9223372036854775808',
      'over=9223372036854775808',
      'u64=18446744073709551615',
      'u64f=18446744073709551615.0',
      'zero=-0',
      'huge=1e400',
      'tiny=-1E-400',
      'zip=007',
      'plus=+1',
      'dot=1.',
    ];
    const result = await run(['api', '/pets', ...fields.flatMap((f) => ['-F', f])], {
      env: env(),
    });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
  });

  it('reports a 300 as the redirect it is (exit 1), not as a success', async () => {
    const scope = api().get('/v1/pets').reply(300, '', { location: '/v1/pets/1' });
    const result = await run(['api', '/pets'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the server answered with a redirect (HTTP 300 to /v1/pets/1); redirects are not followed\n',
      prompts: [],
    });
  });

  it('sends fields of a HEAD as query parameters too', async () => {
    const scope = api().head('/v1/pets').query({ limit: '5' }).reply(200);
    const result = await run(['api', '-X', 'HEAD', '/pets', '-F', 'limit=5'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
  });

  it('sends fields of a GET as query parameters', async () => {
    const scope = api()
      .get('/v1/pets')
      .query({ status: 'sold', limit: '3', min: '0.50' })
      .reply(200, '[]', JSON_TYPE);
    const result = await run(
      ['api', '-X', 'get', '/pets', '-f', 'status=sold', '-F', 'limit=3', '-F', 'min=0.50'],
      { env: env() },
    );
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
  });

  it('sends -F text that is not a number, true, false or null as a string', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"Rex","categoryId":1,"note":"1.2.3"}')
      .reply(201, '{"id":9}', JSON_TYPE);
    const result = await run(
      ['api', '/pets', '-F', 'name=Rex', '-F', 'categoryId=1', '-F', 'note=1.2.3'],
      { env: env() },
    );
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '{"id":9}\n', stderr: '', prompts: [] });
  });

  it('sends --input with POST when no method is named', async () => {
    const file = join(tempDir(), 'pet.json');
    writeFileSync(file, '{"name":"Rex","categoryId":1}');
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v1/pets', '{"name":"Rex","categoryId":1}')
      .reply(201, '{"id":8}', JSON_TYPE);
    const result = await run(['api', '/pets', '--input', file], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '{"id":8}\n', stderr: '', prompts: [] });
  });

  it('sends --input as the body, as it is, and fields then go in the query string', async () => {
    const file = join(tempDir(), 'pet.json');
    writeFileSync(file, '{"name": "Rex", "categoryId": 9007199254740993}');
    const scope = api()
      .put('/v1/pets/7', '{"name": "Rex", "categoryId": 9007199254740993}')
      .query({ dryRun: 'true' })
      .reply(200, '{"id":7}', JSON_TYPE);
    const result = await run(['api', '-X', 'PUT', 'pets/7', '--input', file, '-F', 'dryRun=true'], {
      env: env(),
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '{"id":7}\n', stderr: '', prompts: [] });
  });

  it('reads --input - from stdin', async () => {
    const scope = api().patch('/v1/pets/7', '{"status":"sold"}').reply(200, '{"id":7}');
    const result = await run(['api', '-X', 'PATCH', '/pets/7', '--input', '-'], {
      env: env(),
      stdin: '{"status":"sold"}',
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '{"id":7}\n', stderr: '', prompts: [] });
  });

  it('sends --input - byte for byte, whatever its encoding', async () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x80, 0x7d]);
    let received: Buffer | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received = Buffer.concat(chunks);
        res.writeHead(204).end();
      });
    });
    const port = await listen(server);
    const result = await run(['api', '-X', 'PUT', '/blob', '--input', '-'], {
      env: env({ STORE_BASE_URL: `http://127.0.0.1:${port}/v1` }),
      stdin: bytes,
    });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '', prompts: [] });
    expect(received).toEqual(bytes);
  });

  it('refuses --input over 32 MiB (stdin or a file) with exit 2, nothing sent', async () => {
    const big = Buffer.alloc(32 * 1024 * 1024 + 1, 'x');
    const fromStdin = await run(['api', '-X', 'PUT', '/blob', '--input', '-'], {
      env: env(),
      stdin: big,
    });
    expect(fromStdin).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: stdin is over 32 MiB; nothing was sent\n',
      prompts: [],
    });
    const file = join(tempDir(), 'big.bin');
    writeFileSync(file, big);
    const fromFile = await run(['api', '-X', 'PUT', '/blob', '--input', file], { env: env() });
    expect(fromFile).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${file} is over 32 MiB; nothing was sent\n`,
      prompts: [],
    });
  });

  it('stops reading --input at 32 MiB, from a FIFO whose writer does not end', async () => {
    // Read whole, the file would be waited on for ever (and /dev/zero held in memory).
    const fifo = join(tempDir(), 'body');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', `{ head -c 34000000 /dev/zero; sleep 60; } > "${fifo}"`], {
      detached: true,
    });
    // The shell and its sleep: a group of their own.
    afterThisTest(() => process.kill(-(writer.pid as number)));
    const result = await run(['api', '-X', 'PUT', '/blob', '--input', fifo], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${fifo} is over 32 MiB; nothing was sent\n`,
      prompts: [],
    });
  });

  it('refuses -F key=@file whose bytes are not UTF-8 text (a JSON string), nothing sent', async () => {
    const file = join(tempDir(), 'name.txt');
    writeFileSync(file, Buffer.from('Caf\xe9', 'latin1'));
    const result = await run(['api', '/pets', '-F', `name=@${file}`], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: -F: ${file} is not UTF-8 text; nothing was sent\n`,
      prompts: [],
    });
  });

  it('prints nothing for an empty reply (204), exit 0', async () => {
    const scope = api().delete('/v1/pets/7').reply(204);
    const result = await run(['api', '-X', 'DELETE', '/pets/7'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '', prompts: [] });
  });

  it('prints nothing for an empty reply (204) on a terminal either, not an empty line', async () => {
    const scope = api().get('/v1/pets').reply(204);
    const result = await run(['api', '/pets'], { env: env(), tty: true });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '', prompts: [] });
  });

  it.each(['DELETE', 'PUT', 'POST'])(
    'sends no body and no Content-Type for %s without fields or --input',
    async (method) => {
      const bodies: string[] = [];
      const scope = nock(API, { badheaders: ['content-type'] })
        .intercept('/v1/pets/7', method, (body) => {
          bodies.push(JSON.stringify(body));
          return true;
        })
        .reply(204);
      const result = await run(['api', '-X', method, '/pets/7'], { env: env() });
      expect(scope.isDone()).toBe(true);
      expect(bodies).toEqual(['""']);
      expect(result).toEqual({ code: 0, stdout: '', stderr: '', prompts: [] });
    },
  );

  it('prints the status line and headers first with -i (HEAD: no body)', async () => {
    api().head('/v1/pets').reply(200, '', { 'x-total': '12' });
    const result = await run(['api', '-X', 'HEAD', '/pets', '-i'], { env: env() });
    expect(result).toEqual({
      code: 0,
      stdout: 'HTTP/1.1 200 OK\nx-total: 12\n\n',
      stderr: '',
      prompts: [],
    });
  });

  it('on a terminal names the profile before a method that may change data, not before a read', async () => {
    const announced = 'Using profile production (https://api.animal-store.example/v1)\n';
    const cases: [string, string][] = [
      ['GET', ''],
      ['HEAD', ''],
      ['OPTIONS', ''],
      ['DELETE', announced],
      ['PUT', announced],
    ];
    for (const [method, stderr] of cases) {
      const scope = api().intercept('/v1/pets/1', method).reply(204);
      expect(
        await run(['api', '-X', method, '/pets/1'], { env: env({ NO_COLOR: '1' }), tty: true }),
      ).toEqual({ code: 0, stdout: '', stderr, prompts: [] });
      expect(scope.isDone()).toBe(true);
    }
  });

  it('names the base URL for a write under neither base path, even when messages go to another', async () => {
    const scope = api().post('/other').reply(204);
    const result = await run(['api', '-X', 'POST', `${API}/other`], {
      env: env({ NO_COLOR: '1', STORE_MESSAGES_URL: `${API}/msg` }),
      tty: true,
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Using profile production (https://api.animal-store.example/v1)\n',
      prompts: [],
    });
  });

  it('prints a status store has no reason phrase for without a trailing space with -i', async () => {
    api().head('/v1/pets').reply(299, '', { 'x-total': '12' });
    const result = await run(['api', '-X', 'HEAD', '/pets', '-i'], { env: env() });
    expect(result).toEqual({
      code: 0,
      stdout: 'HTTP/1.1 299\nx-total: 12\n\n',
      stderr: '',
      prompts: [],
    });
  });

  it('prints a header sent twice on two lines with -i', async () => {
    api()
      .head('/v1/pets')
      .reply(200, '', { 'set-cookie': ['a=1', 'b=2'] });
    const result = await run(['api', '-X', 'HEAD', '/pets', '-i'], { env: env() });
    expect(result).toEqual({
      code: 0,
      stdout: 'HTTP/1.1 200 OK\nset-cookie: a=1\nset-cookie: b=2\n\n',
      stderr: '',
      prompts: [],
    });
  });

  it('adds no second newline to a body that ends with one, piped or on a terminal', async () => {
    const scope = api()
      .get('/v1/pets/1')
      .reply(200, '{"id":1}\n', JSON_TYPE)
      .get('/v1/pets/2')
      .reply(200, 'plain\n', { 'content-type': 'text/plain' });
    const json = await run(['api', '/pets/1'], { env: env() });
    const text = await run(['api', '/pets/2'], { env: env(), tty: true });
    expect(scope.isDone()).toBe(true);
    expect(json).toEqual({ code: 0, stdout: '{"id":1}\n', stderr: '', prompts: [] });
    expect(text).toEqual({ code: 0, stdout: 'plain\n', stderr: '', prompts: [] });
  });

  it.each([
    [400, 'invalid_body', 3],
    [401, 'unauthorized', 4],
    [404, 'pet_not_found', 5],
    [409, 'conflict', 3],
    [500, 'internal', 7],
  ])(
    'prints the body of an HTTP %i to stdout, the error line to stderr, exit %i',
    async (status, code, exit) => {
      const body = `{"code":"${code}","message":"it failed","status":${status}}`;
      api().delete('/v1/pets/1').reply(status, body, JSON_TYPE);
      const result = await run(['api', '-X', 'DELETE', '/pets/1'], { env: env() });
      expect(result).toEqual({
        code: exit,
        stdout: `${body}\n`,
        stderr: `error: it failed (${code}, HTTP ${status})\n${status === 401 ? 'hint: the key came from STORE_API_KEY\n' : ''}`,
        prompts: [],
      });
    },
  );

  it('retries GET, HEAD, PUT and DELETE on 503 (three attempts), POST and PATCH never', async () => {
    for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'POST', 'PATCH']) {
      const attempts = ['POST', 'PATCH'].includes(method) ? 1 : 3;
      const scope = api().intercept('/v1/pets/1', method).times(attempts).reply(503, '', JSON_TYPE);
      const sleeps: number[] = [];
      const result = await run(['api', '-X', method, '/pets/1'], { env: env(), sleeps });
      expect(scope.isDone()).toBe(true);
      // An error after retries says how many attempts were made (the contract's Waiting), on
      // the hint line: the message is the server's.
      const after =
        attempts > 1 ? `hint: still failing after ${attempts} attempts; try again later\n` : '';
      expect(result).toEqual({
        code: 7,
        stdout: '',
        stderr: `error: the server answered service unavailable (http_503, HTTP 503)\n${after}`,
        prompts: [],
      });
      expect(sleeps).toHaveLength(attempts - 1);
    }
  });

  it('retries a POST answered 429, as many times as a GET', async () => {
    const scope = api()
      .post('/v1/messages', '{"message":"hi"}')
      .times(2)
      .reply(429, '', { 'retry-after': '1' })
      .post('/v1/messages', '{"message":"hi"}')
      .reply(201, '{"id":"m1"}', JSON_TYPE);
    const sleeps: number[] = [];
    const result = await run(['api', '/messages', '-f', 'message=hi'], { env: env(), sleeps });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '{"id":"m1"}\n', stderr: '', prompts: [] });
    expect(sleeps).toEqual([1000, 1000]);
  });

  it('accepts a full URL on the profile’s host, and on its messages host', async () => {
    const base = api().get('/v1/store/orders').reply(200, '[]', JSON_TYPE);
    const messages = api('https://msg.animal-store.example')
      .get('/v1/messages/m1')
      .reply(200, '{}', JSON_TYPE);
    const extra = { STORE_MESSAGES_URL: 'https://msg.animal-store.example/v1' };
    const one = await run(['api', 'https://api.animal-store.example/v1/store/orders'], {
      env: env(extra),
    });
    const two = await run(['api', 'https://msg.animal-store.example/v1/messages/m1'], {
      env: env(extra),
    });
    expect(base.isDone() && messages.isDone()).toBe(true);
    expect(one).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
    expect(two).toEqual({ code: 0, stdout: '{}\n', stderr: '', prompts: [] });
  });

  it.each([
    'https://elsewhere.example/v1/pets',
    // The URL parser's other form of the same URL: a full URL too, not a path.
    'https:elsewhere.example/v1/pets',
  ])(
    'refuses a full URL on another host (%s): exit 2, nothing sent, the key stays home',
    async (target) => {
      const result = await run(['api', target], { env: env() });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr:
          "error: refusing to send the API key to https://elsewhere.example: a full URL must be on the profile's host (https://api.animal-store.example); nothing was sent\n",
        prompts: [],
      });
      expect(unexpected).toEqual([]);
    },
  );

  it('refuses plain http to a host that is not loopback: exit 2, nothing sent', async () => {
    const result = await run(['api', '/pets'], {
      env: env({ STORE_BASE_URL: 'http://api.animal-store.example/v1' }),
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: refusing to send the API key over plain HTTP to api.animal-store.example\nhint: use an https:// URL (plain http is allowed for loopback hosts only)\n',
      prompts: [],
    });
  });

  it.each([
    [
      ['-H', 'Authorization: Bearer other'],
      'error: --header cannot set Authorization: store sets it itself\n',
    ],
    [['-H', 'no colon'], `error: --header must be 'Name: value' (got "no colon")\n`],
    [['-f', 'novalue'], 'error: a field must be key=value (got "novalue")\n'],
    [['-f', '=Rex'], 'error: a field must be key=value (got "=Rex")\n'],
    [['-H', 'Host: other.example'], 'error: --header cannot set Host: store sets it itself\n'],
    [
      ['-H', 'content-length: 3'],
      'error: --header cannot set content-length: store sets it itself\n',
    ],
    [
      ['-H', 'Transfer-Encoding: chunked'],
      'error: --header cannot set Transfer-Encoding: store sets it itself\n',
    ],
    [
      ['-H', 'Keep-Alive: timeout=5'],
      "error: --header cannot set Keep-Alive: the connection's headers are the HTTP client's\n",
    ],
    [['-X', 'GET POST'], 'error: --method must be an HTTP method such as GET or PUT\n'],
    [['-X', ''], 'error: --method must be an HTTP method such as GET or PUT\n'],
    [['-H', 'X Trace: 1'], `error: --header must be 'Name: value' (got "X Trace: 1")\n`],
    // These reached undici, which refused them: exit 6 (Expect) or a message blaming a
    // character of the header.
    [
      ['-H', 'Expect: 100-continue'],
      "error: --header cannot set Expect: the connection's headers are the HTTP client's\n",
    ],
    [
      ['-H', 'upgrade: h2c'],
      "error: --header cannot set upgrade: the connection's headers are the HTTP client's\n",
    ],
    ...['X-HTTP-Method-Override', 'x-http-method', 'X-Method-Override'].map((name) => [
      ['-H', `${name}: DELETE`],
      `error: --header cannot set ${name}: a server may read it as the method\nhint: choose the method with -X\n`,
    ]),
    [
      ['-X', 'connect'],
      'error: --method CONNECT opens a tunnel through a proxy; it is not a request store can send\n',
    ],
    [
      ['--input', '/nonexistent/file'],
      'error: cannot read /nonexistent/file: no such file or directory\n',
    ],
  ])('refuses %j with exit 2 and sends nothing', async (flags, stderr) => {
    const result = await run(['api', '/pets', ...flags], { env: env() });
    expect(result).toEqual({ code: 2, stdout: '', stderr, prompts: [] });
    // A wrong flag is found before the key is looked for: exit 2 without a key too, not 4
    // (a file is read later, once there is a key to send it with).
    if (flags[0] === '--input') return;
    const noKey = await run(['api', '/pets', ...flags], { env: baseEnv() });
    expect(noKey).toEqual({ code: 2, stdout: '', stderr, prompts: [] });
  });

  it('refuses an empty path with exit 2, nothing sent (`store api "$UNSET"`)', async () => {
    const result = await run(['api', ''], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: the path must not be empty\n',
      prompts: [],
    });
  });

  it('refuses a full URL on the profile’s host by another scheme: exit 2, nothing sent', async () => {
    // Compared by host alone, http://… of an https:// profile was taken as the profile's own.
    const result = await run(['api', 'http://api.animal-store.example/v1/pets'], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: refusing to send the API key to http://api.animal-store.example: a full URL must be on the profile's host (https://api.animal-store.example); nothing was sent\n",
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it.each([
    ['FILE:///etc/passwd', 'file:'],
    ['mailto://x', 'mailto:'],
  ])(
    'names the scheme of a URL without an origin (%s): exit 2, nothing sent',
    async (url, scheme) => {
      // It said "refusing to send the API key to null".
      const result = await run(['api', url], { env: env() });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: refusing to send the API key to a ${scheme} URL: a full URL must be on the profile's host (https://api.animal-store.example); nothing was sent\n`,
        prompts: [],
      });
      expect(unexpected).toEqual([]);
    },
  );

  it('takes a URL whose scheme is in capitals as a URL, not as a path: exit 2, nothing sent', async () => {
    const result = await run(['api', 'WSS://elsewhere.example/v1/pets'], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: refusing to send the API key to wss://elsewhere.example: a full URL must be on the profile's host (https://api.animal-store.example); nothing was sent\n",
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it.each(['GET', 'HEAD'])(
    'sends the fields of a %s in its query only, with no body',
    async (method) => {
      const bodies: string[] = [];
      const scope = nock(API, { badheaders: ['content-type'] })
        .intercept('/v1/pets', method, (body) => {
          bodies.push(JSON.stringify(body));
          return true;
        })
        .query({ name: 'Rex', limit: '5' })
        .reply(200);
      const result = await run(['api', '-X', method, '/pets', '-f', 'name=Rex', '-F', 'limit=5'], {
        env: env(),
      });
      expect(scope.isDone()).toBe(true);
      expect(bodies).toEqual(['""']);
      expect(result).toEqual({ code: 0, stdout: '', stderr: '', prompts: [] });
    },
  );

  it('trims the space around a header’s name and value', async () => {
    const scope = api()
      .get('/v1/pets')
      .matchHeader('x-request-id', 'abc')
      .reply(200, '[]', JSON_TYPE);
    const result = await run(['api', '/pets', '-H', ' X-Request-Id :  abc  '], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
  });

  it('keeps a path below a base URL that ends in //', async () => {
    const scope = api().get('/v1/pets').reply(200, '[]', JSON_TYPE);
    const result = await run(['api', '/pets'], {
      env: env({ STORE_BASE_URL: 'https://api.animal-store.example/v1//' }),
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
  });

  it('lets -H set Content-Type and Accept in any case, once, over its own', async () => {
    const file = join(tempDir(), 'pet.xml');
    writeFileSync(file, '<pet/>');
    const scope = api()
      .matchHeader('content-type', 'application/xml')
      .matchHeader('accept', 'text/plain')
      .post('/v1/pets', '<pet/>')
      .reply(201, 'ok');
    const result = await run(
      [
        'api',
        '/pets',
        '--input',
        file,
        '-H',
        'CONTENT-type: application/xml',
        '-H',
        'accept: text/plain',
      ],
      { env: env() },
    );
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: 'ok', stderr: '', prompts: [] });
  });

  it('sends extra headers, and prints a body that is not JSON as text (made safe on a terminal)', async () => {
    const scope = api()
      .get('/v1/pets')
      .matchHeader('x-request-id', 'abc 123')
      .times(2)
      .reply(200, 'plain \u001b[31mtext', { 'content-type': 'text/plain' });
    const piped = await run(['api', '/pets', '-H', 'X-Request-Id: abc 123'], { env: env() });
    const tty = await run(['api', '/pets', '-H', 'X-Request-Id: abc 123'], {
      env: env(),
      tty: true,
    });
    expect(scope.isDone()).toBe(true);
    expect(piped).toEqual({ code: 0, stdout: 'plain \u001b[31mtext', stderr: '', prompts: [] });
    // On a terminal the text ends its line (the prompt, or an error line, starts its own).
    expect(tty).toEqual({ code: 0, stdout: 'plain \\x1b[31mtext\n', stderr: '', prompts: [] });
  });

  it('on a terminal, ends an error page that has no final newline before the error line', async () => {
    const scope = api()
      .get('/v1/pets')
      .times(2)
      .reply(400, '<html><body>Bad</body></html>', { 'content-type': 'text/html' });
    expect(await run(['api', '/pets'], { env: env(), tty: true })).toEqual({
      code: 3,
      stdout: '<html><body>Bad</body></html>\n',
      stderr: 'error: the server answered bad request (http_400, HTTP 400)\n',
      prompts: [],
    });
    // Piped: as the server sent it, byte for byte.
    expect((await run(['api', '/pets'], { env: env() })).stdout).toBe(
      '<html><body>Bad</body></html>',
    );
    expect(scope.isDone()).toBe(true);
  });

  it('prints a body that is not UTF-8 byte for byte when piped, JSON whose text is not either', async () => {
    const bytes = Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x80, 0x0a, 0x41]);
    const json = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const scope = api()
      .get('/v1/blob')
      .reply(200, bytes, { 'content-type': 'application/octet-stream' })
      .get('/v1/latin1')
      .reply(200, json, JSON_TYPE);
    const blob = await run(['api', '/blob'], { env: env(), stdoutBytes: true });
    const latin1 = await run(['api', '/latin1'], { env: env(), stdoutBytes: true });
    expect(scope.isDone()).toBe(true);
    expect(blob).toEqual({ code: 0, stdout: bytes.toString('latin1'), stderr: '', prompts: [] });
    expect(latin1.stdout).toBe(`${json.toString('latin1')}\n`);
  });

  it('refuses a relative path that climbs out of the base path: exit 2, nothing sent', async () => {
    for (const [path, reached] of [
      ['../../etc', '/etc'],
      ['%2e%2e/admin', '/admin'],
      // Out of /v1 into a path that begins the same way.
      ['../v1beta/pets', '/v1beta/pets'],
    ]) {
      expect(await run(['api', path as string], { env: env() })).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${JSON.stringify(path)} leads out of the base URL's path /v1; give a full URL to reach ${reached} on that host\n`,
        prompts: [],
      });
    }
    expect(unexpected).toEqual([]);
  });

  it.each([[[]], [['--debug']]])(
    'needs a key like every command: exit 4, nothing sent (%j)',
    async (flags) => {
      // Under --debug too: a usage or API error never comes with a stack trace.
      const result = await run(['api', '/pets', ...flags], { env: baseEnv() });
      expect(result).toEqual(NO_KEY);
    },
  );
});

describe('store api --jq / --json FIELDS on a failed answer', () => {
  const HTML = { 'content-type': 'text/html' };

  it.each([
    [401, 4, 'unauthorized', 'hint: the key came from STORE_API_KEY\n'],
    [404, 5, 'not found', ''],
    [500, 7, 'internal server error', ''],
    [503, 7, 'service unavailable', 'hint: still failing after 3 attempts; try again later\n'],
  ])(
    'an HTML %i prints nothing and exits with its status’s code, not not_json',
    async (status, code, phrase, hint) => {
      // It was exit 1, "--jq and --json FIELDS need a JSON answer": a script could not tell a
      // missing animal from an outage.
      for (const flags of [
        ['--jq', '.name'],
        ['--json', 'id,name'],
      ]) {
        const scope = api()
          .get('/v1/pets/7')
          .times(status === 503 ? 3 : 1)
          .reply(status, '<html><body>Oops</body></html>', HTML);
        const result = await run(['api', '/pets/7', ...flags], { env: env() });
        expect(scope.isDone()).toBe(true);
        expect(result).toEqual({
          code,
          stdout: '',
          stderr: `{"error":{"code":"http_${status}","message":"the server answered ${phrase}","status":${status}${hint ? `,"hint":${JSON.stringify(hint.slice(6, -1))}` : ''}}}\n`,
          prompts: [],
        });
      }
    },
  );

  it('a POST answered by a gateway’s HTML 502 keeps the hint that the server may have acted', async () => {
    // Exit 1 and not_json before: a script would add the animal again, perhaps twice.
    const scope = api()
      .post('/v1/pets', '{"name":"Rex"}')
      .reply(502, '<html><body>Bad Gateway</body></html>', HTML);
    const result = await run(['api', '/pets', '-f', 'name=Rex', '--jq', '.id'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 7,
      stdout: '',
      stderr:
        '{"error":{"code":"http_502","message":"the server answered bad gateway","status":502,"hint":"the server may have acted on the POST"}}\n',
      prompts: [],
    });
  });

  it('an Error body goes through the filter; a filter that fails on it is said in the hint', async () => {
    const body = '{"code":"not_found","message":"no pet 7","status":404}';
    const scope = api().get('/v1/pets/7').times(2).reply(404, body, JSON_TYPE);
    const filtered = await run(['api', '/pets/7', '--jq', '.message'], { env: env() });
    const failed = await run(['api', '/pets/7', '--jq', '.[0]'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(filtered).toEqual({
      code: 5,
      stdout: 'no pet 7\n',
      stderr: '{"error":{"code":"not_found","message":"no pet 7","status":404}}\n',
      prompts: [],
    });
    expect(failed).toEqual({
      code: 5,
      stdout: '',
      stderr:
        '{"error":{"code":"not_found","message":"no pet 7","status":404,"hint":"--jq: Cannot index object with number (0)"}}\n',
      prompts: [],
    });
  });

  it('a successful answer that is not JSON is still refused: exit 1, not_json', async () => {
    const scope = api().get('/v1/pets').reply(200, '<html></html>', HTML);
    const result = await run(['api', '/pets', '--jq', '.'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        '{"error":{"code":"not_json","message":"--jq and --json FIELDS need a JSON answer; this one is not JSON","status":null}}\n',
      prompts: [],
    });
  });
});
