// `profile use` tells the truth about which profile later commands use.
import { describe, expect, it } from 'vitest';
import { readConfig, run, configSetup as setup, writeConfigFile } from '../../helpers/cli.js';

describe('store profile use', () => {
  it('makes the profile current and says so', async () => {
    const { env, file } = setup();
    expect(await run(['profile', 'use', 'staging'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Made staging the current profile\n',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ currentProfile: 'staging' });
  });

  it.each([false, true])(
    'while STORE_PROFILE names another profile, still makes it current and says STORE_PROFILE wins (terminal: %s)',
    async (tty) => {
      const { env, file } = setup({ STORE_PROFILE: 'staging' });
      expect(await run(['profile', 'use', 'production'], { env, tty })).toEqual({
        code: 0,
        stdout: '',
        // On an 80-column terminal the note is wrapped between words.
        stderr:
          'Made production the current profile\n' +
          `note: STORE_PROFILE=staging wins in this shell; \`unset STORE_PROFILE\` to use${tty ? '\n' : ' '}production\n`,
        prompts: [],
      });
      expect(readConfig(file)).toEqual({ currentProfile: 'production' });
    },
  );

  it('says that STORE_BASE_URL and STORE_MESSAGES_URL win over the profile’s URLs in this shell', async () => {
    // It said only "Made staging the current profile", while every command went to STORE_BASE_URL.
    const { env, file } = setup({
      STORE_BASE_URL: 'http://127.0.0.1:40053/v1',
      STORE_MESSAGES_URL: 'https://alice:pw@msg.example/v1',
      STORE_PROFILE: '',
    });
    expect(await run(['profile', 'use', 'staging'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'Made staging the current profile\n' +
        'note: STORE_BASE_URL="http://127.0.0.1:40053/v1" wins over the profile\'s URL in this shell; `unset STORE_BASE_URL` to use it\n' +
        'note: STORE_MESSAGES_URL="https://****@msg.example/v1" wins over the profile\'s URL in this shell; `unset STORE_MESSAGES_URL` to use it\n',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ currentProfile: 'staging' });
    // An empty one is unset: nothing said.
    const empty = setup({ STORE_BASE_URL: '' });
    expect((await run(['profile', 'use', 'staging'], { env: empty.env })).stderr).toBe(
      'Made staging the current profile\n',
    );
  });

  it('says nothing of an empty STORE_PROFILE, which is unset', async () => {
    const { env } = setup({ STORE_PROFILE: '' });
    expect((await run(['profile', 'use', 'staging'], { env })).stderr).toBe(
      'Made staging the current profile\n',
    );
  });

  it('says nothing more when STORE_PROFILE names the same profile', async () => {
    const { env } = setup({ STORE_PROFILE: 'staging' });
    expect((await run(['profile', 'use', 'staging'], { env })).stderr).toBe(
      'Made staging the current profile\n',
    );
  });

  it('says that -p applies to that command only', async () => {
    const { env, file } = setup();
    expect(await run(['-p', 'sandbox', 'profile', 'use', 'staging'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'Made staging the current profile\n' +
        'note: -p sandbox applies only to the command it is given with; commands without it use staging\n',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ currentProfile: 'staging' });
  });

  it('says nothing of -p when it names the profile made current', async () => {
    const { env } = setup();
    expect(await run(['-p', 'staging', 'profile', 'use', 'staging'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Made staging the current profile\n',
      prompts: [],
    });
  });

  it('prints one JSON object on stdout under --json, the note still on stderr', async () => {
    const { env } = setup({ STORE_PROFILE: 'staging' });
    expect(await run(['profile', 'use', 'production', '--json'], { env })).toEqual({
      code: 0,
      stdout: '{"profile":"production","current":true,"overriddenBy":"STORE_PROFILE"}\n',
      stderr:
        'note: STORE_PROFILE=staging wins in this shell; `unset STORE_PROFILE` to use production\n',
      prompts: [],
    });
    const plain = await run(['profile', 'use', 'sandbox', '--json'], { env: setup().env });
    expect(plain).toEqual({
      code: 0,
      stdout: '{"profile":"sandbox","current":true,"overriddenBy":null}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('shows a STORE_PROFILE value from outside as text', async () => {
    const { env } = setup({ STORE_PROFILE: 'x\u001b[31m' });
    expect((await run(['profile', 'use', 'production'], { env })).stderr).toBe(
      'Made production the current profile\n' +
        'note: STORE_PROFILE=x\\x1b[31m wins in this shell; `unset STORE_PROFILE` to use production\n',
    );
  });

  it('suggests the closest name for an unknown profile: exit 2, config unchanged', async () => {
    const { env, file } = setup();
    writeConfigFile(file, '{"currentProfile":"sandbox"}');
    expect(await run(['profile', 'use', 'stagin'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: unknown profile "stagin" (did you mean "staging"?)\nhint: see `store profile list`, or create it with `store profile set stagin --base-url <url>`\n',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ currentProfile: 'sandbox' });
  });
});
