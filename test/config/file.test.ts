import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { configDir } from '../../src/config/dir.js';
import { makeFolders } from '../../src/config/safe-fs.js';
import { afterThisTest } from '../helpers/cleanup.js';
import {
  baseEnv,
  readConfig,
  run,
  configSetup as setup,
  tempDir,
  writeConfigFile,
} from '../helpers/cli.js';
import { api, KEY, unexpected } from '../helpers/http.js';
import { processEnv, resourceProbe, store } from '../helpers/process.js';

const COMMANDS: [string, string[]][] = [
  ['profile list', ['profile', 'list']],
  ['pets list', ['pets', 'list']],
  ['auth status', ['auth', 'status']],
  ['auth token', ['auth', 'token']],
  ['auth logout', ['auth', 'logout']],
  ['profile use staging', ['profile', 'use', 'staging']],
  [
    'profile set x --base-url https://x.example/v1',
    ['profile', 'set', 'x', '--base-url', 'https://x.example/v1'],
  ],
  ['profile remove eu', ['profile', 'remove', 'eu']],
];

describe('a config file saved with a byte-order mark (Windows Notepad)', () => {
  it('is read as the JSON after the mark', async () => {
    const { env, file } = setup();
    writeConfigFile(file, '\uFEFF{"currentProfile":"staging","profiles":{}}');
    const result = await run(['profile', 'list', '--json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).find((p: { current: boolean }) => p.current).name).toBe(
      'staging',
    );
  });
});

describe('a config file that is not valid JSON', () => {
  it.each(COMMANDS)(
    'makes `store %s` exit 1 naming the file, and leaves it as it was',
    async (_name, argv) => {
      const { env, file } = setup({ STORE_API_KEY: KEY });
      const bytes = '{"currentProfile": "eu", "profiles": {"eu": {"baseUrl": "https://eu.exa';
      writeConfigFile(file, bytes);
      const result = await run(argv, { env });
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: config file ${file} is not valid JSON (line 1, column 72); fix or remove it\n`,
        prompts: [],
      });
      expect(readFileSync(file, 'utf8')).toBe(bytes);
      expect(unexpected).toEqual([]);
    },
  );

  it('fails auth login after the key was accepted without overwriting the file', async () => {
    const { env, file } = setup();
    writeConfigFile(file, 'not json');
    const result = await run(['auth', 'login', '--with-key', '--no-verify'], {
      env,
      stdin: 'new-key-0123456789\n',
    });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: config file ${file} is not valid JSON; fix or remove it\n`,
      prompts: [],
    });
    expect(readFileSync(file, 'utf8')).toBe('not json');
  });

  it('reports an empty file as not valid JSON', async () => {
    const { env, file } = setup();
    writeConfigFile(file, '');
    const result = await run(['profile', 'set', 'x', '--base-url', 'https://x.example/v1'], {
      env,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: config file ${file} is not valid JSON (it ends too soon); fix or remove it\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('never quotes the text around the fault: it may be a key', async () => {
    const { env, file } = setup();
    for (const text of [
      '{"profiles":{"x":{"apiKey":SECRETKEY-abcd-1234}}}',
      '{"profiles":{"x":{"apiKey":\'SECRETKEY-abcd-1234\'}}}',
      '{"profiles":{"x":{"apiKey":"SECRETKEY-abcd-1234"}},}',
    ]) {
      writeConfigFile(file, text);
      const result = await run(['pets', 'list'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^error: config file ${file} is not valid JSON`));
      expect(result.stderr).not.toContain('SECRET');
    }
  });

  it('reports it as one JSON line under --json', async () => {
    const { env, file } = setup();
    writeConfigFile(file, '{');
    const result = await run(['profile', 'list', '--json'], { env });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `${JSON.stringify({
        error: {
          code: 'config_error',
          message: `config file ${file} is not valid JSON (line 1, column 2); fix or remove it`,
          status: null,
        },
      })}\n`,
      prompts: [],
    });
  });
});

describe('a config file of the wrong shape', () => {
  it.each([
    ['{"profiles": 5}', 'profiles: Invalid input: expected record, received number'],
    ['{"currentProfile": 3}', 'currentProfile: Invalid input: expected string, received number'],
    [
      '{"profiles": {"eu": "https://eu.example.org/v1"}}',
      'profiles.eu: Invalid input: expected object, received string',
    ],
    [
      '{"profiles": {"eu": {"apiKey": 1234}}}',
      'profiles.eu.apiKey: Invalid input: expected string, received number',
    ],
    // Parsing would drop it, and the next write its key with it.
    [
      '{"profiles": {"__proto__": {"apiKey": "hand-written-key-1234"}, "work": {}}}',
      'profiles.__proto__: a profile cannot have that name',
    ],
  ])('%s: exits 1 naming the file, and is not overwritten', async (bytes, where) => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    writeConfigFile(file, bytes);
    const [at, ...rest] = where.split(': ');
    const stderr = `error: config file ${file} is invalid at ${at}: ${rest.join(': ')}; fix or remove it\n`;
    for (const argv of [
      ['profile', 'list'],
      ['pets', 'list'],
      ['profile', 'set', 'x', '--base-url', 'https://x.example/v1'],
    ]) {
      const result = await run(argv, { env });
      expect(result).toEqual({ code: 1, stdout: '', stderr, prompts: [] });
      expect(readFileSync(file, 'utf8')).toBe(bytes);
    }
    expect(unexpected).toEqual([]);
  });

  // JSON that is not an object at all: conf reads it as an empty store, so unless the CLI
  // checks, `profile set` replaces the user's file without a word.
  it.each([['[]'], ['null'], ['"production"'], ['5'], ['[{"profiles": {}}]']])(
    '%s: exits 1 naming the file, and is not overwritten',
    async (bytes) => {
      const { env, file } = setup();
      writeConfigFile(file, bytes);
      const list = await run(['profile', 'list'], { env });
      const set = await run(['profile', 'set', 'x', '--base-url', 'https://x.example/v1'], {
        env,
      });
      // One assertion, so a failure shows every difference at once.
      expect({
        listCode: list.code,
        listStdout: list.stdout,
        listNamesFile: list.stderr.startsWith(`error: config file ${file} `),
        setCode: set.code,
        fileAfterSet: readFileSync(file, 'utf8'),
      }).toEqual({
        listCode: 1,
        listStdout: '',
        listNamesFile: true,
        setCode: 1,
        fileAfterSet: bytes,
      });
    },
  );
});

describe('a config file written by hand', () => {
  const HAND_WRITTEN = `{
  "currentProfile": "eu",
  "editor": "vim",
  "profiles": {
    "eu": {
      "baseUrl": "https://eu.example.org/v1",
      "apiKey": "${KEY}",
      "note": "mine"
    }
  }
}
`;

  it('is read: its current user profile, URL and key are used', async () => {
    const { env, file } = setup();
    writeConfigFile(file, HAND_WRITTEN);
    const list = await run(['profile', 'list'], { env });
    expect(list).toEqual({
      code: 0,
      stdout:
        'CURRENT\tNAME\tBASE URL\tMESSAGES URL\tKEY\n' +
        '\tproduction\thttps://api.animal-store.example/v1\thttps://api.animal-store.example/v1\tnone\n' +
        '\tstaging\thttps://staging.api.animal-store.example/v1\thttps://staging.api.animal-store.example/v1\tnone\n' +
        '\tsandbox\thttp://127.0.0.1:4010/v1\thttp://127.0.0.1:4010/v1\tbuilt-in\n' +
        '*\teu\thttps://eu.example.org/v1\thttps://eu.example.org/v1\tstored\n',
      stderr: '',
      prompts: [],
    });
    const scope = api('https://eu.example.org', KEY).get('/v1/pets').reply(200, '[]');
    const pets = await run(['pets', 'list'], { env });
    expect(scope.isDone()).toBe(true);
    expect(pets).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n',
      stderr: '',
      prompts: [],
    });
    // Reading never rewrites the file.
    expect(readFileSync(file, 'utf8')).toBe(HAND_WRITTEN);
  });

  it('keeps the fields the CLI does not know when it writes the file', async () => {
    const { env, file } = setup();
    writeConfigFile(file, HAND_WRITTEN);
    const result = await run(
      ['profile', 'set', 'eu', '--messages-url', 'https://msg.example.org/v1'],
      {
        env,
      },
    );
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'Updated profile eu\n', prompts: [] });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toStrictEqual({
      currentProfile: 'eu',
      editor: 'vim',
      profiles: {
        eu: {
          baseUrl: 'https://eu.example.org/v1',
          apiKey: KEY,
          note: 'mine',
          messagesUrl: 'https://msg.example.org/v1',
        },
      },
    });
  });

  it('is not created by commands that only read it', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    api().get('/v1/pets').reply(200, '[]');
    expect((await run(['pets', 'list'], { env })).code).toBe(0);
    expect((await run(['profile', 'list'], { env })).code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    [0o644, '0644'],
    [0o640, '0640'],
  ])('is reported and rewritten with mode 0600 when it was mode %o', async (mode, shown) => {
    const { env, file } = setup();
    writeConfigFile(file, HAND_WRITTEN);
    chmodSync(file, mode);
    expect(await run(['profile', 'use', 'staging'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr: `warning: config file ${file} can be read by other users (mode ${shown}); run: chmod 600 ${file}\nMade staging the current profile\n`,
      prompts: [],
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ currentProfile: 'staging' });
  });
});

describe('where config.json lives', () => {
  it('follows XDG_CONFIG_HOME, else ~/.config/store; STORE_CONFIG_DIR wins over both', async () => {
    const home = tempDir();
    const xdg = tempDir();
    const use = (env: Record<string, string>) =>
      run(['profile', 'use', 'staging'], { env: { TERM: 'dumb', ...env } });
    expect((await use({ HOME: home, XDG_CONFIG_HOME: xdg })).code).toBe(0);
    expect(readConfig(join(xdg, 'store', 'config.json'))).toEqual({ currentProfile: 'staging' });
    expect(existsSync(join(home, '.config'))).toBe(false);
    expect((await use({ HOME: home })).code).toBe(0);
    expect(readConfig(join(home, '.config', 'store', 'config.json'))).toEqual({
      currentProfile: 'staging',
    });
    const own = join(tempDir(), 'own');
    expect((await use({ HOME: home, XDG_CONFIG_HOME: xdg, STORE_CONFIG_DIR: own })).code).toBe(0);
    expect(readConfig(join(own, 'config.json'))).toEqual({ currentProfile: 'staging' });
  });

  it('is ~/.config/store on macOS as on Linux (as gh), and the platform’s own folder on Windows', () => {
    const env = { HOME: '/Users/ann', APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' };
    expect(configDir(env, 'darwin')).toBe('/Users/ann/.config/store');
    expect(configDir({ ...env, XDG_CONFIG_HOME: '/xdg' }, 'darwin')).toBe('/xdg/store');
    expect(configDir(env, 'win32')).toBe(join(env.APPDATA, 'store', 'Config'));
    expect(configDir({ HOME: '/home/ann' }, 'linux')).toBe('/home/ann/.config/store');
    // Windows without APPDATA: its usual place under the home folder.
    expect(configDir({ HOME: '/Users/ann' }, 'win32')).toBe(
      join('/Users/ann', 'AppData', 'Roaming', 'store', 'Config'),
    );
  });
});

describe('the macOS config folder of an older store', () => {
  const OLD = ['Library', 'Preferences', 'store'];

  it('is moved once, whole, to ~/.config/store, which is then used', async () => {
    const home = tempDir();
    makeFolders(join(home, ...OLD), 0o700);
    writeFileSync(join(home, ...OLD, 'config.json'), '{"currentProfile":"staging"}\n', {
      mode: 0o600,
    });
    const moved = join(home, '.config', 'store');
    expect(configDir({ HOME: home }, 'darwin')).toBe(moved);
    expect(existsSync(join(home, ...OLD))).toBe(false);
    expect(readConfig(join(moved, 'config.json'))).toEqual({ currentProfile: 'staging' });
    expect(statSync(join(moved, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.config')).mode & 0o777).toBe(0o700);
    // A second start finds the new folder: nothing more moves.
    makeFolders(join(home, ...OLD), 0o700);
    expect(configDir({ HOME: home }, 'darwin')).toBe(moved);
    expect(existsSync(join(home, ...OLD))).toBe(true);
  });

  it('is moved to $XDG_CONFIG_HOME/store when that is set', () => {
    const home = tempDir();
    const xdg = join(tempDir(), 'xdg');
    makeFolders(join(home, ...OLD), 0o700);
    writeFileSync(join(home, ...OLD, 'config.json'), '{}\n');
    expect(configDir({ HOME: home, XDG_CONFIG_HOME: xdg }, 'darwin')).toBe(join(xdg, 'store'));
    expect(readConfig(join(xdg, 'store', 'config.json'))).toEqual({});
  });

  it('stays in use where it cannot be moved, and is left alone on Linux', () => {
    const home = tempDir();
    makeFolders(join(home, ...OLD), 0o700);
    // A file where the new folder's parent would be: the move fails, nothing is lost.
    writeFileSync(join(home, '.config'), '');
    expect(configDir({ HOME: home }, 'darwin')).toBe(join(home, ...OLD));
    expect(existsSync(join(home, ...OLD))).toBe(true);
    expect(configDir({ HOME: home }, 'linux')).toBe(join(home, '.config', 'store'));
    expect(existsSync(join(home, ...OLD))).toBe(true);
  });
});

describe('a home folder that cannot be told', () => {
  const os = process.getBuiltinModule('node:os');
  const MESSAGE = (set: string) =>
    `cannot tell where your config folder is (${set}, and this user has no home folder in the system's user database): set HOME, or STORE_CONFIG_DIR to the folder for config.json`;

  it('is never the current folder: an empty or relative HOME means the user database’s home', () => {
    const home = os.userInfo().homedir;
    expect(configDir({ HOME: '' }, 'linux')).toBe(join(home, '.config', 'store'));
    expect(configDir({ HOME: 'ann' }, 'linux')).toBe(join(home, '.config', 'store'));
    expect(configDir({ HOME: '' }, 'darwin')).toBe(join(home, '.config', 'store'));
  });

  it('refuses a relative STORE_CONFIG_DIR: the key would go to whatever folder store runs from', async () => {
    const message =
      'STORE_CONFIG_DIR must be a full path (got "cfg"): relative, store would keep its config and keys in whatever folder it runs from';
    expect(() => configDir({ STORE_CONFIG_DIR: 'cfg' }, 'linux')).toThrow(message);
    expect(configDir({ STORE_CONFIG_DIR: '/etc/store' }, 'linux')).toBe('/etc/store');
    const dir = tempDir();
    const result = await run(['auth', 'login', '--with-key', '--no-verify'], {
      env: { STORE_CONFIG_DIR: 'cfg', HOME: dir },
      stdin: 'a-key-0123456789',
    });
    expect(result).toEqual({ code: 1, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
    expect(existsSync(join(process.cwd(), 'cfg'))).toBe(false);
  });

  it('ignores a relative XDG_CONFIG_HOME, as the XDG specification says', () => {
    expect(configDir({ HOME: '/home/ann', XDG_CONFIG_HOME: 'cfg' }, 'linux')).toBe(
      '/home/ann/.config/store',
    );
    expect(configDir({ HOME: '/home/ann', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/xdg/store');
  });

  it('with no HOME and no entry in the user database, is a one-line error, exit 1, nothing sent', async () => {
    const userInfo = vi.spyOn(os, 'userInfo').mockImplementation(() => {
      throw new Error('uv_os_homedir returned ENOENT');
    });
    afterThisTest(() => userInfo.mockRestore());
    expect(() => configDir({ HOME: '' }, 'linux')).toThrow(MESSAGE('HOME is ""'));
    // Needed only where it is used: an absolute XDG_CONFIG_HOME or APPDATA does without it.
    expect(configDir({ XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/xdg/store');
    expect(configDir({ APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' }, 'win32')).toBe(
      join('C:\\Users\\ann\\AppData\\Roaming', 'store', 'Config'),
    );
    // A relative APPDATA is no place for the key either.
    expect(configDir({ HOME: '/home/ann', APPDATA: 'roaming' }, 'win32')).toBe(
      join('/home/ann', 'AppData', 'Roaming', 'store', 'Config'),
    );
    // The URL and key from the environment: the current profile is still the config's to say.
    const env = { TERM: 'dumb', STORE_BASE_URL: 'https://api.example.test/v1', STORE_API_KEY: KEY };
    const result = await run(['pets', 'list'], { env });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${MESSAGE('HOME is not set')}\n`,
      prompts: [],
    });
    expect(await run(['profile', 'list', '--json'], { env })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `${JSON.stringify({ error: { code: 'config_error', message: MESSAGE('HOME is not set'), status: null } })}\n`,
    });
  });
});

describe('a config folder that cannot be made', () => {
  it.runIf(existsSync('/proc/self'))(
    'exits 1 where its parent exists and it still cannot be made (under /proc): no endless loop',
    async () => {
      // mkdirSync's `recursive` loops at full CPU there, forever: the command never ended.
      const dir = '/proc/store-test/store';
      const result = await run(['profile', 'use', 'staging'], {
        env: baseEnv({ STORE_CONFIG_DIR: dir }),
      });
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: cannot write config file ${dir}/config.json: no such file or directory\n`,
        prompts: [],
      });
    },
  );

  it('makes the missing folders 0700, takes an existing folder, and refuses a file in the way', () => {
    const root = tempDir();
    const dir = join(root, 'a', 'b', 'c');
    makeFolders(dir, 0o700);
    makeFolders(dir, 0o700);
    for (const made of [join(root, 'a'), join(root, 'a', 'b'), dir]) {
      expect(statSync(made).mode & 0o777).toBe(0o700);
    }
    writeFileSync(join(root, 'file'), '');
    expect(() => makeFolders(join(root, 'file'), 0o700)).toThrow(/EEXIST/);
    expect(() => makeFolders(join(root, 'file', 'd'), 0o700)).toThrow(/ENOTDIR/);
  });
});

describe('a config file that cannot be read', () => {
  it('exits 1 naming the file (here a folder stands where config.json should be)', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    mkdirSync(file);
    const result = await run(['pets', 'list'], { env });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: config file ${file} is a directory, not a regular file; remove it\n`,
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it('exits 1 naming the file and the system error when its folder is a file (ENOTDIR)', async () => {
    const blocker = join(tempDir(), 'not-a-folder');
    writeFileSync(blocker, '');
    const dir = join(blocker, 'store');
    const result = await run(['profile', 'list'], { env: baseEnv({ STORE_CONFIG_DIR: dir }) });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: config file ${dir}/config.json cannot be read (not a directory); fix or remove it\n`,
      prompts: [],
    });
  });
});

describe('a base URL with a query, a fragment or a password', () => {
  it.each([
    [
      'a query',
      'https://x.example/v1?x=1',
      'must not have a query (?) or a fragment (#): "https://x.example/v1?…"',
    ],
    [
      'a query that carries a token',
      'https://x.example/v1?api_key=k-secret-98765',
      'must not have a query (?) or a fragment (#): "https://x.example/v1?…"',
    ],
    [
      'an empty query',
      'https://x.example/v1?',
      'must not have a query (?) or a fragment (#): "https://x.example/v1?…"',
    ],
    [
      'a fragment',
      'https://x.example/v1#frag',
      'must not have a query (?) or a fragment (#): "https://x.example/v1#…"',
    ],
    [
      'a password',
      'https://me:hunter2@x.example/v1',
      'must not contain a user name or password: "x.example"',
    ],
    [
      'a password without a user name',
      'https://:hunter2@x.example/v1',
      'must not contain a user name or password: "x.example"',
    ],
    // Refused for something else, the password was shown whole.
    [
      'a password and a query',
      'https://alice:s3cret@x.example/v1?x=1',
      'must not have a query (?) or a fragment (#): "https://****@x.example/v1?…"',
    ],
    [
      'a password and another scheme',
      'ftp://alice:s3cret@x.example/v1',
      'must be an http:// or https:// URL: "ftp://****@x.example/v1"',
    ],
    [
      'a password with a space in it',
      'https://alice:s3 cret@x.example/v1',
      'must not contain control characters or white space: "https://****@x.example/v1"',
    ],
    [
      'a password and a port out of range',
      'https://alice:s3cret@x.example:99999/v1',
      'is not a valid URL: "https://****@x.example:99999/v1"',
    ],
  ])('with %s: refused by profile set with exit 2, nothing written', async (_what, url, why) => {
    const { env, file } = setup();
    for (const flag of ['--base-url', '--messages-url']) {
      expect(await run(['profile', 'set', 'production', flag, url], { env })).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${flag} ${why}\n`,
        prompts: [],
      });
    }
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    [['pets', 'list']],
    // STORE_BASE_URL moves the messages URL along: still named as the variable it came from.
    [['messages', 'send', 'hi']],
  ])(
    'in STORE_BASE_URL: refused with exit 2 naming the variable; nothing is sent (%j)',
    async (argv) => {
      const { env } = setup({ STORE_API_KEY: KEY, STORE_BASE_URL: 'https://x.example/v1?x=1' });
      expect(await run(argv, { env })).toEqual({
        code: 2,
        stdout: '',
        stderr:
          'error: STORE_BASE_URL must not have a query (?) or a fragment (#): "https://x.example/v1?…"\n',
        prompts: [],
      });
      expect(unexpected).toEqual([]);
    },
  );

  it('in a messages URL of config.json: refused naming the profile and that URL', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    const eu = { baseUrl: 'https://eu.example/v1', messagesUrl: 'https://m.eu.example/v1?x' };
    writeConfigFile(file, JSON.stringify({ profiles: { eu } }));
    expect(await run(['-p', 'eu', 'messages', 'send', 'hi'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: the messages URL of profile eu must not have a query (?) or a fragment (#): "https://m.eu.example/v1?…"\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it('in a profile of config.json: refused with exit 2 naming the profile; nothing is sent', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    writeConfigFile(
      file,
      JSON.stringify({ profiles: { eu: { baseUrl: 'https://eu.example/v1#top' } } }),
    );
    expect(await run(['-p', 'eu', 'pets', 'list'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: the base URL of profile eu must not have a query (?) or a fragment (#): "https://eu.example/v1#…"\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });
});

describe('a URL with control characters or white space', () => {
  it('is refused by profile set with exit 2, and nothing is written', async () => {
    const { env, file } = setup();
    for (const flag of ['--base-url', '--messages-url']) {
      const result = await run(
        ['profile', 'set', 'production', flag, 'https://x.example/v1\u001b]0;pwned\u0007'],
        { env },
      );
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${flag} must not contain control characters or white space: "https://x.example/v1\\u001b]0;pwned\\u0007"\n`,
        prompts: [],
      });
    }
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ['STORE_BASE_URL', 'STORE_BASE_URL'],
    ['STORE_MESSAGES_URL', 'STORE_MESSAGES_URL'],
  ])('in %s is refused with exit 2, and nothing is sent', async (variable, what) => {
    const { env } = setup({ STORE_API_KEY: KEY, [variable]: 'https://x.example/v1 \r\n' });
    const result = await run(['pets', 'list'], { env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${what} must not contain control characters or white space: "https://x.example/v1 \\r\\n"\n`,
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });
});

describe('a config file past the limits', () => {
  it('nested 100,000 levels deep (an unknown key): one clear line, exit 1, the file intact', async () => {
    // The copy and write of `profile set` recursed: "Maximum call stack size exceeded".
    const { env, file } = setup();
    const text = `{"currentProfile":"staging","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    writeConfigFile(file, text);
    const error = `error: config file ${file} is invalid: it nests more than 1000 levels deep; fix or remove it\n`;
    for (const argv of [
      ['profile', 'set', 'mine', '--base-url', 'https://x.example/v1'],
      ['profile', 'list'],
    ]) {
      expect(await run(argv, { env })).toEqual({ code: 1, stdout: '', stderr: error, prompts: [] });
    }
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('nested within the limit: kept as it is when the file is written', async () => {
    const { env, file } = setup();
    const deep = `${'['.repeat(999)}${']'.repeat(999)}`;
    writeConfigFile(file, `{"x":${deep}}`);
    const result = await run(['profile', 'set', 'mine', '--base-url', 'https://x.example/v1'], {
      env,
    });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(readConfig(file)).toEqual({
      x: JSON.parse(deep),
      profiles: { mine: { baseUrl: 'https://x.example/v1' } },
    });
  });

  it('larger than 32 MiB: one clear line, exit 1, not read', async () => {
    const { env, file } = setup();
    writeConfigFile(file, `{"x":"${'a'.repeat(32 * 1024 * 1024)}"}`);
    expect(await run(['profile', 'list'], { env })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: config file ${file} is larger than 32 MiB; fix or remove it\n`,
      prompts: [],
    });
  });

  it('of 300,000 profiles is listed whole, in time linear in the profiles', async () => {
    // Each name was looked for in the list of the names before it, and the environment was
    // copied for each profile: minutes of CPU.
    const { env, file } = setup();
    const profiles: Record<string, { baseUrl: string }> = {};
    for (let i = 0; i < 300_000; i += 1)
      profiles[`p${i}`] = { baseUrl: `http://127.0.0.1:9/v${i}` };
    writeConfigFile(file, JSON.stringify({ currentProfile: 'p7', profiles }));
    const probe = resourceProbe();
    const result = await store(['profile', 'list'], {
      env: processEnv({ STORE_CONFIG_DIR: env.STORE_CONFIG_DIR as string }),
      nodeArgs: ['--import', probe.url],
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines).toHaveLength(1 + 3 + 300_000 + 1);
    expect(lines[4 + 7]).toBe('*\tp7\thttp://127.0.0.1:9/v7\thttp://127.0.0.1:9/v7\tnone');
    expect(lines.at(-2)).toBe(
      '\tp299999\thttp://127.0.0.1:9/v299999\thttp://127.0.0.1:9/v299999\tnone',
    );
    // Linear work is about 2.5 s of CPU; the quadratic one was minutes.
    expect(probe.cpuSeconds()).toBeLessThan(10);
  }, 120_000);
});
