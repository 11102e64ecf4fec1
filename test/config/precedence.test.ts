import { describe, expect, it } from 'vitest';
import { run, configSetup as setup } from '../helpers/cli.js';
import { API, api, KEY, unexpected } from '../helpers/http.js';
import { listJson, STORED_KEY, writeConfig } from '../helpers/profiles.js';

/** What `pets list` prints for an empty list in a pipe: the request went where expected. */
const NO_ANIMALS = { code: 0, stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n', stderr: '', prompts: [] };

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
    expect(result).toEqual(NO_ANIMALS);
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
    expect(result).toEqual(NO_ANIMALS);
  });

  it('uses STORE_API_KEY over the stored key', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    writeConfig(file, { profiles: { production: { apiKey: STORED_KEY } } });
    const scope = api(API, KEY).get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual(NO_ANIMALS);
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
    expect(result).toEqual(NO_ANIMALS);
  });

  it.each([
    ['-p', ['-p', 'flagp'], {}],
    ['STORE_PROFILE', [], { STORE_PROFILE: 'flagp' }],
  ])(
    "sends the key of the profile chosen by %s, not the current profile's",
    async (_what, flags, extra) => {
      const { env, file } = setup(extra);
      writeConfig(file, {
        currentProfile: 'cur',
        profiles: {
          cur: { baseUrl: 'https://cur.example.org/v1', apiKey: STORED_KEY },
          flagp: { baseUrl: 'https://flagp.example.org/v1', apiKey: 'flag-profile-key' },
        },
      });
      const scope = api('https://flagp.example.org', 'flag-profile-key')
        .get('/v1/pets')
        .reply(200, '[]');
      const result = await run(['pets', 'list', ...flags], { env });
      expect(scope.isDone()).toBe(true);
      expect(result).toEqual(NO_ANIMALS);
    },
  );

  it('sends nothing when the profile chosen has no key, even if the current one has', async () => {
    const { env, file } = setup();
    writeConfig(file, {
      currentProfile: 'cur',
      profiles: {
        cur: { baseUrl: 'https://cur.example.org/v1', apiKey: STORED_KEY },
        flagp: { baseUrl: 'https://flagp.example.org/v1' },
      },
    });
    const result = await run(['-p', 'flagp', 'pets', 'list'], { env });
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'error: no API key for profile flagp\nhint: run `store -p flagp auth login` or set STORE_API_KEY\n',
      prompts: [],
    });
  });

  it('uses a key stored for the built-in sandbox profile over its built-in one', async () => {
    const { env, file } = setup();
    writeConfig(file, { profiles: { sandbox: { apiKey: STORED_KEY } } });
    const scope = api('http://127.0.0.1:4010', STORED_KEY).get('/v1/pets').reply(200, '[]');
    const result = await run(['-p', 'sandbox', 'pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual(NO_ANIMALS);
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
    // Where the name came from, when not from the command line.
    const via = {
      '--profile': '',
      STORE_PROFILE: ' (set in STORE_PROFILE)',
      'the config': ' (set in config.json as the current profile)',
    }[from as string];
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: unknown profile "nope"${via}\nhint: see \`store profile list\`, or create it with \`store profile set nope --base-url <url>\`\n`,
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });
});
