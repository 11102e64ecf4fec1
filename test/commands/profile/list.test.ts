import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { publishSandbox } from '../../../src/config/sandbox-record.js';
import { run, configSetup as setup } from '../../helpers/cli.js';
import {
  BUILTIN_ROWS,
  PROD_URL,
  SANDBOX_URL,
  STAGING_URL,
  STORED_KEY,
  writeConfig,
} from '../../helpers/profiles.js';

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

  it('shows the running sandbox’s URL for the sandbox profile, as -p sandbox reaches it', async () => {
    const { env, dir } = setup({ STORE_BASE_URL: 'https://elsewhere.example/v1' });
    const running = 'http://127.0.0.1:40123/v1';
    const published = await publishSandbox(dir, running);
    try {
      const result = await run(['profile', 'list'], { env });
      expect(result.code).toBe(0);
      // STORE_BASE_URL is this invocation's override: the list shows the profiles themselves.
      expect(result.stdout.split('\n')[3]).toBe(`\tsandbox\t${running}\t${running}\tbuilt-in`);
      const json = await run(['profile', 'list', '--json'], { env });
      expect(JSON.parse(json.stdout)[2]).toEqual({
        name: 'sandbox',
        baseUrl: running,
        messagesUrl: running,
        current: false,
        hasKey: false,
      });
    } finally {
      await published.remove();
    }
    const after = await run(['profile', 'list', '--json'], { env });
    expect(JSON.parse(after.stdout)[2].baseUrl).toBe(SANDBOX_URL);
  });

  it('lists the profiles and warns when the profile in use does not exist (exit 0, none marked)', async () => {
    const { env, file } = setup({ STORE_PROFILE: 'gone' });
    writeConfig(file, { currentProfile: 'eu-old' });
    // The built-in profiles, none of them marked current.
    const listed =
      'CURRENT\tNAME\tBASE URL\tMESSAGES URL\tKEY\n' +
      '\tproduction\thttps://api.animal-store.example/v1\thttps://api.animal-store.example/v1\tnone\n' +
      '\tstaging\thttps://staging.api.animal-store.example/v1\thttps://staging.api.animal-store.example/v1\tnone\n' +
      '\tsandbox\thttp://127.0.0.1:4010/v1\thttp://127.0.0.1:4010/v1\tbuilt-in\n';
    expect(await run(['profile', 'list'], { env })).toEqual({
      code: 0,
      stdout: listed,
      stderr:
        'warning: the profile in use, "gone" (set in STORE_PROFILE), does not exist; commands that use it will fail\n',
      prompts: [],
    });
    const { STORE_PROFILE: _, ...withoutEnv } = env;
    expect(await run(['profile', 'list'], { env: withoutEnv })).toEqual({
      code: 0,
      stdout: listed,
      stderr:
        'warning: the profile in use, "eu-old" (set in config.json as the current profile), does not exist; commands that use it will fail\n',
      prompts: [],
    });
  });

  it('names the profile a mistyped one may mean', async () => {
    const { env } = setup({ STORE_PROFILE: 'stagin' });
    const result = await run(['profile', 'list'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'warning: the profile in use, "stagin" (set in STORE_PROFILE), does not exist (did you mean "staging"?); commands that use it will fail\n',
    );
  });

  it('on a terminal, cuts URLs in the middle, and leaves out MESSAGES URL when it is every base URL', async () => {
    // Cut at the end, the two staging-eu URLs looked alike, and so did production's and
    // staging's at 60 columns (`https://api.…`), beside a column that repeated them.
    const { env, file } = setup({ NO_COLOR: '1' });
    writeConfig(file, {
      profiles: {
        'staging-eu': { baseUrl: 'https://api.staging-eu.animal-store.example.com:8443/v1' },
        'staging-eu2': { baseUrl: 'https://api.staging-eu.animal-store.example.com:9443/v1' },
      },
    });
    const result = await run(['profile', 'list'], { env, tty: true, columns: 60 });
    expect(result).toEqual({
      code: 0,
      stdout:
        'CURRENT  NAME         BASE URL                      KEY\n' +
        '*        production   https://api.an…re.example/v1  none\n' +
        '         staging      https://stagin…re.example/v1  none\n' +
        '         sandbox      http://127.0.0.1:4010/v1      built-in\n' +
        '         staging-eu   https://api.st…e.com:8443/v1  none\n' +
        '         staging-eu2  https://api.st…e.com:9443/v1  none\n',
      stderr: '',
      prompts: [],
    });
  });

  it('on a terminal, shows MESSAGES URL when a profile’s differs from its base URL', async () => {
    const { env, file } = setup({ NO_COLOR: '1' });
    writeConfig(file, {
      profiles: { eu: { baseUrl: 'https://eu.example/v1', messagesUrl: 'https://msg.example/v1' } },
    });
    const result = await run(['profile', 'list'], { env, tty: true, columns: 120 });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^CURRENT {2}NAME {8}BASE URL {37}MESSAGES URL {33}KEY$/);
    expect(lines[4]).toMatch(
      /^ {9}eu {10}https:\/\/eu\.example\/v1 {24}https:\/\/msg\.example\/v1 {23}none$/,
    );
  });

  it('says on stderr that STORE_BASE_URL wins over the URLs it lists', async () => {
    const { env } = setup({ STORE_BASE_URL: 'http://127.0.0.1:40053/v1' });
    const result = await run(['profile', 'list', '--json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(BUILTIN_ROWS);
    expect(result.stderr).toBe(
      'note: STORE_BASE_URL="http://127.0.0.1:40053/v1" wins over the profile\'s URL in this shell; `unset STORE_BASE_URL` to use it\n',
    );
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
