// Where the key is kept (src/config/key-store.ts), command by command, with a keyring that
// stands for the system's: one that works, and one missing, locked or failing. The real
// Secret Service is test/e2e/keyring.test.ts's.
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigFile } from '../../../src/config/file.js';
import { type KeyringLoader, keyringFailure, saveKey } from '../../../src/config/key-store.js';
import { readConfig, run, configSetup as setup, writeConfigFile } from '../../helpers/cli.js';
import { faultServer, reply } from '../../helpers/fault-server.js';
import { api, KEY, unexpected } from '../../helpers/http.js';
import {
  accountIn,
  failingKeyring,
  lockedKeyring,
  memoryKeyring,
  missingKeyring,
  newAccount,
} from '../../helpers/keyring.js';

const NEW_KEY = 'new-key-0123456789';
const LOGIN = ['auth', 'login', '--with-key', '--no-verify'];
const NO_DBUS =
  'Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled at compile time, set your DBUS_SESSION_BUS_ADDRESS instead';

/** A config whose production key is in the keyring (under `account`, or the older layout's
 * account: the profile's name). */
function inKeyring(file: string, account?: string) {
  const production = { keyStorage: 'keyring', ...(account && { keyringAccount: account }) };
  writeConfigFile(file, JSON.stringify({ profiles: { production } }));
}

