// Which environment a read uses, and what its hints say.
import { describe, expect, it } from 'vitest';
import { baseEnv, run, configSetup as setup, writeConfigFile } from '../../helpers/cli.js';
import { api, KEY, STAGING, unexpected } from '../../helpers/http.js';

const STORED = { profiles: { staging: { apiKey: KEY }, production: { apiKey: KEY } } };

describe('store pets list: the profile in use', () => {
  it.each([
    ['-p', ['-p', 'sandbox2'], {}, 'store -p sandbox2 auth login'],
    ['--profile=', ['--profile=sandbox2'], {}, 'store -p sandbox2 auth login'],
    ['-p=', ['-p=sandbox2'], {}, 'store -p sandbox2 auth login'],
    ['STORE_PROFILE', [], { STORE_PROFILE: 'sandbox2' }, 'store -p sandbox2 auth login'],
    ['the current profile', [], { current: true }, 'store auth login'],
  ])(
    'no key with the profile from %s: the hint names a login command that works as pasted',
    async (_from, flags, extra, login) => {
      const { current, ...vars } = extra as { current?: boolean };
      const { env, file } = setup(vars);
      writeConfigFile(
        file,
        JSON.stringify({
          ...(current ? { currentProfile: 'sandbox2' } : {}),
          profiles: { sandbox2: { baseUrl: 'http://127.0.0.1:4999/v1' } },
        }),
      );
      expect(await run([...flags, 'pets', 'list'], { env })).toEqual({
        code: 4,
        stdout: '',
        stderr: `error: no API key for profile sandbox2: run \`${login}\` or set STORE_API_KEY\n`,
        prompts: [],
      });
      expect(unexpected).toEqual([]);
    },
  );

  it('quotes a hand-written profile name in the login hint so that a shell takes it whole', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({ profiles: { 'my box': { baseUrl: 'https://x.example/v1' } } }),
    );
    expect((await run(['-p', 'my box', 'pets', 'list'], { env })).stderr).toBe(
      "error: no API key for profile my box: run `store -p 'my box' auth login` or set STORE_API_KEY\n",
    );
  });

  it('-p=NAME and --profile=NAME select the profile as -p NAME does', async () => {
    const { env, file } = setup();
    writeConfigFile(file, JSON.stringify(STORED));
    for (const flag of ['-p=staging', '--profile=staging']) {
      const scope = api(STAGING).get('/v1/pets').reply(200, []);
      expect(await run(['pets', 'list', flag], { env })).toMatchObject({ code: 0, stderr: '' });
      expect(scope.isDone()).toBe(true);
    }
  });

  it('a key rejected with 401 from the stored config: the hint names the login for that profile', async () => {
    const { env, file } = setup({ STORE_PROFILE: 'staging' });
    writeConfigFile(file, JSON.stringify(STORED));
    api(STAGING)
      .get('/v1/pets')
      .reply(401, { code: 'unauthorized', message: 'key revoked', status: 401 });
    expect(await run(['pets', 'list'], { env })).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'error: key revoked; to store a new key for profile staging, run `store -p staging auth login` (unauthorized, HTTP 401)\n',
      prompts: [],
    });
  });

  it('a key rejected with 403 from STORE_API_KEY: the message says where it came from', async () => {
    api().get('/v1/pets').reply(403, { code: 'forbidden', message: 'read-only key', status: 403 });
    expect(await run(['pets', 'list'], { env: baseEnv({ STORE_API_KEY: KEY }) })).toEqual({
      code: 4,
      stdout: '',
      stderr: 'error: read-only key; the key came from STORE_API_KEY (forbidden, HTTP 403)\n',
      prompts: [],
    });
  });

  it('an unknown profile gets a did-you-mean, naming STORE_PROFILE when it came from there', async () => {
    const { env } = setup({ STORE_PROFILE: 'stagin', STORE_API_KEY: KEY });
    expect(await run(['pets', 'list'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: unknown profile "stagin" (set in STORE_PROFILE; did you mean staging?); see `store profile list`, or create it with `store profile set stagin --base-url <url>`\n',
      prompts: [],
    });
  });

  it('a read on production says nothing about the profile, even on a terminal', async () => {
    api()
      .get('/v1/pets')
      .reply(200, [{ id: 1, name: 'Rex', categoryId: 1 }]);
    const result = await run(['pets', 'list', '--json'], {
      env: baseEnv({ STORE_API_KEY: KEY }),
      tty: true,
    });
    expect(result.stderr).toBe('');
  });

  it('a read on production with STORE_BASE_URL names the profile and the URL source on a terminal', async () => {
    api('http://127.0.0.1:4999').get('/v1/pets').reply(200, '[]');
    const env = baseEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: 'http://127.0.0.1:4999/v1' });
    const result = await run(['--no-color', 'pets', 'list', '--json'], { env, tty: true });
    expect(result.stderr).toBe(
      'Using profile production (http://127.0.0.1:4999/v1, from STORE_BASE_URL)\n',
    );
  });
});
