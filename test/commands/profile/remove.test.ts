import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig, run, configSetup as setup } from '../../helpers/cli.js';
import { api, KEY } from '../../helpers/http.js';
import { BUILTIN_ROWS, listJson, STORED_KEY, writeConfig } from '../../helpers/profiles.js';

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
        // -p named: a plain `store auth logout` would forget the current profile's key.
        stderr: `error: "${name}" is a built-in profile and cannot be removed\nhint: \`store -p ${name} auth logout\` forgets its key\n`,
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
      stderr: 'error: unknown profile "nope"\nhint: see `store profile list`\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });
});
