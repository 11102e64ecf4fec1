import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { usesNetwork } from '../../src/commands/define.js';
import { baseEnv, run, tempDir } from '../helpers/cli.js';
import { api, KEY } from '../helpers/http.js';
import { programTree } from '../helpers/tree.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });

describe('every command that calls the API', () => {
  const WARNING =
    "warning: 'store pets get' is deprecated and will be removed on 2030-12-05; use 'store pets list --status <status>' instead\n";
  const COMMANDS = [
    ['pets list', ['pets', 'list'], 'get', '/v1/pets'],
    ['pets add', ['pets', 'add', '--name', 'Rex', '--category-id', '1'], 'post', '/v1/pets'],
    ['pets get', ['pets', 'get', '1'], 'get', '/v1/pets/1'],
    ['messages send', ['messages', 'send', 'hi'], 'post', '/v1/messages'],
    ['orders list', ['orders', 'list'], 'get', '/v1/store/orders'],
  ] as const;

  /** The words of every command declared with `network: true`. */
  const networkPaths = (command: Command, prefix: string[] = []): string[] =>
    command.commands.flatMap((sub) => {
      const path = [...prefix, sub.name()];
      return [...(usesNetwork(sub) ? [path.join(' ')] : []), ...networkPaths(sub, path)];
    });

  it('lists every command that calls the API, but those whose 401 says more of its own', () => {
    // Tested in their own files: `api` prints the answer as it came, `auth login` refuses the
    // key it was given, `auth status` reports the key as not valid.
    const ownWords = ['api', 'auth login', 'auth status'];
    expect(networkPaths(programTree()).sort()).toEqual(
      [...COMMANDS.map(([name]) => name), ...ownWords].sort(),
    );
  });

  // The server's message echoes the key: it is masked, as everywhere store shows a key.
  it.each(COMMANDS)(
    '%s maps 401 to exit 4 with the Error body (the key masked), stdout empty',
    async (name, argv, method, path) => {
      const body = { code: 'unauthorized', message: `key ${KEY} revoked`, status: 401 };
      const scope = api()[method](path).times(2).reply(401, body);
      const warning = name === 'pets get' ? WARNING : '';
      expect(await run([...argv], { env: env() })).toEqual({
        code: 4,
        stdout: '',
        stderr: `${warning}error: key ****wxyz revoked (unauthorized, HTTP 401)\nhint: the key came from STORE_API_KEY\n`,
        prompts: [],
      });
      expect(await run([...argv, '--json'], { env: env() })).toEqual({
        code: 4,
        stdout: '',
        stderr: `${warning}{"error":{"code":"unauthorized","message":"key ****wxyz revoked","status":401,"hint":"the key came from STORE_API_KEY"}}\n`,
        prompts: [],
      });
      expect(scope.isDone()).toBe(true);
    },
  );

  it('masks it before a long message, code or --debug body is cut: no part of it is shown', async () => {
    // Cut first, the 1,000-character message ended in 3 of the key's 17 characters, and the
    // code was cut after 10 of them.
    const message = `${'y'.repeat(984)}rejected key ${KEY}`;
    const code = `${'c'.repeat(990)}${KEY}`;
    const scope = api().get('/v1/pets').reply(401, { code, message, status: 401 });
    const result = await run(['pets', 'list', '--json'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(4);
    const { error } = JSON.parse(result.stderr);
    // Whole under --json, masked.
    expect(error.message).toBe(`${'y'.repeat(984)}rejected key ****wxyz`);
    expect(error.hint).toBe('the key came from STORE_API_KEY');
    expect(error.code).toBe(`${'c'.repeat(990)}****wxyz`);
    // The line for people cuts the masked text.
    api().get('/v1/pets').reply(401, { code, message, status: 401 });
    const text = await run(['pets', 'list'], { env: env() });
    expect(text.stderr).toBe(
      `error: ${'y'.repeat(984)}rejected key ***… (5 more characters) (${'c'.repeat(990)}****wxyz, HTTP 401)\nhint: the key came from STORE_API_KEY\n`,
    );
    // A trace shows the first 4 KiB of a body: the key masked before the cut too.
    const body = `${'a'.repeat(4090)}${KEY}`;
    const traced = api().get('/v1/pets').reply(200, body);
    const debug = await run(['pets', 'list', '--debug'], { env: env() });
    expect(traced.isDone()).toBe(true);
    expect(debug.stderr).toContain(`< ${'a'.repeat(4090)}****wx… (2 more bytes)\n`);
    for (const output of [result.stderr, text.stderr, debug.stderr]) {
      expect(output).not.toContain(KEY.slice(0, 6));
    }
  });

  it('masks it in a redirect’s Location, and in the response headers of a --debug trace', async () => {
    const scope = api()
      .get('/v1/pets')
      .reply(302, '', { location: `https://login.example/?key=${KEY}` })
      .get('/v1/pets')
      .reply(200, '[]', { 'x-seen-key': KEY });
    expect(await run(['pets', 'list'], { env: env() })).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the server answered with a redirect (HTTP 302 to https://login.example/?key=****wxyz); redirects are not followed\n',
      prompts: [],
    });
    const debug = await run(['pets', 'list', '--debug'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(debug.code).toBe(0);
    expect(debug.stderr).toContain('< x-seen-key: ****wxyz\n');
    expect(debug.stderr).not.toContain(KEY.slice(0, 6));
  });

  it('masks a key shorter than 8 characters in the Authorization line of a --debug trace', async () => {
    // Short keys are not looked for in server text; the header store sends is its own.
    const scope = api('https://api.animal-store.example', 'sandbox')
      .get('/v1/pets')
      .reply(200, '[]');
    const debug = await run(['pets', 'list', '--debug'], {
      env: baseEnv({ STORE_API_KEY: 'sandbox' }),
    });
    expect(scope.isDone()).toBe(true);
    expect(debug.code).toBe(0);
    expect(debug.stderr).toContain('> authorization: Bearer ****\n');
    expect(debug.stderr).not.toContain('Bearer sandbox');
  });

  it('masks it in a sent body before --debug cuts it', async () => {
    // A body of the user's holding the key near its 4 KiB mark: the trace cut it, then masked.
    const file = join(tempDir(), 'body.json');
    writeFileSync(file, `"${'a'.repeat(4089)}${KEY}"`);
    const scope = api().post('/v1/pets').reply(201, '{}');
    const result = await run(['api', '/pets', '-X', 'POST', '--input', file, '--debug'], {
      env: env(),
    });
    expect(scope.isDone()).toBe(true);
    expect(result.stderr).toContain(`> "${'a'.repeat(4089)}****wx… (3 more bytes)\n`);
    expect(result.stderr).not.toContain(KEY.slice(0, 6));
  });

  it('pets add --file masks it in the line of each input, and in the stop line', async () => {
    const body = { code: 'unauthorized', message: `key ${KEY} revoked`, status: 401 };
    const scope = api().post('/v1/pets').reply(401, body);
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
      env: env(),
      stdin: '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n',
    });
    expect(scope.isDone()).toBe(true);
    const masked = 'key ****wxyz revoked';
    const hint = '"hint":"the key came from STORE_API_KEY"';
    expect(result).toEqual({
      code: 4,
      stdout:
        `{"input":1,"line":1,"error":{"code":"unauthorized","message":"${masked}","status":401,${hint}}}\n` +
        `{"input":2,"error":{"code":"not_sent","message":"input 1 failed: ${masked}","status":null}}\n`,
      stderr:
        `{"error":{"code":"not_sent","message":"input 2 not sent: input 1 failed: ${masked}","status":null,${hint}}}\n` +
        '{"summary":{"created":0,"failed":1,"uncertain":0,"notSent":1,"hint":"resume with: store pets add --file - --json --concurrency 1 --skip 1"}}\n',
      prompts: [],
    });
  });

  it('store api masks the key in the body it prints too, piped and on a terminal, and in -i headers', async () => {
    // The body went to stdout with the key in full; only the error line was masked.
    const body = `{"code":"unauthorized","message":"key ${KEY} revoked","status":401}`;
    const scope = api()
      .get('/v1/pets')
      .times(3)
      .reply(401, body, { 'content-type': 'application/json', 'x-seen-key': KEY });
    const error =
      'error: key ****wxyz revoked (unauthorized, HTTP 401)\nhint: the key came from STORE_API_KEY\n';
    expect(await run(['api', '/pets', '-i'], { env: env() })).toEqual({
      code: 4,
      stdout:
        'HTTP/1.1 401 Unauthorized\ncontent-type: application/json\nx-seen-key: ****wxyz\n\n' +
        '{"code":"unauthorized","message":"key ****wxyz revoked","status":401}\n',
      stderr: error,
      prompts: [],
    });
    expect(await run(['api', '/pets'], { env: env(), tty: true })).toEqual({
      code: 4,
      stdout:
        '{\n  "code": "unauthorized",\n  "message": "key ****wxyz revoked",\n  "status": 401\n}\n',
      stderr: error,
      prompts: [],
    });
    expect(await run(['api', '/pets', '-i'], { env: env(), tty: true })).toEqual({
      code: 4,
      stdout:
        'HTTP/1.1 401 Unauthorized\ncontent-type: application/json\nx-seen-key: ****wxyz\n\n' +
        '{\n  "code": "unauthorized",\n  "message": "key ****wxyz revoked",\n  "status": 401\n}\n',
      stderr: error,
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
  });

  it('masks a key of exactly 8 characters, and every time it comes', async () => {
    const key = 'k8chars!';
    const body = `{"code":"unauthorized","message":"${key} is not ${key}","status":401}`;
    const scope = api('https://api.animal-store.example', key)
      .get('/v1/pets')
      .reply(401, body, { 'content-type': 'application/json' });
    expect(await run(['api', '/pets'], { env: baseEnv({ STORE_API_KEY: key }) })).toEqual({
      code: 4,
      stdout: '{"code":"unauthorized","message":"**** is not ****","status":401}\n',
      stderr:
        'error: **** is not **** (unauthorized, HTTP 401)\nhint: the key came from STORE_API_KEY\n',
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
  });

  it('a key shorter than 8 characters is not looked for in server text: it is a word of data', async () => {
    // The sandbox's own key is `sandbox`: "sandbox bunny" became "**** bunny".
    const scope = api('https://api.animal-store.example', 'sandbox')
      .get('/v1/pets/sandbox')
      .reply(400, { code: 'invalid_id', message: 'petId: got "sandbox"', status: 400 });
    expect(
      await run(['api', '/pets/sandbox'], { env: baseEnv({ STORE_API_KEY: 'sandbox' }) }),
    ).toEqual({
      code: 3,
      stdout: '{"code":"invalid_id","message":"petId: got \\"sandbox\\"","status":400}\n',
      stderr: 'error: petId: got "sandbox" (invalid_id, HTTP 400)\n',
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
  });
});

describe('answers at the edges (from a mutation audit)', () => {
  it('pets add answered 200 with a body that is no pet: the animal may have been created', async () => {
    // A 2xx of any kind may have acted, 200 as much as 201.
    const scope = api()
      .post('/v1/pets')
      .reply(200, '{"unexpected":true}', { 'content-type': 'application/json' });
    const result = await run(['pets', 'add', '--name', 'Rex', '--category-id', '1'], {
      env: env(),
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the server sent a response of an unexpected shape (HTTP 200)\nhint: run with --debug for details; the animal may have been created: before adding it again, look for it with `store pets list --limit 100` (the service cannot search by name)\n',
      prompts: [],
    });
  });

  it('shows an Error message of exactly 1000 characters whole', async () => {
    const message = 'x'.repeat(1000);
    api().get('/v1/pets').reply(400, { code: 'bad', message, status: 400 });
    const result = await run(['pets', 'list'], { env: env() });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: ${message} (bad, HTTP 400)\n`,
      prompts: [],
    });
  });
});

describe("the service's words stay the service's (contract: Third wave: trust)", () => {
  // A message with what a careless rewrite would touch: quotes, a semicolon, parentheses, a
  // backslash, letters outside ASCII.
  const MESSAGE = 'Ünïcode "quoted" text; (with parens) and a \\ backslash';
  const TABLE = [
    [400, 'invalid_input', 3, 1, undefined],
    [409, 'conflict', 3, 1, undefined],
    [422, 'unprocessable', 3, 1, undefined],
    [401, 'unauthorized', 4, 1, 'the key came from STORE_API_KEY'],
    [403, 'forbidden', 4, 1, 'the key came from STORE_API_KEY'],
    [404, 'not_found', 5, 1, undefined],
    [500, 'internal', 7, 1, undefined],
    [429, 'rate_limited', 7, 3, 'still failing after 3 attempts; try again later'],
    [502, 'bad_gateway', 7, 3, 'still failing after 3 attempts; try again later'],
    [503, 'unavailable', 7, 3, 'still failing after 3 attempts; try again later'],
    [504, 'gateway_timeout', 7, 3, 'still failing after 3 attempts; try again later'],
  ] as const;

  it.each(TABLE)(
    'HTTP %i (%s): exit %i, the Error body’s message byte for byte in text and JSON; hints apart',
    async (status, code, exit, attempts, hint) => {
      const body = { code, message: MESSAGE, status };
      const scope = api()
        .get('/v1/pets')
        .times(attempts * 2)
        .reply(status, body);
      const text = await run(['pets', 'list'], { env: env() });
      const json = await run(['pets', 'list', '--json'], { env: env() });
      expect(scope.isDone()).toBe(true);
      expect(text).toEqual({
        code: exit,
        stdout: '',
        stderr: `error: ${MESSAGE} (${code}, HTTP ${status})\n${hint ? `hint: ${hint}\n` : ''}`,
        prompts: [],
      });
      expect(json.code).toBe(exit);
      expect(json.stdout).toBe('');
      expect(json.stderr.endsWith('\n')).toBe(true);
      expect(json.stderr.split('\n')).toHaveLength(2);
      expect(JSON.parse(json.stderr)).toStrictEqual({
        error: { code, message: MESSAGE, status, ...(hint ? { hint } : {}) },
      });
    },
  );

  it('no key: the error says so, and how to log in is the hint (field under --json)', async () => {
    const text = await run(['-p', 'staging', 'pets', 'list'], { env: baseEnv() });
    const json = await run(['-p', 'staging', 'pets', 'list', '--json'], { env: baseEnv() });
    const hint = 'run `store -p staging auth login` or set STORE_API_KEY';
    expect(text).toEqual({
      code: 4,
      stdout: '',
      stderr: `error: no API key for profile staging\nhint: ${hint}\n`,
      prompts: [],
    });
    expect(json).toEqual({
      code: 4,
      stdout: '',
      stderr: `{"error":{"code":"unauthenticated","message":"no API key for profile staging","status":null,"hint":"${hint}"}}\n`,
      prompts: [],
    });
  });
});
