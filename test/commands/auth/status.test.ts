import { describe, expect, it } from 'vitest';
import { run, configSetup as setup, writeConfigFile } from '../../helpers/cli.js';
import { api, KEY, unexpected } from '../../helpers/http.js';
import { lockedKeyring } from '../../helpers/keyring.js';

const PET_PAGE = '[{"id":1,"name":"Rex","categoryId":2,"status":"available"}]';
/** The facts a person gets above an error, for the production profile with `key`. */
const facts = (key: string) =>
  'profile  production\n' +
  'base URL https://api.animal-store.example/v1 (from profile)\n' +
  `key      ${key}\n`;
/** What a person gets on stderr for a stored key the API rejects: the facts, then the error. */
const REJECTED =
  `${facts('****wxyz (in config.json)')}` +
  'error: no (unauthorized, HTTP 401)\nhint: to store a new key for profile production, run `store auth login`\n';

describe('store auth status', () => {
  const storedKey = (file: string, key = KEY) =>
    writeConfigFile(file, JSON.stringify({ profiles: { production: { apiKey: key } } }));

  it('checks a stored key with one GET /pets?limit=1 and prints tab-separated rows', async () => {
    const { env, file } = setup();
    storedKey(file);
    const scope = api().get('/v1/pets').query({ limit: '1' }).reply(200, PET_PAGE);
    const result = await run(['auth', 'status'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout:
        'PROFILE\tBASE URL\tURL FROM\tKEY FROM\tKEY STORAGE\tKEY\tVALID\nproduction\thttps://api.animal-store.example/v1\tprofile\tconfig\tfile\t****wxyz\tyes\n',
      stderr: '',
      prompts: [],
    });
  });

  it('on a terminal, says it in lines, the URL whole however narrow the terminal', async () => {
    const { env, file } = setup({ NO_COLOR: '1' });
    storedKey(file);
    const scope = api().get('/v1/pets').query({ limit: '1' }).reply(200, PET_PAGE);
    const result = await run(['auth', 'status'], { env, tty: true, columns: 80 });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
    // A one-row table needed 84 columns, and cut the URL at 80.
    expect(result.stdout).toBe(
      'profile  production\n' +
        'base URL https://api.animal-store.example/v1 (from profile)\n' +
        'key      ****wxyz (in config.json)\n' +
        'valid    yes\n',
    );
  });

  it.each([
    ['abcd1234', '****'],
    ['abcd12345', '****2345'],
  ])(
    'masks a key of 8 characters or fewer whole, a longer one to its last four (%s)',
    async (key, masked) => {
      // At 8 characters, showing the last four would show half the key.
      const { env } = setup({ STORE_API_KEY: key });
      const scope = api(undefined, key).get('/v1/pets').query({ limit: '1' }).reply(200, PET_PAGE);
      const result = await run(['auth', 'status', '--json'], { env });
      expect(scope.isDone()).toBe(true);
      expect(JSON.parse(result.stdout).key).toBe(masked);
    },
  );

  it('prints one JSON object with --json, the key masked', async () => {
    const { env, file } = setup();
    storedKey(file);
    api().get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const result = await run(['auth', 'status', '--json'], { env });
    expect(result).toEqual({
      code: 0,
      stdout:
        '{"profile":"production","baseUrl":"https://api.animal-store.example/v1","baseUrlSource":"profile","keySource":"config","keyStorage":"file","key":"****wxyz","valid":true}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('reports env as the source of STORE_API_KEY, which wins over the stored key', async () => {
    const { env, file } = setup({ STORE_API_KEY: KEY });
    storedKey(file, 'stored-key-00001111');
    api().get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const result = await run(['auth', 'status', '--json'], { env });
    expect(result).toEqual({
      code: 0,
      stdout:
        '{"profile":"production","baseUrl":"https://api.animal-store.example/v1","baseUrlSource":"profile","keySource":"env","keyStorage":"env","key":"****wxyz","valid":true}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('reports the built-in key of the sandbox profile as default, masked without its tail', async () => {
    const { env } = setup();
    const scope = api('http://127.0.0.1:4010', 'sandbox')
      .get('/v1/pets')
      .query({ limit: '1' })
      .reply(200, '[]');
    const result = await run(['-p', 'sandbox', 'auth', 'status', '--json'], { env });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout:
        '{"profile":"sandbox","baseUrl":"http://127.0.0.1:4010/v1","baseUrlSource":"profile","keySource":"config","keyStorage":"builtin","key":"****","valid":true}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('exits 4 with stdout empty and sends nothing when there is no key', async () => {
    const { env } = setup();
    const result = await run(['auth', 'status'], { env });
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        `${facts('none')}` +
        'error: no API key for profile production\nhint: run `store auth login` or set STORE_API_KEY\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it('says where a key is that it cannot read from the keyring, above why', async () => {
    const { env, file } = setup();
    writeConfigFile(file, JSON.stringify({ profiles: { production: { keyStorage: 'keyring' } } }));
    const result = await run(['auth', 'status'], { env, keyring: lockedKeyring() });
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        `${facts('? (in the system keyring: not read)')}` +
        'error: cannot read the key of profile production from the system keyring (it is locked)\n' +
        'hint: unlock the keyring, or run `store auth login` to store the key again\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it('shows a hand-written profile name with escape sequences as text', async () => {
    const { env, file } = setup();
    const name = 'e\u001b[31mu';
    writeConfigFile(
      file,
      JSON.stringify({
        currentProfile: name,
        profiles: { [name]: { baseUrl: 'https://eu.example/v1' } },
      }),
    );
    const result = await run(['auth', 'status'], { env });
    expect(result.stderr.split('\n')[0]).toBe('profile  e\\x1b[31mu');
  });

  it('on a terminal, says nothing on stdout of a rejected key: the facts go above the error', async () => {
    // A mutation printed "valid    yes" on stdout for it, and no test saw it.
    const { env, file } = setup({ NO_COLOR: '1' });
    storedKey(file);
    const scope = api().get('/v1/pets').query({ limit: '1' }).reply(401, {
      code: 'unauthorized',
      message: 'no',
      status: 401,
    });
    const result = await run(['auth', 'status'], { env, tty: true, columns: 80 });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr: REJECTED,
      prompts: [],
    });
  });

  it.each([
    [[], '', REJECTED.replace('error: no (', 'error: key ****wxyz is not valid (')],
    [
      ['--json'],
      '{"profile":"production","baseUrl":"https://api.animal-store.example/v1","baseUrlSource":"profile","keySource":"config","keyStorage":"file","key":"****wxyz","valid":false}\n',
      '{"error":{"code":"unauthorized","message":"key ****wxyz is not valid","status":401,"hint":"to store a new key for profile production, run `store auth login`"}}\n',
    ],
    [['--debug'], '', undefined],
  ])(
    'exits 4 when the key is rejected %j, and never shows the key',
    async (flags, stdout, stderr) => {
      const { env, file } = setup();
      storedKey(file);
      const scope = api()
        .get('/v1/pets')
        .query({ limit: '1' })
        .reply(401, { code: 'unauthorized', message: `key ${KEY} is not valid`, status: 401 });
      const result = await run(['auth', 'status', ...flags], { env });
      expect(scope.isDone()).toBe(true);
      expect(result.code).toBe(4);
      expect(result.stdout).toBe(stdout);
      if (stderr !== undefined) expect(result.stderr).toBe(stderr);
      else {
        // The trace, then the error line; an API error under --debug has no stack trace.
        expect(result.stderr).toContain('> authorization: Bearer ****wxyz\n');
        expect(result.stderr).not.toMatch(/^\s+at /m);
        expect(result.stderr.split('\n').slice(-3)).toEqual([
          'error: key ****wxyz is not valid (unauthorized, HTTP 401)',
          'hint: to store a new key for profile production, run `store auth login`',
          '',
        ]);
      }
      expect(result.stdout + result.stderr).not.toContain(KEY);
      expect(result.stdout + result.stderr).not.toContain(KEY.slice(0, 8));
    },
  );
});
