import { existsSync, readFileSync, statSync } from 'node:fs';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import {
  closedPort,
  readConfig,
  run,
  configSetup as setup,
  testIO,
  writeConfigFile,
} from '../helpers/cli.js';
import { API, api, KEY, STAGING, unexpected } from '../helpers/http.js';

const NEW_KEY = 'new-key-0123456789';
const PET_PAGE = '[{"id":1,"name":"Rex","categoryId":2,"status":"available"}]';

describe('store auth login', () => {
  it('reads the key from stdin, checks it with one GET /pets?limit=1 and saves it (0600 in a 0700 folder)', async () => {
    const { dir, env, file } = setup({ STORE_API_KEY: KEY }, true);
    expect(existsSync(dir)).toBe(false);
    const scope = api(API, NEW_KEY).get('/v1/pets').query({ limit: '1' }).reply(200, PET_PAGE);
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: `${NEW_KEY}\n` });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      // STORE_API_KEY is set in this test: the login says it still wins.
      stderr:
        'Logged in to profile production with key ****6789\n' +
        'note: STORE_API_KEY is set, and wins over the stored key while it is\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: { production: { apiKey: NEW_KEY } } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('keeps the other settings of the profile and of the config when it saves the key', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({
        currentProfile: 'eu',
        profiles: {
          eu: { baseUrl: 'https://eu.example.org/v1', apiKey: 'old-key-99998888' },
          production: { apiKey: 'prod-key-12345678' },
        },
      }),
    );
    const scope = api('https://eu.example.org', NEW_KEY)
      .get('/v1/pets')
      .query({ limit: '1' })
      .reply(200, '[]');
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: NEW_KEY });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile eu with key ****6789\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({
      currentProfile: 'eu',
      profiles: {
        eu: { baseUrl: 'https://eu.example.org/v1', apiKey: NEW_KEY },
        production: { apiKey: 'prod-key-12345678' },
      },
    });
  });

  it.each([
    [401, 'unauthorized'],
    [403, 'forbidden'],
  ])('exits 4 and saves nothing when the API answers %i', async (status, code) => {
    const { env, file } = setup();
    const scope = api(API, NEW_KEY)
      .get('/v1/pets')
      .query({ limit: '1' })
      .reply(status, { code, message: 'bad key', status });
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: `${NEW_KEY}\n` });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr: `error: the API rejected the key (HTTP ${status}); nothing was saved\n`,
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('leaves an existing config byte for byte as it was when the key is rejected', async () => {
    const { env, file } = setup();
    const before = '{"profiles":{"production":{"apiKey":"old-key-99998888"}}}';
    writeConfigFile(file, before);
    api(API, NEW_KEY)
      .get('/v1/pets')
      .query({ limit: '1' })
      .reply(401, { code: 'unauthorized', message: 'bad key', status: 401 });
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: NEW_KEY });
    expect(result.code).toBe(4);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('exits 6 and saves nothing when the API cannot be reached', async () => {
    const port = await closedPort();
    const { env, file } = setup({ STORE_BASE_URL: `http://127.0.0.1:${port}/v1` });
    nock.enableNetConnect('127.0.0.1');
    try {
      const result = await run(['auth', 'login', '--with-key'], { env, stdin: `${NEW_KEY}\n` });
      expect(result).toEqual({
        code: 6,
        stdout: '',
        stderr: `error: cannot reach 127.0.0.1:${port}: connection refused (after 3 attempts); nothing was saved (--no-verify saves the key without checking)\n`,
        prompts: [],
      });
      expect(existsSync(file)).toBe(false);
    } finally {
      nock.disableNetConnect();
      // The attempts went to a real (closed) port on purpose; how many is not this test's business.
      unexpected.length = 0;
    }
  });

  it('saves without any request under --no-verify', async () => {
    const { env, file } = setup();
    const result = await run(['auth', 'login', '--with-key', '--no-verify'], {
      env,
      stdin: `${NEW_KEY}\n`,
    });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile production with key ****6789\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: { production: { apiKey: NEW_KEY } } });
    expect(unexpected).toEqual([]);
  });

  it.each([
    ['empty', '', 'the key is empty; nothing was saved'],
    ['only a newline', '\n', 'the key is empty; nothing was saved'],
    ['with a space', 'abc def-12345678\n', 'the key contains white space; nothing was saved'],
    ['with a tab', 'abc\tdef-12345678\n', 'the key contains white space; nothing was saved'],
  ])(
    'refuses a key that is %s with exit 2, sends and saves nothing',
    async (_what, stdin, message) => {
      const { env, file } = setup();
      const result = await run(['auth', 'login', '--with-key'], { env, stdin });
      expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
      expect(existsSync(file)).toBe(false);
      expect(unexpected).toEqual([]);
    },
  );

  it('never waits for stdin without --with-key when stdin is not a terminal', async () => {
    const { env, file } = setup();
    const { io, out, err, prompts } = testIO({ stdin: `${NEW_KEY}\n` }, env);
    const code = await main(['auth', 'login'], { io, env, signal: new AbortController().signal });
    expect({ code, stdout: out.text, stderr: err.text, prompts }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: stdin is not a terminal: pipe the key with `store auth login --with-key`\n',
      prompts: [],
    });
    // stdin was never read.
    expect(io.stdin.readableFlowing).toBe(null);
    expect(io.stdin.readableEnded).toBe(false);
    expect(existsSync(file)).toBe(false);
    expect(unexpected).toEqual([]);
  });

  it('prompts for the key on a terminal, checks it and saves it', async () => {
    const { env, file } = setup();
    const scope = api(API, NEW_KEY).get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const result = await run(['auth', 'login'], { env, tty: true, typed: NEW_KEY });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile production with key ****6789\n',
      prompts: ['API key for profile production: '],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: { production: { apiKey: NEW_KEY } } });
  });

  it('refuses an empty answer at the prompt with exit 2', async () => {
    const { env, file } = setup();
    const result = await run(['auth', 'login'], { env, tty: true, typed: '' });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: the key is empty; nothing was saved\n',
      prompts: ['API key for profile production: '],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('saves under --profile staging after checking the key against the staging URL', async () => {
    const { env, file } = setup();
    const scope = api(STAGING, NEW_KEY).get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const result = await run(['--profile', 'staging', 'auth', 'login', '--with-key'], {
      env,
      stdin: `${NEW_KEY}\n`,
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile staging with key ****6789\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: { staging: { apiKey: NEW_KEY } } });
  });

  it('refuses to check the key over plain http to a host that is not loopback: exit 2, nothing sent or saved', async () => {
    const { env, file } = setup({ STORE_BASE_URL: 'http://pets.example.com/v1' });
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: `${NEW_KEY}\n` });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: refusing to send the API key over plain HTTP to pets.example.com; use an https:// URL (plain http is allowed for loopback hosts only)\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
    expect(unexpected).toEqual([]);
  });

  it('exits 2 for an unknown profile before reading or saving anything', async () => {
    const { env, file } = setup();
    const result = await run(['-p', 'nope', 'auth', 'login', '--with-key'], {
      env,
      stdin: `${NEW_KEY}\n`,
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: unknown profile "nope"; see `store profile list`, or create it with `store profile set nope --base-url <url>`\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('has no flag that takes the key as an argument', async () => {
    const { env, file } = setup();
    const result = await run(['auth', 'login', '--key', NEW_KEY], { env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: unknown option '--key'\n",
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });
});

describe('store auth logout', () => {
  it('forgets the stored key and keeps everything else', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({
        currentProfile: 'eu',
        profiles: {
          eu: { baseUrl: 'https://eu.example.org/v1', apiKey: 'eu-key-12345678' },
          production: { apiKey: 'prod-key-12345678' },
        },
      }),
    );
    const result = await run(['auth', 'logout'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged out of profile eu\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({
      currentProfile: 'eu',
      profiles: {
        eu: { baseUrl: 'https://eu.example.org/v1' },
        production: { apiKey: 'prod-key-12345678' },
      },
    });
  });

  it('forgets the key of the profile given with -p', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({ profiles: { staging: { apiKey: 'stg-key-12345678' } } }),
    );
    const result = await run(['-p', 'staging', 'auth', 'logout'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged out of profile staging\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: {} });
  });

  it('exits 0 and says so when no key is stored', async () => {
    const { env, file } = setup();
    const result = await run(['auth', 'logout'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No key was stored for profile production\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });
});

describe('store auth status', () => {
  const storedKey = (file: string, key = KEY) =>
    writeConfigFile(file, JSON.stringify({ profiles: { production: { apiKey: key } } }));

  it('checks a stored key with one GET /pets?limit=1 and prints tab-separated rows', async () => {
    const { env, file } = setup();
    storedKey(file);
    const scope = api().get('/v1/pets').query({ limit: '1' }).reply(200, PET_PAGE);
    const result = await run(['auth', 'status'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout:
        'PROFILE\tBASE URL\tURL FROM\tKEY FROM\tKEY\nproduction\thttps://api.animal-store.example/v1\tprofile\tconfig\t****wxyz\n',
      stderr: '',
      prompts: [],
    });
  });

  it('prints one JSON object with --json, the key masked', async () => {
    const { env, file } = setup();
    storedKey(file);
    api().get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const result = await run(['auth', 'status', '--json'], { env });
    expect(result).toEqual({
      code: 0,
      stdout:
        '{"profile":"production","baseUrl":"https://api.animal-store.example/v1","baseUrlSource":"profile","keySource":"config","key":"****wxyz","valid":true}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('reports env as the source of STORE_API_KEY, which wins over the stored key', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    storedKey(file, 'stored-key-00001111');
    api().get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const result = await run(['auth', 'status', '--json'], { env });
    expect(result).toEqual({
      code: 0,
      stdout:
        '{"profile":"production","baseUrl":"https://api.animal-store.example/v1","baseUrlSource":"profile","keySource":"env","key":"****wxyz","valid":true}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('reports the built-in key of the sandbox profile as default, masked without its tail', async () => {
    const { env } = setup();
    const scope = api('http://127.0.0.1:4010', 'sandbox')
      .get('/v1/pets')
      .query({ limit: '1' })
      .reply(200, '[]');
    const result = await run(['-p', 'sandbox', 'auth', 'status', '--json'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout:
        '{"profile":"sandbox","baseUrl":"http://127.0.0.1:4010/v1","baseUrlSource":"profile","keySource":"config","key":"****","valid":true}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('exits 4 with stdout empty and sends nothing when there is no key', async () => {
    const { env } = setup();
    const result = await run(['auth', 'status'], { env });
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'profile  production\n' +
        'base URL https://api.animal-store.example/v1 (from profile)\n' +
        'key      none\n' +
        'error: no API key for profile production: run `store auth login` or set STORE_API_KEY\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it.each([
    [
      [],
      '',
      'profile  production\n' +
        'base URL https://api.animal-store.example/v1 (from profile)\n' +
        'key      ****wxyz (from config)\n' +
        'error: the API rejected the key ****wxyz from config (HTTP 401); to store a new key for profile production, run `store auth login`\n',
    ],
    [
      ['--json'],
      '{"profile":"production","baseUrl":"https://api.animal-store.example/v1","baseUrlSource":"profile","keySource":"config","key":"****wxyz","valid":false}\n',
      '{"error":{"code":"unauthenticated","message":"the API rejected the key ****wxyz from config (HTTP 401); to store a new key for profile production, run `store auth login`","status":401}}\n',
    ],
    [['--debug'], '', undefined],
  ])(
    'exits 4 when the key is rejected %j, and never shows the key',
    async (flags, stdout, stderr) => {
      const { env, file } = setup();
      storedKey(file);
      const scope = api()
        .get('/v1/pets')
        .query({ limit: '1' })
        .reply(401, { code: 'unauthorized', message: `key ${KEY} is not valid`, status: 401 });
      const result = await run(['auth', 'status', ...flags], { env });
      expect(scope.isDone()).toBe(true);
      expect(result.code).toBe(4);
      expect(result.stdout).toBe(stdout);
      if (stderr !== undefined) expect(result.stderr).toBe(stderr);
      else expect(result.stderr).toContain('> authorization: Bearer ****wxyz\n');
      expect(result.stdout + result.stderr).not.toContain(KEY);
      expect(result.stdout + result.stderr).not.toContain(KEY.slice(0, 8));
    },
  );
});

describe('store auth token', () => {
  it('prints the key from STORE_API_KEY', async () => {
    const { env } = setup({ STORE_API_KEY: KEY });
    expect(await run(['auth', 'token'], { env })).toEqual({
      code: 0,
      stdout: `${KEY}\n`,
      stderr: '',
      prompts: [],
    });
  });

  it('prints the stored key of the profile in use', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({
        profiles: { production: { apiKey: 'prod-key-12345678' }, staging: { apiKey: KEY } },
      }),
    );
    expect(await run(['auth', 'token'], { env })).toEqual({
      code: 0,
      stdout: 'prod-key-12345678\n',
      stderr: '',
      prompts: [],
    });
    expect(await run(['auth', 'token', '-p', 'staging'], { env })).toEqual({
      code: 0,
      stdout: `${KEY}\n`,
      stderr: '',
      prompts: [],
    });
  });

  it('exits 4 when there is no key', async () => {
    const { env } = setup();
    expect(await run(['auth', 'token'], { env })).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'error: no API key for profile production: run `store auth login` or set STORE_API_KEY\n',
      prompts: [],
    });
  });
});
