import { describe, expect, it } from 'vitest';
import { baseEnv, configSetup, run, writeConfigFile } from '../../helpers/cli.js';
import { API, api, KEY } from '../../helpers/http.js';

describe('store messages send / store api: writes name their profile on a terminal', () => {
  const env = () => baseEnv({ STORE_API_KEY: KEY, NO_COLOR: '1' });
  const LINE = 'Using profile production (https://api.animal-store.example/v1)\n';

  it('messages send names production', async () => {
    api().post('/v1/messages', { message: 'hi' }).reply(201, {
      id: 'm-1',
      message: 'hi',
      status: 'queued',
      createdAt: '2030-01-01T00:00:00Z',
    });
    const result = await run(['messages', 'send', 'hi', '--json'], { env: env(), tty: true });
    expect(result).toMatchObject({ code: 0, stderr: LINE });
  });

  it('draws the message on a narrow terminal with its id whole (the ID column is never cut)', async () => {
    const id = 'msg_21314ed9163c4b8f';
    api().post('/v1/messages', { message: 'hello' }).reply(201, {
      id,
      message: 'hello',
      status: 'queued',
      createdAt: '2026-11-24T09:00:00.000Z',
    });
    const result = await run(['messages', 'send', 'hello'], { env: env(), tty: true, columns: 40 });
    expect(result.stdout).toBe(
      `ID                    STATUS  CREATED AT\n${id}  queued  2026-11-2…\n`,
    );
  });

  it('names the messages URL a message goes to when it is not the base URL', async () => {
    // It named the base URL, while the message went to the other host.
    const { env: split, file } = configSetup({ STORE_API_KEY: KEY, NO_COLOR: '1' });
    writeConfigFile(
      file,
      JSON.stringify({
        profiles: { split: { baseUrl: `${API}/v1`, messagesUrl: 'https://m.example/v1' } },
      }),
    );
    const sent = { id: 'm-1', message: 'hi', status: 'queued', createdAt: '2030-01-01T00:00:00Z' };
    const scope = api('https://m.example').post('/v1/messages').times(2).reply(201, sent);
    const viaProfile = await run(['-p', 'split', 'messages', 'send', 'hi', '--json'], {
      env: split,
      tty: true,
    });
    expect(viaProfile.stderr).toBe('Using profile split (https://m.example/v1)\n');
    const viaEnv = await run(['messages', 'send', 'hi', '--json'], {
      env: { ...env(), STORE_MESSAGES_URL: 'https://m.example/v1' },
      tty: true,
    });
    expect(viaEnv.stderr).toBe(
      'Using profile production (https://m.example/v1, from STORE_MESSAGES_URL)\n',
    );
    expect(scope.isDone()).toBe(true);
    // The same profile's animals: its base URL.
    api().get('/v1/pets').reply(200, '[]');
    const list = await run(['-p', 'split', 'pets', 'list'], { env: split, tty: true });
    expect(list.stderr).toBe(`Using profile split (${API}/v1)\nNo animals found\n`);
  });

  it('names the messages URL for a request on its host, and the deeper of two paths on one host', async () => {
    const { env: split, file } = configSetup({ STORE_API_KEY: KEY, NO_COLOR: '1' });
    writeConfigFile(
      file,
      JSON.stringify({
        profiles: {
          split: { baseUrl: `${API}/v1`, messagesUrl: 'https://m.example/v1' },
          nested: { baseUrl: `${API}/`, messagesUrl: `${API}/msg` },
          // Messages at the host's root, the API under /v1.
          rooted: { baseUrl: `${API}/v1`, messagesUrl: `${API}/` },
        },
      }),
    );
    const scope = api('https://m.example').post('/v2/messages').reply(201, '{}');
    const outside = await run(
      ['-p', 'split', 'api', '-X', 'POST', 'https://m.example/v2/messages', '-f', 'message=hi'],
      { env: split, tty: true },
    );
    expect(outside.stderr).toBe('Using profile split (https://m.example/v1)\n');
    const sent = { id: 'm-1', message: 'hi', status: 'queued', createdAt: '2030-01-01T00:00:00Z' };
    api().post('/msg/messages').reply(201, sent);
    const nested = await run(['-p', 'nested', 'messages', 'send', 'hi', '--json'], {
      env: split,
      tty: true,
    });
    expect(nested.stderr).toBe(`Using profile nested (${API}/msg)\n`);
    api().post('/messages').reply(201, sent);
    const rooted = await run(['-p', 'rooted', 'messages', 'send', 'hi', '--json'], {
      env: split,
      tty: true,
    });
    expect(rooted.stderr).toBe(`Using profile rooted (${API}/)\n`);
    expect(scope.isDone()).toBe(true);
  });

  it('store api with a method that changes data names production; a GET does not', async () => {
    api().delete('/v1/pets/1').reply(204);
    expect(await run(['api', '-X', 'DELETE', '/pets/1'], { env: env(), tty: true })).toEqual({
      code: 0,
      stdout: '',
      stderr: LINE,
      prompts: [],
    });
    api().get('/v1/pets/1').reply(200, '{}', { 'content-type': 'application/json' });
    expect(await run(['api', '/pets/1'], { env: env(), tty: true })).toEqual({
      code: 0,
      stdout: '{}\n',
      stderr: '',
      prompts: [],
    });
  });
});
