// Which environment a read uses, and what its hints say.
import { describe, expect, it } from 'vitest';
import {
  baseEnv,
  readConfig,
  run,
  configSetup as setup,
  writeConfigFile,
} from '../../helpers/cli.js';
import { api, KEY, STAGING, unexpected } from '../../helpers/http.js';
import { processEnv, store } from '../../helpers/process.js';

const STORED = { profiles: { staging: { apiKey: KEY }, production: { apiKey: KEY } } };

describe('store pets list: the profile in use', () => {
  it.each([
    ['-p', ['-p', 'sandbox2'], {}, 'store -p sandbox2 auth login'],
    ['--profile=', ['--profile=sandbox2'], {}, 'store -p sandbox2 auth login'],
    ['-p=', ['-p=sandbox2'], {}, 'store -p sandbox2 auth login'],
    ['STORE_PROFILE', [], { STORE_PROFILE: 'sandbox2' }, 'store -p sandbox2 auth login'],
    ['the current profile', [], { current: true }, 'store auth login'],
  ])(
    'no key with the profile from %s: the hint names a login command that works as pasted',
    async (_from, flags, extra, login) => {
      const { current, ...vars } = extra as { current?: boolean };
      const { env, file } = setup(vars);
      writeConfigFile(
        file,
        JSON.stringify({
          ...(current ? { currentProfile: 'sandbox2' } : {}),
          profiles: { sandbox2: { baseUrl: 'http://127.0.0.1:4999/v1' } },
        }),
      );
      expect(await run([...flags, 'pets', 'list'], { env })).toEqual({
        code: 4,
        stdout: '',
        stderr: `error: no API key for profile sandbox2\nhint: run \`${login}\` or set STORE_API_KEY\n`,
        prompts: [],
      });
      expect(unexpected).toEqual([]);
    },
  );

  it('quotes a hand-written profile name in the login hint so that a shell takes it whole', async () => {
    const { env, file } = setup();
    writeConfigFile(
      file,
      JSON.stringify({ profiles: { 'my box': { baseUrl: 'https://x.example/v1' } } }),
    );
    expect((await run(['-p', 'my box', 'pets', 'list'], { env })).stderr).toBe(
      "error: no API key for profile my box\nhint: run `store -p 'my box' auth login` or set STORE_API_KEY\n",
    );
    // A quote in the name: closed, escaped, opened again, as a shell reads it.
    writeConfigFile(file, JSON.stringify({ profiles: { "o'neil": {} } }));
    expect((await run(['-p', "o'neil", 'pets', 'list'], { env })).stderr).toBe(
      "error: no API key for profile o'neil\nhint: run `store -p 'o'\\''neil' auth login` or set STORE_API_KEY\n",
    );
  });

  it('-p=NAME and --profile=NAME select the profile as -p NAME does', async () => {
    const { env, file } = setup();
    writeConfigFile(file, JSON.stringify(STORED));
    for (const flag of ['-p=staging', '--profile=staging']) {
      const scope = api(STAGING).get('/v1/pets').reply(200, []);
      expect(await run(['pets', 'list', flag], { env })).toMatchObject({ code: 0, stderr: '' });
      expect(scope.isDone()).toBe(true);
    }
  });

  it.each([
    ['-p ""', ['-p', '']],
    ['-p=', ['-p=']],
    ['--profile=', ['--profile=']],
  ])(
    'an empty profile name (%s, a variable left unset) is a usage error, not the default profile',
    async (_how, flags) => {
      // STORE_PROFILE and the current profile would otherwise be used in its place.
      const { env, file } = setup({ STORE_PROFILE: 'staging' });
      writeConfigFile(file, JSON.stringify({ ...STORED, currentProfile: 'production' }));
      const before = readConfig(file);
      for (const argv of [
        [...flags, 'pets', 'list'],
        [...flags, 'auth', 'logout'],
      ]) {
        expect(await run(argv, { env })).toEqual({
          code: 2,
          stdout: '',
          stderr: 'error: --profile needs a profile name (got "")\n',
          prompts: [],
        });
      }
      expect(readConfig(file)).toEqual(before);
      expect(unexpected).toEqual([]);
    },
  );

  it('a key rejected with 401 from the stored config: the hint names the login for that profile', async () => {
    const { env, file } = setup({ STORE_PROFILE: 'staging' });
    writeConfigFile(file, JSON.stringify(STORED));
    api(STAGING)
      .get('/v1/pets')
      .reply(401, { code: 'unauthorized', message: 'key revoked', status: 401 });
    expect(await run(['pets', 'list'], { env })).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'error: key revoked (unauthorized, HTTP 401)\nhint: to store a new key for profile staging, run `store -p staging auth login`\n',
      prompts: [],
    });
  });

  it('a key rejected with 403 from STORE_API_KEY: the message says where it came from', async () => {
    api().get('/v1/pets').reply(403, { code: 'forbidden', message: 'read-only key', status: 403 });
    expect(await run(['pets', 'list'], { env: baseEnv({ STORE_API_KEY: KEY }) })).toEqual({
      code: 4,
      stdout: '',
      stderr: 'error: read-only key (forbidden, HTTP 403)\nhint: the key came from STORE_API_KEY\n',
      prompts: [],
    });
  });

  it('an unknown profile gets a did-you-mean, naming STORE_PROFILE when it came from there', async () => {
    const { env } = setup({ STORE_PROFILE: 'stagin', STORE_API_KEY: KEY });
    expect(await run(['pets', 'list'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: unknown profile "stagin" (set in STORE_PROFILE; did you mean "staging"?)\nhint: see `store profile list`, or create it with `store profile set stagin --base-url <url>`\n',
      prompts: [],
    });
  });

  it('a read on production says nothing about the profile, even on a terminal', async () => {
    api()
      .get('/v1/pets')
      .reply(200, [{ id: 1, name: 'Rex', categoryId: 1 }]);
    const result = await run(['pets', 'list', '--json'], {
      env: baseEnv({ STORE_API_KEY: KEY }),
      tty: true,
    });
    expect(result.stderr).toBe('');
  });

  it('a read on production with STORE_BASE_URL names the profile and the URL source on a terminal', async () => {
    api('http://127.0.0.1:4999').get('/v1/pets').reply(200, '[]');
    const env = baseEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: 'http://127.0.0.1:4999/v1' });
    const result = await run(['--no-color', 'pets', 'list', '--json'], { env, tty: true });
    expect(result.stderr).toBe(
      'Using profile production (http://127.0.0.1:4999/v1, from STORE_BASE_URL)\n',
    );
  });
});

