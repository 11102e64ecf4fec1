import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig, run, configSetup as setup } from '../../helpers/cli.js';
import { api, KEY, STAGING } from '../../helpers/http.js';
import { BUILTIN_ROWS, listJson, writeConfig } from '../../helpers/profiles.js';

describe('store profile use', () => {
  it('makes a profile current: stored, shown by list, used by API commands', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    const result = await run(['profile', 'use', 'staging'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Made staging the current profile\n',
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
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Made eu the current profile\n',
      prompts: [],
    });
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
        'error: unknown profile "nope"\nhint: see `store profile list`, or create it with `store profile set nope --base-url <url>`\n',
      prompts: [],
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
