import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig, run, configSetup as setup, writeConfigFile } from '../../helpers/cli.js';

describe('store auth logout', () => {
  it('shows a hand-written profile name holding escape sequences as text', async () => {
    const { env, file } = setup();
    const name = 'eu\u001b[31m';
    writeConfigFile(
      file,
      JSON.stringify({
        currentProfile: name,
        profiles: { [name]: { baseUrl: 'https://eu.example.org/v1', apiKey: 'eu-key-12345678' } },
      }),
    );
    const result = await run(['auth', 'logout'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged out of profile eu\\x1b[31m\n',
      prompts: [],
    });
  });

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

  it('says that STORE_API_KEY still sends a key after the stored one is forgotten', async () => {
    const { env, file } = setup({ STORE_API_KEY: 'env-key-12345678' });
    writeConfigFile(
      file,
      JSON.stringify({ profiles: { production: { apiKey: 'prod-key-1234' } } }),
    );
    expect(await run(['auth', 'logout'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'Logged out of profile production\nnote: STORE_API_KEY is set: commands still send that key while it is\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: {} });
  });

  it('says that the sandbox profile sends its built-in key again', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({ profiles: { sandbox: { apiKey: 'sbx-key-12345678' } } }),
    );
    expect(await run(['-p', 'sandbox', 'auth', 'logout'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged out of profile sandbox\nnote: profile sandbox sends its built-in key again\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: {} });
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
