// `auth status` prints what it knows whatever the verdict, then the verdict as its exit code.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { closedPort, run, configSetup as setup, writeConfigFile } from '../../helpers/cli.js';
import { api, KEY, unexpected } from '../../helpers/http.js';

const PROD = 'https://api.animal-store.example/v1';

describe('store auth status', () => {
  it('with STORE_BASE_URL says the URL comes from the environment, not the profile', async () => {
    const { env } = setup({ STORE_API_KEY: KEY, STORE_BASE_URL: 'http://127.0.0.1:4999/v1' });
    const scope = api('http://127.0.0.1:4999').get('/v1/pets').query({ limit: '1' }).reply(200, []);
    const tsv = await run(['auth', 'status'], { env });
    expect(tsv).toEqual({
      code: 0,
      stdout:
        'PROFILE\tBASE URL\tURL FROM\tKEY FROM\tKEY STORAGE\tKEY\tVALID\nproduction\thttp://127.0.0.1:4999/v1\tenv\tenv\tenv\t****wxyz\tyes\n',
      stderr: '',
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
  });

  it('with STORE_BASE_URL on a terminal names the URL source in the dim line too', async () => {
    const { env } = setup({ STORE_API_KEY: KEY, STORE_BASE_URL: 'http://127.0.0.1:4999/v1' });
    api('http://127.0.0.1:4999').get('/v1/pets').query({ limit: '1' }).reply(200, []);
    const result = await run(['--no-color', 'auth', 'status', '--json'], {
      env,
      tty: { stderr: true },
    });
    expect(result).toEqual({
      code: 0,
      stdout:
        '{"profile":"production","baseUrl":"http://127.0.0.1:4999/v1","baseUrlSource":"env","keySource":"env","keyStorage":"env","key":"****wxyz","valid":true}\n',
      stderr: 'Using profile production (http://127.0.0.1:4999/v1, from STORE_BASE_URL)\n',
      prompts: [],
    });
  });

  it('with no key: prints what it knows (JSON on stdout, valid false), exit 4, nothing sent', async () => {
    const { env } = setup();
    expect(await run(['-p', 'staging', 'auth', 'status', '--json'], { env })).toEqual({
      code: 4,
      stdout:
        '{"profile":"staging","baseUrl":"https://staging.api.animal-store.example/v1","baseUrlSource":"profile","keySource":"none","keyStorage":null,"key":null,"valid":false}\n',
      stderr:
        '{"error":{"code":"unauthenticated","message":"no API key for profile staging","status":null,"hint":"run `store -p staging auth login` or set STORE_API_KEY"}}\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it('with STORE_API_KEY of white space only: no key, exit 4, nothing sent', async () => {
    const { env } = setup({ STORE_API_KEY: ' \t' });
    for (const argv of [
      ['pets', 'list'],
      ['auth', 'token'],
    ]) {
      expect(await run(argv, { env })).toEqual({
        code: 4,
        stdout: '',
        stderr:
          'error: STORE_API_KEY holds only white space, no key\n' +
          'hint: set it to the key, or unset it to use the profile’s\n',
        prompts: [],
      });
    }
    expect(unexpected).toEqual([]);
  });

  it('with a rejected key from STORE_API_KEY: says so, exit 4', async () => {
    const { env } = setup({ STORE_API_KEY: KEY });
    api()
      .get('/v1/pets')
      .query({ limit: '1' })
      .reply(403, { code: 'forbidden', message: 'no', status: 403 });
    expect(await run(['auth', 'status'], { env })).toEqual({
      code: 4,
      stdout: '',
      stderr:
        `profile  production\nbase URL ${PROD} (from profile)\nkey      ****wxyz (from STORE_API_KEY)\n` +
        'error: no (forbidden, HTTP 403)\nhint: the key came from STORE_API_KEY\n',
      prompts: [],
    });
  });

  it.each([
    [[], false],
    [['--json'], true],
  ])(
    'when the API cannot be reached %j: prints what it knows, valid null, exit 6',
    async (flags, json) => {
      const port = await closedPort();
      const url = `http://127.0.0.1:${port}/v1`;
      const { env, file } = setup({ STORE_BASE_URL: url });
      writeConfigFile(file, JSON.stringify({ profiles: { production: { apiKey: KEY } } }));
      nock.enableNetConnect('127.0.0.1');
      try {
        const result = await run(['auth', 'status', ...flags], { env });
        const error = `cannot reach 127.0.0.1:${port}: connection refused (after 3 attempts)`;
        expect(result).toEqual({
          code: 6,
          stdout: json
            ? `{"profile":"production","baseUrl":"${url}","baseUrlSource":"env","keySource":"config","keyStorage":"file","key":"****wxyz","valid":null}\n`
            : '',
          stderr: json
            ? `{"error":{"code":"network_error","message":"${error}","status":null}}\n`
            : `profile  production\nbase URL ${url} (from STORE_BASE_URL)\nkey      ****wxyz (in config.json)\nerror: ${error}\n`,
          prompts: [],
        });
      } finally {
        nock.disableNetConnect();
      }
    },
  );
});
