import { describe, expect, it } from 'vitest';
import { readConfig, run, configSetup as setup } from '../../helpers/cli.js';
import { API, api } from '../../helpers/http.js';

const NEW_KEY = 'new-key-0123456789';

describe('store auth login', () => {
  it('prints one JSON object under --json instead of the confirmation line', async () => {
    const { env, file } = setup();
    const scope = api(API, NEW_KEY).get('/v1/pets').query({ limit: '1' }).reply(200, []);
    expect(
      await run(['auth', 'login', '--with-key', '--json'], { env, stdin: `${NEW_KEY}\n` }),
    ).toEqual({
      code: 0,
      stdout: '{"profile":"production","key":"****6789","verified":true}\n',
      stderr: '',
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
    expect(readConfig(file)).toEqual({ profiles: { production: { apiKey: NEW_KEY } } });
  });

  it('under --no-verify --json says the key was not verified', async () => {
    const { env } = setup();
    const result = await run(
      ['-p', 'staging', 'auth', 'login', '--with-key', '--no-verify', '--json'],
      {
        env,
        stdin: NEW_KEY,
      },
    );
    expect(result).toEqual({
      code: 0,
      stdout: '{"profile":"staging","key":"****6789","verified":false}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('says nothing was saved, and --no-verify, when the check gets a 5xx: exit 7', async () => {
    const { env, file } = setup();
    api(API, NEW_KEY).get('/v1/pets').query({ limit: '1' }).times(3).reply(503, '');
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: NEW_KEY });
    expect(result).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'error: the server answered service unavailable (after 3 attempts); nothing was saved (--no-verify saves the key without checking) (http_503, HTTP 503)\n',
      prompts: [],
    });
    expect(() => readConfig(file)).toThrow();
  });
});

describe('store auth logout', () => {
  it('prints one JSON object under --json, saying whether a key was removed', async () => {
    const { env, file } = setup();
    await run(['auth', 'login', '--with-key', '--no-verify'], { env, stdin: NEW_KEY });
    expect(await run(['auth', 'logout', '--json'], { env })).toEqual({
      code: 0,
      stdout: '{"profile":"production","keyRemoved":true}\n',
      stderr: '',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ profiles: {} });
    expect(await run(['auth', 'logout', '--json'], { env })).toEqual({
      code: 0,
      stdout: '{"profile":"production","keyRemoved":false}\n',
      stderr: '',
      prompts: [],
    });
  });
});
