import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig, run, configSetup as setup } from '../../helpers/cli.js';
import { api, KEY, unexpected } from '../../helpers/http.js';
import { BUILTIN_ROWS, listJson, STORED_KEY, writeConfig } from '../../helpers/profiles.js';

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
        'error: refusing to send the API key over plain HTTP to pets.lan.example\nhint: use an https:// URL (plain http is allowed for loopback hosts only)\n',
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
