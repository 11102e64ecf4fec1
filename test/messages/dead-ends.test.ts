// A hint at every dead end (contract: Third wave: trust): the error says what happened, the
// hint line what to do next.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { baseEnv, configSetup, run, writeConfigFile } from '../helpers/cli.js';

describe('a hint at every dead end', () => {
  it('-p sandbox with no sandbox running says how to start it, once', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010'), {
      code: 'ECONNREFUSED',
    });
    const scope = nock('http://127.0.0.1:4010').get('/v1/pets').times(6).replyWithError(refused);
    const text = await run(['-p', 'sandbox', 'pets', 'list'], { env: baseEnv() });
    const json = await run(['-p', 'sandbox', 'pets', 'list', '--json'], { env: baseEnv() });
    expect(scope.isDone()).toBe(true);
    const hint = 'is the sandbox running? start it with `store sandbox` in another terminal';
    expect(text).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: cannot reach 127.0.0.1:4010: connection refused (after 3 attempts)\nhint: ${hint}\n`,
      prompts: [],
    });
    expect(json).toEqual({
      code: 6,
      stdout: '',
      stderr: `{"error":{"code":"network_error","message":"cannot reach 127.0.0.1:4010: connection refused (after 3 attempts)","status":null,"hint":"${hint}"}}\n`,
      prompts: [],
    });
  });

  it('the sandbox profile set to another host says no word of starting the sandbox', async () => {
    const { env, file } = configSetup();
    writeConfigFile(
      file,
      JSON.stringify({ profiles: { sandbox: { baseUrl: 'https://sandbox.example/v1' } } }),
    );
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND sandbox.example'), {
      code: 'ENOTFOUND',
    });
    const scope = nock('https://sandbox.example').get('/v1/pets').replyWithError(notFound);
    const result = await run(['-p', 'sandbox', 'pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: 'error: cannot reach sandbox.example: host not found\n',
      prompts: [],
    });
  });

  it('another profile refused says no word of the sandbox', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const scope = nock('http://127.0.0.1:4010').get('/v1/pets').times(3).replyWithError(refused);
    const result = await run(['pets', 'list'], {
      env: baseEnv({ STORE_BASE_URL: 'http://127.0.0.1:4010/v1', STORE_API_KEY: 'k-12345678' }),
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: 'error: cannot reach 127.0.0.1:4010: connection refused (after 3 attempts)\n',
      prompts: [],
    });
  });
});

describe('store api', () => {
  it.each([
    ['CR LF', '/pets\r\nX: y'],
    ['LF', '/pets\n'],
    ['tab', '/pe\tts'],
    ['escape', '/pets\x1b[2J'],
    ['DEL', '/pets\x7f'],
    ['C1', '/pets\u0085'],
  ])('refuses a path with %s in it: exit 2, nothing sent', async (_what, path) => {
    const result = await run(['api', path], { env: baseEnv({ STORE_API_KEY: 'k-12345678' }) });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: the path must not contain control characters (CR, LF, tab, escape…)\n',
      prompts: [],
    });
  });

  it('says in its help that fields without -X send a POST, and how to send them with GET', async () => {
    const result = await run(['api', '--help']);
    expect(result.code).toBe(0);
    const help = result.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('without -X, fields send a POST');
    expect(help).toContain('-X GET -f status=sold sends fields as query parameters');
    expect(help).toContain('$ store api -X GET /pets -f status=sold');
  });
});
