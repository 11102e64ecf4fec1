import { describe, expect, it } from 'vitest';
import { NO_KEY, run, configSetup as setup, writeConfigFile } from '../../helpers/cli.js';
import { KEY } from '../../helpers/http.js';

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

  it('prints one JSON object with --json: the profile, where the key comes from, the key', async () => {
    const { env, file } = setup();
    writeConfigFile(file, JSON.stringify({ profiles: { staging: { apiKey: KEY } } }));
    expect(await run(['-p', 'staging', 'auth', 'token', '--json'], { env })).toEqual({
      code: 0,
      stdout: `{"profile":"staging","keySource":"config","keyStorage":"file","key":"${KEY}"}\n`,
      stderr: '',
      prompts: [],
    });
  });

  it('exits 4 when there is no key', async () => {
    const { env } = setup();
    expect(await run(['auth', 'token'], { env })).toEqual(NO_KEY);
  });

  it('exits 4 for an empty key written by hand in the config: no empty line printed', async () => {
    const { env, file } = setup();
    writeConfigFile(file, JSON.stringify({ profiles: { production: { apiKey: '' } } }));
    expect(await run(['auth', 'token'], { env })).toEqual(NO_KEY);
  });
});
