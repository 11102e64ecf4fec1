import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig, run, configSetup as setup, writeConfigFile } from '../helpers/cli.js';
import { API, api, KEY, STAGING, unexpected } from '../helpers/http.js';

const PROD_URL = `${API}/v1`;
const STAGING_URL = `${STAGING}/v1`;
const SANDBOX_URL = 'http://127.0.0.1:4010/v1';
const STORED_KEY = 'stored-secret-key-5678';

function writeConfig(file: string, data: unknown): string {
  const text = JSON.stringify(data);
  writeConfigFile(file, text);
  return text;
}

const BUILTIN_ROWS = [
  { name: 'production', baseUrl: PROD_URL, messagesUrl: PROD_URL, current: true, hasKey: false },
  {
    name: 'staging',
    baseUrl: STAGING_URL,
    messagesUrl: STAGING_URL,
    current: false,
    hasKey: false,
  },
  {
    name: 'sandbox',
    baseUrl: SANDBOX_URL,
    messagesUrl: SANDBOX_URL,
    current: false,
    hasKey: false,
  },
];

async function listJson(env: Record<string, string | undefined>): Promise<unknown> {
  const result = await run(['profile', 'list', '--json'], { env });
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
}

describe('store profile list', () => {
  it('lists the built-in profiles as tab-separated rows, production current', async () => {
    const { env, file } = setup();
    const result = await run(['profile', 'list'], { env });
    expect(result).toEqual({
      code: 0,
      stdout:
        'CURRENT\tNAME\tBASE URL\tMESSAGES URL\tKEY\n' +
        `*\tproduction\t${PROD_URL}\t${PROD_URL}\tnone\n` +
        `\tstaging\t${STAGING_URL}\t${STAGING_URL}\tnone\n` +
        `\tsandbox\t${SANDBOX_URL}\t${SANDBOX_URL}\tbuilt-in\n`,
      stderr: '',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('prints an array with --json', async () => {
    const { env } = setup();
    const result = await run(['profile', 'list', '--json'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: `${JSON.stringify(BUILTIN_ROWS)}\n`,
      stderr: '',
      prompts: [],
    });
  });

  it('says whether a key is stored, never the key itself', async () => {
    const { env, file } = setup();
    writeConfig(file, {
      profiles: {
        production: { apiKey: STORED_KEY },
        eu: { baseUrl: 'https://eu.example.org/v1', apiKey: `${STORED_KEY}-eu` },
      },
    });
    const json = await run(['profile', 'list', '--json'], { env });
    expect(json).toEqual({
      code: 0,
      stdout: `${JSON.stringify([
        { ...BUILTIN_ROWS[0], hasKey: true },
        BUILTIN_ROWS[1],
        BUILTIN_ROWS[2],
        {
          name: 'eu',
          baseUrl: 'https://eu.example.org/v1',
          messagesUrl: 'https://eu.example.org/v1',
          current: false,
          hasKey: true,
        },
      ])}\n`,
      stderr: '',
      prompts: [],
    });
    const text = await run(['profile', 'list'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `\teu\thttps://eu.example.org/v1\thttps://eu.example.org/v1\tstored\n`,
    );
    for (const output of [json.stdout, json.stderr, text.stdout, text.stderr]) {
      expect(output).not.toContain(STORED_KEY);
      expect(output).not.toContain('5678');
    }
  });
});

describe('store profile use', () => {
  it('makes a profile current: stored, shown by list, used by API commands', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    const result = await run(['profile', 'use', 'staging'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Now using profile staging\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ currentProfile: 'staging' });
    expect(await listJson(env)).toEqual([
      { ...BUILTIN_ROWS[0], current: false },
      { ...BUILTIN_ROWS[1], current: true },
      BUILTIN_ROWS[2],
    ]);
    const scope = api(STAGING).get('/v1/pets').reply(200, '[]');
    const pets = await run(['pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(pets).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n',
      stderr: '',
      prompts: [],
    });
  });

  it('makes a user profile current and keeps the rest of the config', async () => {
    const { env, file } = setup();
    writeConfig(file, {
      currentProfile: 'staging',
      profiles: { eu: { baseUrl: 'https://eu.example.org/v1' } },
    });
    const result = await run(['profile', 'use', 'eu'], { env });
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'Now using profile eu\n', prompts: [] });
    expect(readConfig(file)).toStrictEqual({
      currentProfile: 'eu',
      profiles: { eu: { baseUrl: 'https://eu.example.org/v1' } },
    });
  });

  it('exits 2 for an unknown profile and leaves the config as it was', async () => {
    const { env, file } = setup();
    const before = writeConfig(file, {
      currentProfile: 'eu',
      profiles: { eu: { baseUrl: 'https://eu.example.org/v1' } },
    });
    const result = await run(['profile', 'use', 'nope'], { env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: unknown profile "nope"; see `store profile list`, or create it with `store profile set nope --base-url <url>`\n',
      prompts: [],
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});

describe('store profile set', () => {
  it('creates a user profile; its messages URL defaults to its base URL', async () => {
    const { env, file } = setup();
    const result = await run(['profile', 'set', 'eu', '--base-url', 'https://eu.example.org/v1'], {
      env,
    });
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'Created profile eu\n', prompts: [] });
    expect(readConfig(file)).toStrictEqual({
      profiles: { eu: { baseUrl: 'https://eu.example.org/v1' } },
    });
    expect(await listJson(env)).toEqual([
      ...BUILTIN_ROWS,
      {
        name: 'eu',
        baseUrl: 'https://eu.example.org/v1',
        messagesUrl: 'https://eu.example.org/v1',
        current: false,
        hasKey: false,
      },
    ]);
  });

  it('creates a profile with both URLs', async () => {
    const { env, file } = setup();
    const result = await run(
      [
        'profile',
        'set',
        'eu_2.test-x',
        '--base-url',
        'https://eu.example.org/v1',
        '--messages-url',
        'https://msg.eu.example.org/v1',
      ],
      { env },
    );
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Created profile eu_2.test-x\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({
      profiles: {
        'eu_2.test-x': {
          baseUrl: 'https://eu.example.org/v1',
          messagesUrl: 'https://msg.eu.example.org/v1',
        },
      },
    });
  });

  it('updates only the given fields of an existing profile', async () => {
    const { env, file } = setup();
    writeConfig(file, {
      currentProfile: 'eu',
      profiles: {
        eu: {
          baseUrl: 'https://eu.example.org/v1',
          messagesUrl: 'https://msg.eu.example.org/v1',
          apiKey: STORED_KEY,
        },
      },
    });
    const result = await run(
      ['profile', 'set', 'eu', '--messages-url', 'https://msg2.eu.example.org/v1'],
      { env },
    );
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'Updated profile eu\n', prompts: [] });
    expect(readConfig(file)).toStrictEqual({
      currentProfile: 'eu',
      profiles: {
        eu: {
          baseUrl: 'https://eu.example.org/v1',
          messagesUrl: 'https://msg2.eu.example.org/v1',
          apiKey: STORED_KEY,
        },
      },
    });
  });

  it("updates a built-in profile's base URL, which API commands then use", async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    const result = await run(
      ['profile', 'set', 'staging', '--base-url', 'https://stg2.example.org/v1'],
      { env },
    );
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Updated profile staging\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({
      profiles: { staging: { baseUrl: 'https://stg2.example.org/v1' } },
    });
    const scope = api('https://stg2.example.org').get('/v1/pets').reply(200, '[]');
    const pets = await run(['-p', 'staging', 'pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(pets.code).toBe(0);
  });

  it.each([
    [['--base-url', 'not a url'], 'error: --base-url is not a valid URL: "not a url"\n'],
    [
      ['--base-url', 'ftp://eu.example.org/v1'],
      'error: --base-url must be an http:// or https:// URL: "ftp://eu.example.org/v1"\n',
    ],
    [
      ['--base-url', 'https://eu.example.org/v1', '--messages-url', 'file:///etc/passwd'],
      'error: --messages-url must be an http:// or https:// URL: "file:///etc/passwd"\n',
    ],
    [
      ['--base-url', 'https://eu.example.org/v1', '--messages-url', '://'],
      'error: --messages-url is not a valid URL: "://"\n',
    ],
  ])('refuses %j with exit 2 and writes nothing', async (flags, stderr) => {
    const fresh = setup();
    const created = await run(['profile', 'set', 'eu', ...flags], { env: fresh.env });
    expect(created).toEqual({ code: 2, stdout: '', stderr, prompts: [] });
    expect(existsSync(fresh.file)).toBe(false);

    const { env, file } = setup();
    const before = writeConfig(file, {
      profiles: { eu: { baseUrl: 'https://old.example.org/v1' } },
    });
    const updated = await run(['profile', 'set', 'eu', ...flags], { env });
    expect(updated).toEqual({ code: 2, stdout: '', stderr, prompts: [] });
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('exits 2 when a new profile has no --base-url', async () => {
    const { env, file } = setup();
    const result = await run(
      ['profile', 'set', 'eu', '--messages-url', 'https://msg.eu.example.org/v1'],
      { env },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --base-url is required to create profile "eu"\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });

  it.each([['a/b'], ['..'], ['a b'], ['.hidden'], ['_x'], ['é'], ['a'.repeat(65)], ['']])(
    'refuses the profile name %j with exit 2',
    async (name) => {
      const { env, file } = setup();
      const result = await run(['profile', 'set', name, '--base-url', 'https://x.example/v1'], {
        env,
      });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: invalid profile name ${JSON.stringify(name)}: the profile name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit\n`,
        prompts: [],
      });
      expect(existsSync(file)).toBe(false);
    },
  );

  it('accepts plain http:// to a host that is not loopback with a warning; API commands then refuse it', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    const result = await run(
      ['profile', 'set', 'lan', '--base-url', 'http://pets.lan.example/v1'],
      { env },
    );
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'warning: --base-url uses plain http:// to a host that is not loopback; store will refuse to send the API key there\nCreated profile lan\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({
      profiles: { lan: { baseUrl: 'http://pets.lan.example/v1' } },
    });
    const pets = await run(['-p', 'lan', 'pets', 'list'], { env });
    expect(pets).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: refusing to send the API key over plain HTTP to pets.lan.example; use an https:// URL (plain http is allowed for loopback hosts only)\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it("moves a built-in profile's messages URL with its base URL unless that is set too", async () => {
    const { env } = setup({ STORE_API_KEY: KEY });
    await run(['profile', 'set', 'staging', '--base-url', 'https://stg2.example.org/v1'], { env });
    const scope = api('https://stg2.example.org')
      .post('/v1/messages', '{"message":"hi"}')
      .reply(
        201,
        '{"id":"m1","message":"hi","status":"queued","createdAt":"2026-01-01T00:00:00Z"}',
      );
    const sent = await run(['-p', 'staging', 'messages', 'send', 'hi'], { env });
    expect(scope.isDone()).toBe(true);
    expect(sent.code).toBe(0);
    const listed = await run(['profile', 'list', '--json'], { env });
    expect(JSON.parse(listed.stdout)[1]).toEqual({
      name: 'staging',
      baseUrl: 'https://stg2.example.org/v1',
      messagesUrl: 'https://stg2.example.org/v1',
      current: false,
      hasKey: false,
    });
  });

  it('warns about nothing when it refuses the change', async () => {
    const { env, file } = setup();
    const result = await run(
      ['profile', 'set', 'new', '--messages-url', 'http://msg.example.org/v1'],
      {
        env,
      },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --base-url is required to create profile "new"\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('warns about a plain http:// messages URL too', async () => {
    const { env } = setup();
    const result = await run(
      [
        'profile',
        'set',
        'eu',
        '--base-url',
        'https://eu.example.org/v1',
        '--messages-url',
        'http://msg.example.org/v1',
      ],
      { env },
    );
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'warning: --messages-url uses plain http:// to a host that is not loopback; store will refuse to send the API key there\nCreated profile eu\n',
      prompts: [],
    });
  });

  it.each([
    ['http://localhost:8080/v1', 'http://localhost:8080'],
    ['http://127.0.0.2:8080/v1', 'http://127.0.0.2:8080'],
    ['http://[::1]:8080/v1', 'http://[::1]:8080'],
  ])('accepts loopback %s without a warning, and API commands use it', async (url, origin) => {
    const { env } = setup({ STORE_API_KEY: KEY });
    const result = await run(['profile', 'set', 'local', '--base-url', url], { env });
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'Created profile local\n', prompts: [] });
    const scope = api(origin).get('/v1/pets').reply(200, '[]');
    const pets = await run(['-p', 'local', 'pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(pets.code).toBe(0);
  });
  it.each([['constructor'], ['toString'], ['hasOwnProperty']])(
    'treats %s as an ordinary profile name',
    async (name) => {
      const { env, file } = setup({ STORE_API_KEY: KEY });
      const created = await run(
        ['profile', 'set', name, '--base-url', 'https://c.example.org/v1'],
        {
          env,
        },
      );
      expect(created).toEqual({
        code: 0,
        stdout: '',
        stderr: `Created profile ${name}\n`,
        prompts: [],
      });
      // Compared as text: toStrictEqual reads an own `constructor` key as the object's type.
      expect(JSON.stringify(readConfig(file))).toBe(
        JSON.stringify({ profiles: { [name]: { baseUrl: 'https://c.example.org/v1' } } }),
      );
      const scope = api('https://c.example.org').get('/v1/pets').reply(200, '[]');
      expect((await run(['-p', name, 'pets', 'list'], { env })).code).toBe(0);
      expect(scope.isDone()).toBe(true);
      const removed = await run(['profile', 'remove', name], { env });
      expect(removed.code).toBe(0);
      expect(readConfig(file)).toStrictEqual({ profiles: {} });
    },
  );
});

describe('store profile remove', () => {
  it('removes a user profile with its key', async () => {
    const { env, file } = setup();
    writeConfig(file, {
      currentProfile: 'staging',
      profiles: {
        eu: { baseUrl: 'https://eu.example.org/v1', apiKey: STORED_KEY },
        us: { baseUrl: 'https://us.example.org/v1' },
      },
    });
    const result = await run(['profile', 'remove', 'eu'], { env });
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'Removed profile eu\n', prompts: [] });
    expect(readConfig(file)).toStrictEqual({
      currentProfile: 'staging',
      profiles: { us: { baseUrl: 'https://us.example.org/v1' } },
    });
    expect(await listJson(env)).toEqual([
      { ...BUILTIN_ROWS[0], current: false },
      { ...BUILTIN_ROWS[1], current: true },
      BUILTIN_ROWS[2],
      {
        name: 'us',
        baseUrl: 'https://us.example.org/v1',
        messagesUrl: 'https://us.example.org/v1',
        current: false,
        hasKey: false,
      },
    ]);
  });

  it('falls back to production when the current profile is removed', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    writeConfig(file, {
      currentProfile: 'eu',
      profiles: { eu: { baseUrl: 'https://eu.example.org/v1' } },
    });
    const result = await run(['profile', 'remove', 'eu'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Removed profile eu; the current profile is now production\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: {} });
    expect(await listJson(env)).toEqual(BUILTIN_ROWS);
    const scope = api().get('/v1/pets').reply(200, '[]');
    expect((await run(['pets', 'list'], { env })).code).toBe(0);
    expect(scope.isDone()).toBe(true);
  });

  it.each(['production', 'staging', 'sandbox'])(
    'refuses to remove the built-in profile %s with exit 2',
    async (name) => {
      const { env, file } = setup();
      const before = writeConfig(file, { profiles: { [name]: { apiKey: STORED_KEY } } });
      const result = await run(['profile', 'remove', name], { env });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: "${name}" is a built-in profile and cannot be removed (\`store auth logout\` forgets its key)\n`,
        prompts: [],
      });
      expect(readFileSync(file, 'utf8')).toBe(before);
    },
  );

  it('exits 2 for an unknown profile', async () => {
    const { env, file } = setup();
    const result = await run(['profile', 'remove', 'nope'], { env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown profile "nope"; see `store profile list`\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });
});

describe('profile selection and precedence', () => {
  const PROFILES = {
    currentProfile: 'cur',
    profiles: {
      cur: { baseUrl: 'https://cur.example.org/v1' },
      envp: { baseUrl: 'https://envp.example.org/v1' },
      flagp: { baseUrl: 'https://flagp.example.org/v1' },
    },
  };

  it.each([
    [
      'the -p flag over STORE_PROFILE and the config',
      ['-p', 'flagp'],
      'envp',
      PROFILES,
      'https://flagp.example.org',
    ],
    [
      'the --profile flag after the subcommand',
      ['--profile', 'flagp'],
      'envp',
      PROFILES,
      'https://flagp.example.org',
    ],
    ['STORE_PROFILE over the config', [], 'envp', PROFILES, 'https://envp.example.org'],
    ['the current profile of the config', [], undefined, PROFILES, 'https://cur.example.org'],
    ['production without any of them', [], undefined, { profiles: PROFILES.profiles }, API],
  ])('uses %s', async (_what, flags, storeProfile, config, origin) => {
    const { env, file } = setup({ STORE_API_KEY: KEY, STORE_PROFILE: storeProfile });
    writeConfig(file, config);
    const scope = api(origin).get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list', ...flags], { env });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n',
      stderr: '',
      prompts: [],
    });
  });

  it('marks the profile chosen by -p or STORE_PROFILE as current in profile list', async () => {
    const { env, file } = setup({ STORE_PROFILE: 'sandbox' });
    writeConfig(file, { currentProfile: 'production' });
    const fromEnv = (await listJson(env)) as { name: string; current: boolean }[];
    expect(fromEnv.filter((p) => p.current).map((p) => p.name)).toEqual(['sandbox']);
    const result = await run(['profile', 'list', '--json', '-p', 'staging'], { env });
    const fromFlag = JSON.parse(result.stdout) as { name: string; current: boolean }[];
    expect(fromFlag.filter((p) => p.current).map((p) => p.name)).toEqual(['staging']);
  });

  it("uses STORE_BASE_URL over the profile's URL", async () => {
    const { env, file } = setup({
      STORE_API_KEY: KEY,
      STORE_BASE_URL: 'https://override.example.org/api/v1',
    });
    writeConfig(file, PROFILES);
    const scope = api('https://override.example.org').get('/api/v1/pets').reply(200, '[]');
    const result = await run(['-p', 'flagp', 'pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
  });

  it('uses STORE_API_KEY over the stored key', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    writeConfig(file, { profiles: { production: { apiKey: STORED_KEY } } });
    const scope = api(API, KEY).get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
  });

  it("uses the profile's stored key without STORE_API_KEY", async () => {
    const { env, file } = setup();
    writeConfig(file, {
      currentProfile: 'cur',
      profiles: {
        ...PROFILES.profiles,
        cur: { baseUrl: 'https://cur.example.org/v1', apiKey: STORED_KEY },
      },
    });
    const scope = api('https://cur.example.org', STORED_KEY).get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
  });

  it('sends messages to STORE_MESSAGES_URL over the profile messages URL', async () => {
    const { env, file } = setup({
      STORE_API_KEY: KEY,
      STORE_MESSAGES_URL: 'https://msg.example.org/v2',
    });
    writeConfig(file, {
      profiles: { production: { messagesUrl: 'https://profile-msg.example.org/v1' } },
    });
    const scope = api('https://msg.example.org')
      .post('/v2/messages', { message: 'hi' })
      .matchHeader('content-type', 'application/json')
      .reply(201, {
        id: 'm-1',
        message: 'hi',
        status: 'queued',
        createdAt: '2030-01-01T00:00:00Z',
      });
    const result = await run(['messages', 'send', 'hi'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: 'ID\tSTATUS\tCREATED AT\nm-1\tqueued\t2030-01-01T00:00:00Z\n',
      stderr: '',
      prompts: [],
    });
  });

  it("sends messages to the profile's messages URL", async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    writeConfig(file, {
      profiles: { production: { messagesUrl: 'https://profile-msg.example.org/v1' } },
    });
    const scope = api('https://profile-msg.example.org')
      .post('/v1/messages', { message: 'hi' })
      .reply(201, {
        id: 'm-1',
        message: 'hi',
        status: 'queued',
        createdAt: '2030-01-01T00:00:00Z',
      });
    const result = await run(['messages', 'send', 'hi', '--json'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result.stdout).toBe(
      '{"id":"m-1","message":"hi","status":"queued","createdAt":"2030-01-01T00:00:00Z"}\n',
    );
  });

  it.each([
    ['--profile', ['--profile', 'nope'], {}],
    ['STORE_PROFILE', [], { STORE_PROFILE: 'nope' }],
    ['the config', [], {}],
  ])('exits 2 and sends nothing for an unknown profile from %s', async (from, flags, extra) => {
    const { env, file } = setup({ STORE_API_KEY: KEY, ...extra });
    if (flags.length === 0 && Object.keys(extra).length === 0) {
      writeConfig(file, { currentProfile: 'nope' });
    }
    const result = await run(['pets', 'list', ...flags], { env });
    const via = { '--profile': '', STORE_PROFILE: ' (set in STORE_PROFILE)' }[from as string];
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: unknown profile "nope"${via ?? ' (set in config.json as the current profile)'}; see \`store profile list\`, or create it with \`store profile set nope --base-url <url>\`\n`,
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });
});