describe('store pets list: honest lists', () => {
  const pets = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `p${i + 1}`, categoryId: 1 }));
  const env = () => baseEnv({ STORE_API_KEY: KEY, NO_COLOR: '1' });
  const stderrOf = async (argv: string[], count: number, tty: boolean | { stdout: boolean }) => {
    const scope = api().get('/v1/pets').query(true).reply(200, pets(count));
    const result = await run(['pets', 'list', ...argv], { env: env(), tty });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
    return result.stderr;
  };
  const MORE_20 =
    'Showing the first 20; there may be more: see up to 100 with --limit 100, or narrow it with --status\n';
  // On an 80-column terminal, wrapped between words (it broke as "…or narr" / "ow it…").
  const MORE_20_AT_80 = [
    'Showing the first 20; there may be more: see up to 100 with --limit 100, or',
    'narrow it with --status',
  ];

  it('on a terminal, 20 rows without --limit: one line saying there may be more', async () => {
    expect(await stderrOf([], 20, true)).toBe(`${MORE_20_AT_80.join('\n')}\n`);
  });

  it('says so when stdout alone is a terminal, as a dim line when stderr is one too', async () => {
    expect(await stderrOf([], 20, { stdout: true })).toBe(MORE_20);
    const scope = api().get('/v1/pets').reply(200, pets(20));
    const colored = await run(['pets', 'list'], {
      env: baseEnv({ STORE_API_KEY: KEY }),
      tty: true,
    });
    expect(scope.isDone()).toBe(true);
    expect(colored.stderr).toBe(
      MORE_20_AT_80.map((line) => `\u001b[2m${line}\u001b[22m\n`).join(''),
    );
  });

  it('counts against the --limit given, and leaves --status out once given', async () => {
    expect(await stderrOf(['--limit', '5', '--status', 'sold'], 5, true)).toBe(
      'Showing the first 5; there may be more: see up to 100 with --limit 100\n',
    );
    expect(await stderrOf(['--limit', '100'], 100, true)).toBe(
      'Showing the first 100; there may be more: the API sends at most 100 at a time,\n' +
        'or narrow it with --status\n',
    );
  });

  it('says nothing when the list is shorter than the limit', async () => {
    expect(await stderrOf([], 19, true)).toBe('');
    expect(await stderrOf(['--limit', '5'], 4, true)).toBe('');
  });

  it('says nothing when a server sends more rows than the limit (only exactly the limit is cut short)', async () => {
    expect(await stderrOf([], 21, true)).toBe('');
    expect(await stderrOf(['--limit', '5'], 6, true)).toBe('');
  });

  it('says "No animals found" for an empty list on a terminal', async () => {
    expect(await stderrOf([], 0, true)).toBe('No animals found\n');
  });

  it.each([
    ['a pipe', [], false],
    ['--json on a terminal', ['--json'], true],
    ['--json in a pipe', ['--json'], false],
  ])('says neither line through %s', async (_how, flags, tty) => {
    expect(await stderrOf(flags, 20, tty)).toBe('');
    expect(await stderrOf(flags, 0, tty)).toBe('');
  });
});