describe('auth login: the keyring, or the file with one warning line', () => {
  it('stores the key in the keyring, one entry per profile, and none in config.json', async () => {
    const { env, file } = setup();
    const keyring = memoryKeyring({ staging: 'staging-key-1111' });
    const result = await run(LOGIN, { env, stdin: NEW_KEY, keyring: keyring.load });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Saved key ****6789 for profile production without checking it\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({
      profiles: { production: { keyStorage: 'keyring', keyringAccount: newAccount('production') } },
    });
    expect(Object.fromEntries(keyring.entries)).toEqual({
      [accountIn(file, 'production')]: NEW_KEY,
      staging: 'staging-key-1111',
    });
  });

  it.each([
    ['the library is missing', missingKeyring, 'no keyring library for sunos-sparc is installed'],
    ['there is no D-Bus session', failingKeyring(NO_DBUS), 'no D-Bus session'],
    ['the keyring is locked (a prompt dismissed)', lockedKeyring(), 'it is locked'],
    ['the keyring refuses', failingKeyring('Access denied'), 'Access denied'],
  ])(
    'saves to config.json (0600) when %s, and says so in one line naming the file',
    async (_what, keyring, why) => {
      const { env, file } = setup();
      for (let i = 0; i < 2; i++) {
        // Every time it writes the file, not once.
        const result = await run(LOGIN, { env, stdin: NEW_KEY, keyring });
        expect(result).toEqual({
          code: 0,
          stdout: '',
          stderr:
            `warning: the system keyring cannot be used (${why}); the key is stored in plain text in ${file}\n` +
            'Saved key ****6789 for profile production without checking it\n',
          prompts: [],
        });
      }
      expect(readConfig(file)).toStrictEqual({ profiles: { production: { apiKey: NEW_KEY } } });
      expect(statSync(file).mode & 0o777).toBe(0o600);
    },
  );

  it('--insecure-storage saves to config.json without the warning and without asking the keyring', async () => {
    const { env, file } = setup();
    const keyring = memoryKeyring();
    const result = await run([...LOGIN, '--insecure-storage', '--json'], {
      env,
      stdin: NEW_KEY,
      keyring: keyring.load,
    });
    expect(result).toEqual({
      code: 0,
      stdout: '{"profile":"production","key":"****6789","verified":false,"keyStorage":"file"}\n',
      stderr: '',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: { production: { apiKey: NEW_KEY } } });
    expect(keyring.calls).toEqual([]);
  });

  it('--insecure-storage over a key in the keyring moves it to the file and removes the entry', async () => {
    const { env, file } = setup();
    inKeyring(file);
    const keyring = memoryKeyring({ production: 'old-key-22223333' });
    const result = await run([...LOGIN, '--insecure-storage'], {
      env,
      stdin: NEW_KEY,
      keyring: keyring.load,
    });
    expect(result.stderr).toBe('Saved key ****6789 for profile production without checking it\n');
    expect(readConfig(file)).toStrictEqual({ profiles: { production: { apiKey: NEW_KEY } } });
    expect(keyring.entries).toEqual(new Map());
  });

  it.each([
    [
      '--insecure-storage when the old entry cannot be removed: one warning line naming it',
      ['--insecure-storage'],
      lockedKeyring(),
      '',
      'it is locked',
    ],
    [
      'a login that falls back to the file over a key in the keyring says the old entry stays',
      [],
      failingKeyring(NO_DBUS),
      'warning: the system keyring cannot be used (no D-Bus session); the key is stored in plain text in FILE\n',
      'no D-Bus session',
    ],
  ])('%s', async (_what, flags, keyring, fallback, why) => {
    const { env, file } = setup();
    inKeyring(file, 'production-1');
    const result = await run([...LOGIN, ...flags], { env, stdin: NEW_KEY, keyring });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        fallback.replace('FILE', file) +
        `warning: the old key of profile production stays in the system keyring (${why}): service "store", account "production-1"\n` +
        'Saved key ****6789 for profile production without checking it\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: { production: { apiKey: NEW_KEY } } });
  });

  it('a key moved to an account of its own removes the old entry under the profile name', async () => {
    const { env, file } = setup();
    inKeyring(file);
    const keyring = memoryKeyring({ production: 'old-key-22223333' });
    const result = await run(LOGIN, { env, stdin: NEW_KEY, keyring: keyring.load });
    expect(result.stderr).toBe('Saved key ****6789 for profile production without checking it\n');
    const account = accountIn(file, 'production');
    expect(keyring.calls).toEqual([`set ${account}`, 'delete production']);
    expect(Object.fromEntries(keyring.entries)).toEqual({ [account]: NEW_KEY });
  });

  it('moves a key kept in config.json into the keyring at the next login (migration)', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({
        profiles: { production: { apiKey: KEY }, eu: { baseUrl: 'https://eu.example/v1' } },
      }),
    );
    const keyring = memoryKeyring();
    // The old key still works until then.
    api().get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const before = await run(['auth', 'status', '--json'], { env, keyring: keyring.load });
    expect(JSON.parse(before.stdout)).toMatchObject({ keyStorage: 'file', valid: true });
    expect(keyring.calls).toEqual([]);

    const result = await run(LOGIN, { env, stdin: NEW_KEY, keyring: keyring.load });
    expect(result.code).toBe(0);
    expect(readConfig(file)).toStrictEqual({
      profiles: {
        production: { keyStorage: 'keyring', keyringAccount: newAccount('production') },
        eu: { baseUrl: 'https://eu.example/v1' },
      },
    });
    expect(JSON.stringify(readConfig(file))).not.toContain(KEY);
    expect(Object.fromEntries(keyring.entries)).toEqual({
      [accountIn(file, 'production')]: NEW_KEY,
    });
  });

  it('puts the keyring back as it was when config.json is not written (profile removed meanwhile)', async () => {
    const { env, file } = setup();
    const server = await faultServer((_req, res) => {
      // `store profile remove eu` in another shell, while the key is checked.
      writeConfigFile(file, JSON.stringify({ profiles: {} }));
      reply(res, 200, '[]');
    });
    writeConfigFile(
      file,
      JSON.stringify({
        profiles: { eu: { baseUrl: server.url, keyStorage: 'keyring', keyringAccount: 'eu-1' } },
      }),
    );
    const keyring = memoryKeyring({ 'eu-1': 'old-key-22223333' });
    const result = await run(['-p', 'eu', 'auth', 'login', '--with-key'], {
      env,
      stdin: NEW_KEY,
      keyring: keyring.load,
    });
    expect(result.stderr).toBe('error: profile eu was removed meanwhile; nothing was saved\n');
    expect(keyring.calls).toEqual(['get eu-1', 'set eu-1', 'set eu-1']);
    expect(Object.fromEntries(keyring.entries)).toEqual({ 'eu-1': 'old-key-22223333' });
  });
});

describe('two logins to one profile at once', () => {
  it('leave one entry in the keyring, the one config.json names', async () => {
    const { dir, file } = setup();
    writeConfigFile(file, '{"profiles":{"work":{"baseUrl":"https://api.example/v1"}}}');
    const keyring = memoryKeyring();
    // Both logins have stored their key before either records it in config.json.
    let stored = 0;
    let bothStored: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      bothStored = resolve;
    });
    const racing: KeyringLoader = async () => {
      const inner = await keyring.load();
      return {
        ...inner,
        set: async (account, key) => {
          await inner.set(account, key);
          if (++stored === 2) bothStored();
          await both;
        },
      };
    };
    const login = async (key: string) =>
      saveKey(await ConfigFile.open(dir), 'work', key, racing, { insecure: false });
    const results = await Promise.all([login('first-key-01234567'), login('second-key-0123456')]);
    expect(results.map((r) => r.storage)).toEqual(['keyring', 'keyring']);
    const account = accountIn(file, 'work');
    // The entry of the login config.json no longer names was removed, not left unreachable.
    expect([...keyring.entries.keys()]).toEqual([account]);
  });
});

