import { describe, expect, it } from 'vitest';
import { readConfig, run, configSetup as setup, writeConfigFile } from '../../helpers/cli.js';

const EU = { baseUrl: 'https://eu.example.org/v1' };

describe('store profile remove', () => {
  it('of the current profile says which profile is now current', async () => {
    const { env, file } = setup();
    writeConfigFile(file, JSON.stringify({ currentProfile: 'eu', profiles: { eu: EU } }));
    expect(await run(['profile', 'remove', 'eu'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Removed profile eu; the current profile is now production\n',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ profiles: {} });
  });

  it('of another profile leaves the current one alone and says only that', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({ currentProfile: 'staging', profiles: { eu: EU, us: EU } }),
    );
    expect(await run(['profile', 'remove', 'eu'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Removed profile eu\n',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ currentProfile: 'staging', profiles: { us: EU } });
  });

  it('prints one JSON object under --json, naming the current profile', async () => {
    const { env, file } = setup();
    writeConfigFile(file, JSON.stringify({ currentProfile: 'eu', profiles: { eu: EU } }));
    expect(await run(['profile', 'remove', 'eu', '--json'], { env })).toEqual({
      code: 0,
      stdout: '{"profile":"eu","removed":true,"current":"production"}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('says when STORE_PROFILE names the removed profile', async () => {
    const { env, file } = setup({ STORE_PROFILE: 'eu' });
    writeConfigFile(file, JSON.stringify({ profiles: { eu: EU } }));
    expect(await run(['profile', 'remove', 'eu'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'Removed profile eu\nnote: STORE_PROFILE=eu names the removed profile; `unset STORE_PROFILE`\n',
      prompts: [],
    });
  });

  it('suggests a removable profile for an unknown name, and never "create it"', async () => {
    const { env, file } = setup();
    const text = JSON.stringify({ profiles: { europe: EU } });
    writeConfigFile(file, text);
    expect(await run(['profile', 'remove', 'europ'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: unknown profile "europ" (did you mean "europe"?)\nhint: see `store profile list`\n',
      prompts: [],
    });
    expect(readConfig(file)).toEqual(JSON.parse(text));
  });

  it('suggests no built-in profile, which cannot be removed', async () => {
    const { env } = setup();
    expect(await run(['profile', 'remove', 'stagin'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown profile "stagin"\nhint: see `store profile list`\n',
      prompts: [],
    });
  });

  it('takes an empty currentProfile in config.json as none: production is current', async () => {
    const { env, file } = setup();
    writeConfigFile(file, JSON.stringify({ currentProfile: '', profiles: { europe: EU } }));
    expect(await run(['profile', 'remove', 'europe', '--json'], { env })).toEqual({
      code: 0,
      stdout: '{"profile":"europe","removed":true,"current":"production"}\n',
      stderr: '',
      prompts: [],
    });
  });
});