describe('store pets list: waiting', () => {
  const env = () => baseEnv({ STORE_API_KEY: KEY, NO_COLOR: '1' });
  const ROW = [{ id: 1, name: 'Rex', categoryId: 1 }];

  it('shows a spinner on a terminal while the answer is late, erased before the output', async () => {
    api().get('/v1/pets').delay(300).reply(200, ROW);
    // The spinner shows at once here instead of after 1 s.
    const result = await run(['pets', 'list', '--json'], {
      env: env(),
      tty: true,
      spinnerDelayMs: 0,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      '[\n  {\n    "id": 1,\n    "name": "Rex",\n    "categoryId": 1\n  }\n]\n',
    );
    expect(result.stderr).toMatch(
      /^(\r\u001b\[K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Waiting for api\.animal-store\.example…)+\r\u001b\[K$/,
    );
  });

  it('shows no spinner on a terminal that cannot redraw a line (TERM=dumb)', async () => {
    api().get('/v1/pets').delay(300).reply(200, ROW);
    const result = await run(['pets', 'list', '--json'], {
      env: { ...env(), TERM: 'dumb' },
      tty: true,
      spinnerDelayMs: 0,
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('shows no spinner when stderr is not a terminal', async () => {
    api().get('/v1/pets').delay(100).reply(200, ROW);
    const result = await run(['pets', 'list'], {
      env: env(),
      tty: { stdout: true },
      spinnerDelayMs: 0,
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('shows no spinner in bulk add, which has its own progress line', async () => {
    api().post('/v1/pets').delay(100).reply(201, { id: 1, name: 'Rex', categoryId: 1 });
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: env(),
      tty: { stderr: true },
      stdin: '{"name":"Rex","categoryId":1}\n',
      spinnerDelayMs: 0,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('Waiting');
    expect(result.stderr).toContain('{"summary":{"created":1,');
  });
});

describe('an internal error under --debug (a real process)', () => {
  // A clock that throws: a bug the program does not expect, inside src/api/client.ts.
  const BROKEN_CLOCK = [
    '--import',
    'data:text/javascript,process.hrtime.bigint=()=>{throw new TypeError("clock broke")}',
  ];
  const env = (extra: Record<string, string> = {}) =>
    processEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: 'http://127.0.0.1:9/v1', ...extra });

  it.each([
    ['--debug', ['--debug'], {}],
    ['STORE_DEBUG=1', [], { STORE_DEBUG: '1' }],
  ])('with %s prints a stack trace whose frames point into src/', async (_how, flags, extra) => {
    const result = await store([...flags, 'pets', 'list'], {
      env: env(extra),
      nodeArgs: BROKEN_CLOCK,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error: internal error: clock broke\nTypeError: clock broke\n');
    // Files and lines are mapped back to src/; a method's class name is the bundle's
    // minified one (Node maps function names, not the class of a receiver).
    expect(result.stderr).toMatch(/\n {4}at \S+ \(.*\/src\/api\/client\.ts:\d+:\d+\)\n/);
    expect(result.stderr).toMatch(/\n {4}at .*\(.*\/src\/commands\/pets\/list\.ts:\d+:\d+\)\n/);
    expect(result.stderr).not.toMatch(/dist\/[\w-]+\.js/);
  });

  it('without --debug prints one line and no stack', async () => {
    const result = await store(['pets', 'list'], { env: env(), nodeArgs: BROKEN_CLOCK });
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: internal error: clock broke\n',
    });
  });

  it('a usage error found by commander is no bug: no stack trace under --debug either', async () => {
    const result = await store(['pets', 'list', '--bogus', '--debug'], { env: env() });
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'error: unknown option "--bogus"\nhint: see `store pets list --help`\n',
    });
  });
});
