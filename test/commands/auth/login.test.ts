import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/main.js';
import {
  closedPort,
  readConfig,
  run,
  configSetup as setup,
  testIO,
  writeConfigFile,
} from '../../helpers/cli.js';
import { faultServer, reply } from '../../helpers/fault-server.js';
import { API, api, KEY, STAGING, unexpected } from '../../helpers/http.js';
import { accountIn, newAccount, testKeyring } from '../../helpers/keyring.js';

const NEW_KEY = 'new-key-0123456789';
const PET_PAGE = '[{"id":1,"name":"Rex","categoryId":2,"status":"available"}]';

describe('store auth login --with-key, refused before anything is sent or saved (exit 2)', () => {
  it.each([
    ['over 64 KiB (a file piped by mistake)', Buffer.alloc(64 * 1024 + 1, 'k'), 'over 64 KiB'],
    ['not UTF-8', Buffer.from('key-\xe9-0123456789', 'latin1'), 'not UTF-8 text'],
  ])('a key on stdin %s', async (_what, stdin, said) => {
    const { env, file } = setup();
    const result = await run(['auth', 'login', '--with-key'], { env, stdin });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: the key on stdin is ${said}; nothing was saved\n`,
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });
});

describe('store auth login', () => {
  it('reads the key from stdin, checks it with one GET /pets?limit=1 and saves it (0600 in a 0700 folder)', async () => {
    const { dir, env, file } = setup({ STORE_API_KEY: KEY }, true);
    expect(existsSync(dir)).toBe(false);
    const scope = api(API, NEW_KEY).get('/v1/pets').query({ limit: '1' }).reply(200, PET_PAGE);
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: `${NEW_KEY}\n` });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      // STORE_API_KEY is set in this test: the login says it still wins.
      stderr:
        'Logged in to profile production with key ****6789\n' +
        'note: STORE_API_KEY is set, and wins over the stored key while it is\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({
      profiles: { production: { keyStorage: 'keyring', keyringAccount: newAccount('production') } },
    });
    expect(Object.fromEntries(testKeyring().entries)).toEqual({
      [accountIn(file, 'production')]: NEW_KEY,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('keeps the other settings of the profile and of the config when it saves the key', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({
        currentProfile: 'eu',
        profiles: {
          eu: { baseUrl: 'https://eu.example.org/v1', apiKey: 'old-key-99998888' },
          production: { apiKey: 'prod-key-12345678' },
        },
      }),
    );
    const scope = api('https://eu.example.org', NEW_KEY)
      .get('/v1/pets')
      .query({ limit: '1' })
      .reply(200, '[]');
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: NEW_KEY });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile eu with key ****6789\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({
      currentProfile: 'eu',
      profiles: {
        // The key it held is moved to the keyring: none is left in the file.
        eu: {
          baseUrl: 'https://eu.example.org/v1',
          keyStorage: 'keyring',
          keyringAccount: newAccount('eu'),
        },
        production: { apiKey: 'prod-key-12345678' },
      },
    });
    expect(Object.fromEntries(testKeyring().entries)).toEqual({ [accountIn(file, 'eu')]: NEW_KEY });
  });

  it.each([
    [401, 'unauthorized'],
    [403, 'forbidden'],
  ])('exits 4 and saves nothing when the API answers %i', async (status, code) => {
    const { env, file } = setup();
    const scope = api(API, NEW_KEY)
      .get('/v1/pets')
      .query({ limit: '1' })
      .reply(status, { code, message: 'Key revoked on 2026-12-01 by admin', status });
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: `${NEW_KEY}\n` });
    expect(scope.isDone()).toBe(true);
    // The service's words, code and status, as for any answer; store's on the hint line.
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        `error: Key revoked on 2026-12-01 by admin (${code}, HTTP ${status})\n` +
        'hint: the API rejected this key; nothing was saved\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('leaves an existing config byte for byte as it was when the key is rejected', async () => {
    const { env, file } = setup();
    const before = '{"profiles":{"production":{"apiKey":"old-key-99998888"}}}';
    writeConfigFile(file, before);
    api(API, NEW_KEY)
      .get('/v1/pets')
      .query({ limit: '1' })
      .reply(401, { code: 'unauthorized', message: 'bad key', status: 401 });
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: NEW_KEY });
    expect(result.code).toBe(4);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('exits 6 and saves nothing when the API cannot be reached', async () => {
    const port = await closedPort();
    const { env, file } = setup({ STORE_BASE_URL: `http://127.0.0.1:${port}/v1` });
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: `${NEW_KEY}\n` });
    expect(result).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: cannot reach 127.0.0.1:${port}: connection refused (after 3 attempts)\nhint: nothing was saved (--no-verify saves the key without checking it)\n`,
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('saves nothing when the profile was removed while its key was being checked', async () => {
    const { env, file } = setup();
    const server = await faultServer((_req, res) => {
      // `store profile remove eu` in another shell, meanwhile.
      writeConfigFile(file, JSON.stringify({ profiles: {} }));
      reply(res, 200, '[]');
    });
    writeConfigFile(file, JSON.stringify({ profiles: { eu: { baseUrl: server.url } } }));
    const result = await run(['-p', 'eu', 'auth', 'login', '--with-key'], {
      env,
      stdin: `${NEW_KEY}\n`,
    });
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/pets?limit=1']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: profile eu was removed meanwhile; nothing was saved\n',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ profiles: {} });
    // The keyring was written first, and put back as it was.
    expect(testKeyring().entries).toEqual(new Map());
    const account = testKeyring().calls[0]?.slice('set '.length);
    expect(account).toEqual(newAccount('eu'));
    expect(testKeyring().calls).toEqual([`set ${account}`, `delete ${account}`]);
  });

  it.each([
    ['a newline', `${NEW_KEY}\n`],
    ['CRLF and blanks around it (a file saved on Windows)', `  ${NEW_KEY}\r\n`],
  ])(
    'saves without any request under --no-verify; stdin with %s is the key',
    async (_what, stdin) => {
      const { env, file } = setup();
      const result = await run(['auth', 'login', '--with-key', '--no-verify'], { env, stdin });
      expect(result).toEqual({
        code: 0,
        stdout: '',
        stderr: 'Saved key ****6789 for profile production without checking it\n',
        prompts: [],
      });
      expect(readConfig(file)).toStrictEqual({
        profiles: {
          production: { keyStorage: 'keyring', keyringAccount: newAccount('production') },
        },
      });
      expect(Object.fromEntries(testKeyring().entries)).toEqual({
        [accountIn(file, 'production')]: NEW_KEY,
      });
      expect(unexpected).toEqual([]);
    },
  );

  const NOT_ASCII =
    'the key contains a character other than visible ASCII, which no request can carry; nothing was saved';
  it.each([
    ['empty', '', 'the key is empty; nothing was saved'],
    ['only a newline', '\n', 'the key is empty; nothing was saved'],
    ['with a space', 'abc def-12345678\n', 'the key contains white space; nothing was saved'],
    ['with a tab', 'abc\tdef-12345678\n', 'the key contains white space; nothing was saved'],
    ['not ASCII', 'clé-12345678\n', NOT_ASCII],
    ['with a control character', 'abc\u0007def-12345678\n', NOT_ASCII],
  ])(
    'refuses a key that is %s with exit 2, sends and saves nothing (--no-verify too)',
    async (_what, stdin, message) => {
      const { env, file } = setup();
      for (const flags of [[], ['--no-verify']]) {
        const result = await run(['auth', 'login', '--with-key', ...flags], { env, stdin });
        expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
      }
      expect(existsSync(file)).toBe(false);
      expect(unexpected).toEqual([]);
    },
  );

  it('never waits for stdin without --with-key when stdin is not a terminal', async () => {
    const { env, file } = setup();
    const { io, out, err, prompts } = testIO({ stdin: `${NEW_KEY}\n` }, env);
    const code = await main(['auth', 'login'], { io, env, signal: new AbortController().signal });
    expect({ code, stdout: out.text, stderr: err.text, prompts }).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: stdin is not a terminal, and the key is read from it only with --with-key\n' +
        'hint: pipe the key with `store auth login --with-key`\n',
      prompts: [],
    });
    // stdin was never read.
    expect(io.stdin.readableFlowing).toBe(null);
    expect(io.stdin.readableEnded).toBe(false);
    expect(existsSync(file)).toBe(false);
    expect(unexpected).toEqual([]);
  });

  it('names the profile in use in that hint (-p staging), whose key it would otherwise store for another', async () => {
    const { env, file } = setup();
    const { io, out, err, prompts } = testIO({ stdin: `${NEW_KEY}\n` }, env);
    const argv = ['-p', 'staging', 'auth', 'login'];
    const code = await main(argv, { io, env, signal: new AbortController().signal });
    expect({ code, stdout: out.text, stderr: err.text, prompts }).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: stdin is not a terminal, and the key is read from it only with --with-key\n' +
        'hint: pipe the key with `store -p staging auth login --with-key`\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('prompts for the key on a terminal, checks it and saves it', async () => {
    const { env, file } = setup();
    const scope = api(API, NEW_KEY).get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const result = await run(['auth', 'login'], { env, tty: true, typed: NEW_KEY });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile production with key ****6789\n',
      prompts: ['API key for profile production: '],
    });
    expect(readConfig(file)).toStrictEqual({
      profiles: { production: { keyStorage: 'keyring', keyringAccount: newAccount('production') } },
    });
    expect(Object.fromEntries(testKeyring().entries)).toEqual({
      [accountIn(file, 'production')]: NEW_KEY,
    });
  });

  it('refuses an empty answer at the prompt with exit 2', async () => {
    const { env, file } = setup();
    const result = await run(['auth', 'login'], { env, tty: true, typed: '' });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: the key is empty; nothing was saved\n',
      prompts: ['API key for profile production: '],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('saves under --profile staging after checking the key against the staging URL', async () => {
    const { env, file } = setup();
    const scope = api(STAGING, NEW_KEY).get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const result = await run(['--profile', 'staging', 'auth', 'login', '--with-key'], {
      env,
      stdin: `${NEW_KEY}\n`,
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile staging with key ****6789\n',
      prompts: [],
    });
    expect(readConfig(file)).toStrictEqual({
      profiles: { staging: { keyStorage: 'keyring', keyringAccount: newAccount('staging') } },
    });
    expect(Object.fromEntries(testKeyring().entries)).toEqual({
      [accountIn(file, 'staging')]: NEW_KEY,
    });
  });

  it('refuses to check the key over plain http to a host that is not loopback: exit 2, nothing sent or saved', async () => {
    const { env, file } = setup({ STORE_BASE_URL: 'http://pets.example.com/v1' });
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: `${NEW_KEY}\n` });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: refusing to send the API key over plain HTTP to pets.example.com\nhint: use an https:// URL (plain http is allowed for loopback hosts only)\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
    expect(unexpected).toEqual([]);
  });

  it('exits 2 for an unknown profile before reading or saving anything', async () => {
    const { env, file } = setup();
    const result = await run(['-p', 'nope', 'auth', 'login', '--with-key'], {
      env,
      stdin: `${NEW_KEY}\n`,
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: unknown profile "nope"\nhint: see `store profile list`, or create it with `store profile set nope --base-url <url>`\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });

  it('has no flag that takes the key as an argument', async () => {
    const { env, file } = setup();
    const result = await run(['auth', 'login', '--key', NEW_KEY], { env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown option "--key"\nhint: see `store auth login --help`\n',
      prompts: [],
    });
    expect(existsSync(file)).toBe(false);
  });
});