describe('commands that send the key read it from the keyring', () => {
  it('pets list sends the key kept in the keyring', async () => {
    const { env, file } = setup();
    inKeyring(file);
    const keyring = memoryKeyring({ production: KEY });
    const scope = api().get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list', '--json'], { env, keyring: keyring.load });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
    expect(keyring.calls).toEqual(['get production']);
  });

  it('STORE_API_KEY wins, and the keyring is not even asked', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    inKeyring(file);
    const keyring = memoryKeyring({ production: 'stored-key-00001111' });
    api().get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list', '--json'], { env, keyring: keyring.load });
    expect(result.code).toBe(0);
    expect(keyring.calls).toEqual([]);
  });

  it.each([
    ['is gone (deleted by hand)', memoryKeyring().load],
    ['is gone while others stay', memoryKeyring({ staging: KEY }).load],
  ])(
    'a keyring entry that %s: exit 4 with a hint to log in again, nothing sent',
    async (_what, keyring) => {
      const { env, file } = setup();
      inKeyring(file);
      const result = await run(['pets', 'list'], { env, keyring });
      expect(result).toEqual({
        code: 4,
        stdout: '',
        stderr:
          'error: the key of profile production is no longer in the system keyring\n' +
          'hint: run `store auth login` to store it again (or unlock the keyring, if it is locked)\n',
        prompts: [],
      });
      expect(unexpected).toEqual([]);
    },
  );

  it('a keyring that cannot be read (no D-Bus, no library, locked): exit 4 with why, never a stack trace', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({
        profiles: { eu: { baseUrl: 'https://eu.example/v1', keyStorage: 'keyring' } },
      }),
    );
    for (const [keyring, why] of [
      [failingKeyring(NO_DBUS), 'no D-Bus session'],
      [missingKeyring, 'no keyring library for sunos-sparc is installed'],
      [lockedKeyring(), 'it is locked'],
    ] as const) {
      const result = await run(['-p', 'eu', 'auth', 'token'], { env, keyring });
      expect(result).toEqual({
        code: 4,
        stdout: '',
        stderr:
          `error: cannot read the key of profile eu from the system keyring (${why})\n` +
          'hint: unlock the keyring, or run `store -p eu auth login` to store the key again\n',
        prompts: [],
      });
    }
  });

  it('auth token prints the key from the keyring, and from the file', async () => {
    const { env, file } = setup();
    inKeyring(file);
    const keyring = memoryKeyring({ production: KEY });
    const fromKeyring = await run(['auth', 'token', '--json'], { env, keyring: keyring.load });
    expect(fromKeyring).toEqual({
      code: 0,
      stdout: `{"profile":"production","keySource":"config","keyStorage":"keyring","key":"${KEY}"}\n`,
      stderr: '',
      prompts: [],
    });
    writeConfigFile(file, JSON.stringify({ profiles: { production: { apiKey: NEW_KEY } } }));
    const fromFile = await run(['auth', 'token'], { env, keyring: keyring.load });
    expect(fromFile).toEqual({ code: 0, stdout: `${NEW_KEY}\n`, stderr: '', prompts: [] });
  });
});

