import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig, run, configSetup as setup } from '../../helpers/cli.js';

describe('store profile set', () => {
  it('warns that a base URL with no path usually ends in /v1, and saves it', async () => {
    const { env, file } = setup();
    expect(
      await run(['profile', 'set', 'eu', '--base-url', 'https://eu.example.org'], { env }),
    ).toEqual({
      code: 0,
      stdout: '',
      stderr:
        "warning: --base-url https://eu.example.org has no path; the service's base URL usually ends in /v1, as in https://eu.example.org/v1\n" +
        'Created profile eu\n',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ profiles: { eu: { baseUrl: 'https://eu.example.org' } } });
  });

  it('warns about both URLs, each named by its flag', async () => {
    const { env } = setup();
    const result = await run(
      [
        'profile',
        'set',
        'lan',
        '--base-url',
        'http://10.0.0.5/v1',
        '--messages-url',
        'https://m.example.org/',
      ],
      { env },
    );
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'warning: --base-url uses plain http:// to a host that is not loopback; store will refuse to send the API key there\n' +
        "warning: --messages-url https://m.example.org has no path; the service's base URL usually ends in /v1, as in https://m.example.org/v1\n" +
        'Created profile lan\n',
      prompts: [],
    });
  });

  it('prints one JSON object under --json: the profile as saved', async () => {
    const { env } = setup();
    const created = await run(
      ['profile', 'set', 'eu', '--base-url', 'https://eu.example.org/v1', '--json'],
      { env },
    );
    expect(created).toEqual({
      code: 0,
      stdout:
        '{"profile":"eu","created":true,"baseUrl":"https://eu.example.org/v1","messagesUrl":"https://eu.example.org/v1"}\n',
      stderr: '',
      prompts: [],
    });
    const updated = await run(
      ['profile', 'set', 'eu', '--messages-url', 'https://m.example.org/v1', '--json'],
      { env },
    );
    expect(updated.stdout).toBe(
      '{"profile":"eu","created":false,"baseUrl":"https://eu.example.org/v1","messagesUrl":"https://m.example.org/v1"}\n',
    );
  });

  it('refuses a name outside the rule before touching the config, quoting it', async () => {
    const { env, file } = setup();
    expect(
      await run(['profile', 'set', 'a\tb', '--base-url', 'https://x.example/v1'], { env }),
    ).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: invalid profile name "a\\tb": the profile name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });
});