describe('auth status says where the key is', () => {
  it('keyring: in the text and as "keyStorage" in --json', async () => {
    const { env, file } = setup({ NO_COLOR: '1' });
    inKeyring(file);
    const keyring = memoryKeyring({ production: KEY });
    api().get('/v1/pets').query({ limit: '1' }).times(2).reply(200, '[]');
    const text = await run(['auth', 'status'], { env, tty: true, keyring: keyring.load });
    expect(text.stdout).toBe(
      'profile  production\n' +
        'base URL https://api.animal-store.example/v1 (from profile)\n' +
        'key      ****wxyz (in the system keyring)\n' +
        'valid    yes\n',
    );
    const json = await run(['auth', 'status', '--json'], { env, keyring: keyring.load });
    expect(json.stdout).toBe(
      '{"profile":"production","baseUrl":"https://api.animal-store.example/v1","baseUrlSource":"profile","keySource":"config","keyStorage":"keyring","key":"****wxyz","valid":true}\n',
    );
  });

  it('an entry that is gone: what is known, then exit 4 with the hint, nothing sent', async () => {
    const { env, file } = setup();
    inKeyring(file);
    const result = await run(['auth', 'status', '--json'], { env, keyring: memoryKeyring().load });
    expect(result).toEqual({
      code: 4,
      stdout:
        '{"profile":"production","baseUrl":"https://api.animal-store.example/v1","baseUrlSource":"profile","keySource":"config","keyStorage":"keyring","key":null,"valid":false}\n',
      stderr:
        '{"error":{"code":"unauthenticated","message":"the key of profile production is no longer in the system keyring","status":null,"hint":"run `store auth login` to store it again (or unlock the keyring, if it is locked)"}}\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });
});

describe('auth logout and profile remove take the key from wherever it is', () => {
  it('logout removes the keyring entry and a copy left in the file (both)', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({ profiles: { production: { keyStorage: 'keyring', apiKey: 'left-0000' } } }),
    );
    const keyring = memoryKeyring({ production: KEY, staging: 'staging-key-1111' });
    const result = await run(['auth', 'logout'], { env, keyring: keyring.load });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged out of profile production\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: {} });
    expect(Object.fromEntries(keyring.entries)).toEqual({ staging: 'staging-key-1111' });
  });

  it('logout of an entry already gone still forgets it', async () => {
    const { env, file } = setup();
    inKeyring(file);
    const result = await run(['auth', 'logout'], { env, keyring: memoryKeyring().load });
    expect(result.stderr).toBe('Logged out of profile production\n');
    expect(readConfig(file)).toStrictEqual({ profiles: {} });
  });

  it('logout with the keyring out of reach: exit 1, nothing changed, so status still says where it is', async () => {
    const { env, file } = setup();
    inKeyring(file);
    const result = await run(['auth', 'logout'], { env, keyring: failingKeyring(NO_DBUS) });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: cannot remove the key of profile production from the system keyring (no D-Bus session); nothing was changed\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({ profiles: { production: { keyStorage: 'keyring' } } });
  });

  it('logout never asks the keyring for a key kept in the file', async () => {
    const { env, file } = setup();
    writeConfigFile(file, JSON.stringify({ profiles: { production: { apiKey: KEY } } }));
    const keyring = memoryKeyring();
    const result = await run(['auth', 'logout'], { env, keyring: keyring.load });
    expect(result.stderr).toBe('Logged out of profile production\n');
    expect(readConfig(file)).toStrictEqual({ profiles: {} });
    expect(keyring.calls).toEqual([]);
  });

  it('profile remove takes the keyring entry with the profile; profile list counts it as stored', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({
        profiles: { eu: { baseUrl: 'https://eu.example/v1', keyStorage: 'keyring' } },
      }),
    );
    const keyring = memoryKeyring({ eu: KEY });
    const listed = await run(['profile', 'list', '--json'], { env, keyring: keyring.load });
    expect(JSON.parse(listed.stdout).find((p: { name: string }) => p.name === 'eu')).toMatchObject({
      hasKey: true,
    });
    const result = await run(['profile', 'remove', 'eu'], { env, keyring: keyring.load });
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'Removed profile eu\n', prompts: [] });
    expect(keyring.entries).toEqual(new Map());
  });

  it('profile remove says where the entry stays when the keyring cannot be reached', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({
        profiles: { eu: { baseUrl: 'https://eu.example/v1', keyStorage: 'keyring' } },
      }),
    );
    const result = await run(['profile', 'remove', 'eu'], {
      env,
      keyring: failingKeyring(NO_DBUS),
    });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'Removed profile eu\n' +
        'warning: the key of profile eu stays in the system keyring (no D-Bus session): service "store", account "eu"\n',
      prompts: [],
    });
  });
});

describe('keyringFailure', () => {
  it.each([
    [NO_DBUS, 'no D-Bus session'],
    [
      "Couldn't access platform storage: Secret Service: unlock prompt was dismissed",
      'it is locked',
    ],
    ['The collection is locked', 'it is locked'],
    ['Access\n  denied', 'Access denied'],
  ])('says %j in a few words', (message, said) => {
    expect(keyringFailure(new Error(message))).toBe(said);
  });
});
