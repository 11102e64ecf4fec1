import { describe, expect, it } from 'vitest';
import { globalOptions } from '../../../src/main.js';
import { baseEnv, configSetup, NO_KEY, run, writeConfigFile } from '../../helpers/cli.js';
import { API, api, KEY, STAGING, unexpected } from '../../helpers/http.js';

const PETS = [
  { id: 1, name: 'Rex', categoryId: 2, status: 'available' },
  { id: 2, name: 'Tom', categoryId: 3, status: 'sold' },
];
// The same list as the server sends it: the second id is beyond 2^53.
const BODY =
  '[{"id":1,"name":"Rex","categoryId":2,"status":"available"},{"id":9007199254740993,"name":"Tom","categoryId":3,"status":"sold","tag":{"color":"grey"}}]';

const env = () => baseEnv({ STORE_API_KEY: KEY });

describe('store pets list', () => {
  it('sends GET /pets with the key and prints tab-separated rows when stdout is a pipe', async () => {
    const scope = api().get('/v1/pets').reply(200, BODY, { 'content-type': 'application/json' });
    const result = await run(['pets', 'list'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t2\tavailable\n9007199254740993\tTom\t3\tsold\n',
    );
  });

  it.each([
    [['--limit', '5', '--status', 'pending'], { limit: '5', status: 'pending' }],
    // A --limit with spaces around it (a quoted "$N ").
    [['--limit', ' 5 '], { limit: '5' }],
  ])('sends %j as query parameters', async (flags, query) => {
    const scope = api().get('/v1/pets').query(query).reply(200, []);
    const result = await run(['pets', 'list', ...flags], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n',
      stderr: '',
      prompts: [],
    });
  });

  it('prints the API data exactly with --json: int64 ids digit for digit, unknown fields kept', async () => {
    api().get('/v1/pets').reply(200, BODY);
    const result = await run(['pets', 'list', '--json'], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${BODY}\n`);
  });

  it('indents --json for a person on a terminal', async () => {
    api().get('/v1/pets').reply(200, '[{"id":9007199254740993,"name":"Tom","categoryId":3}]');
    const result = await run(['--json', 'pets', 'list'], { env: env(), tty: true });
    expect(result.stdout).toBe(
      '[\n  {\n    "id": 9007199254740993,\n    "name": "Tom",\n    "categoryId": 3\n  }\n]\n',
    );
  });

  it('draws a table with coloured status on a terminal', async () => {
    const pending = { id: 3, name: 'Kit', categoryId: 4, status: 'pending' };
    api()
      .get('/v1/pets')
      .reply(200, JSON.stringify([...PETS, pending]));
    const result = await run(['pets', 'list'], { env: env(), tty: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      '\u001b[1mID\u001b[22m  \u001b[1mNAME\u001b[22m  \u001b[1mCATEGORY\u001b[22m  \u001b[1mSTATUS\u001b[22m\n' +
        '1   Rex   2         \u001b[32mavailable\u001b[39m\n' +
        '2   Tom   3         \u001b[2msold\u001b[22m\n' +
        '3   Kit   4         \u001b[33mpending\u001b[39m\n',
    );
  });

  it('shows a status it does not know uncoloured, as sent, even one named like an object method', async () => {
    const statuses = ['reserved', 'toString', '__proto__', 'constructor'];
    api()
      .get('/v1/pets')
      .reply(
        200,
        JSON.stringify(
          statuses.map((status, i) => ({ id: i + 1, name: 'Rex', categoryId: 2, status })),
        ),
      );
    expect(await run(['pets', 'list'], { env: env(), tty: true })).toEqual({
      code: 0,
      stdout:
        '\u001b[1mID\u001b[22m  \u001b[1mNAME\u001b[22m  \u001b[1mCATEGORY\u001b[22m  \u001b[1mSTATUS\u001b[22m\n' +
        '1   Rex   2         reserved\n' +
        '2   Rex   2         toString\n' +
        '3   Rex   2         __proto__\n' +
        '4   Rex   2         constructor\n',
      stderr: '',
      prompts: [],
    });
  });

  it.each([
    // The contract: NO_COLOR with any non-empty value.
    ['NO_COLOR=1', { NO_COLOR: '1' }, []],
    ['NO_COLOR=0', { NO_COLOR: '0' }, []],
    ['NO_COLOR=false', { NO_COLOR: 'false' }, []],
    ['--no-color', {}, ['--no-color']],
    ['CLICOLOR=0', { CLICOLOR: '0' }, []],
    // A request for no colour wins over one that forces it.
    ['NO_COLOR=1 CLICOLOR_FORCE=1', { NO_COLOR: '1', CLICOLOR_FORCE: '1' }, []],
    ['NO_COLOR=1 FORCE_COLOR=1', { NO_COLOR: '1', FORCE_COLOR: '1' }, []],
    ['--no-color CLICOLOR_FORCE=1', { CLICOLOR_FORCE: '1' }, ['--no-color']],
  ])('draws the table without colour under %s', async (_name, extra, flags) => {
    api()
      .get('/v1/pets')
      .reply(200, JSON.stringify(PETS.slice(0, 1)));
    const result = await run(['pets', 'list', ...flags], {
      env: { ...env(), ...extra },
      tty: true,
    });
    expect(result).toEqual({
      code: 0,
      stdout: 'ID  NAME  CATEGORY  STATUS\n1   Rex   2         available\n',
      stderr: '',
      prompts: [],
    });
  });

  it.each([
    // An empty NO_COLOR is no request (no-color.org); CLICOLOR other than 0 changes nothing.
    ['NO_COLOR=', { NO_COLOR: '' }],
    ['CLICOLOR=1', { CLICOLOR: '1' }],
    ['CLICOLOR_FORCE=0', { CLICOLOR_FORCE: '0' }],
  ])('draws the table in colour on a terminal under %s', async (_name, extra) => {
    api()
      .get('/v1/pets')
      .reply(200, JSON.stringify(PETS.slice(0, 1)));
    const result = await run(['pets', 'list'], { env: { ...env(), ...extra }, tty: true });
    expect(result).toEqual({
      code: 0,
      stdout:
        '\u001b[1mID\u001b[22m  \u001b[1mNAME\u001b[22m  \u001b[1mCATEGORY\u001b[22m  \u001b[1mSTATUS\u001b[22m\n' +
        '1   Rex   2         \u001b[32mavailable\u001b[39m\n',
      stderr: '',
      prompts: [],
    });
  });

  const GREEN = '\u001b[32mavailable\u001b[39m';
  it.each([
    ['CLICOLOR_FORCE=1', { CLICOLOR_FORCE: '1' }, GREEN],
    // CLICOLOR_FORCE wins over CLICOLOR=0, as clicolors says.
    ['CLICOLOR=0 CLICOLOR_FORCE=1', { CLICOLOR: '0', CLICOLOR_FORCE: '1' }, GREEN],
    ['FORCE_COLOR=1', { FORCE_COLOR: '1' }, GREEN],
    ['CLICOLOR_FORCE=0', { CLICOLOR_FORCE: '0' }, 'available'],
    ['CLICOLOR_FORCE=', { CLICOLOR_FORCE: '' }, 'available'],
    ['FORCE_COLOR=0', { FORCE_COLOR: '0' }, 'available'],
  ])('tab-separated output in a pipe under %s: status %j', async (_name, extra, status) => {
    api()
      .get('/v1/pets')
      .reply(200, JSON.stringify(PETS.slice(0, 1)));
    const result = await run(['pets', 'list'], { env: { ...env(), ...extra } });
    expect(result).toEqual({
      code: 0,
      stdout: `ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t2\t${status}\n`,
      stderr: '',
      prompts: [],
    });
  });

  it('colours tab-separated output only when FORCE_COLOR asks for it', async () => {
    api()
      .get('/v1/pets')
      .reply(200, JSON.stringify(PETS.slice(0, 1)));
    const result = await run(['pets', 'list'], { env: { ...env(), FORCE_COLOR: '1' } });
    expect(result.stdout).toBe(
      'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t2\t\u001b[32mavailable\u001b[39m\n',
    );
  });

  it('neutralises control characters and escape sequences from the server', async () => {
    const name = 'Evil\u001b]52;c;aGk=\u0007\u001b[2J\r\nX\t\u009b1m';
    api()
      .get('/v1/pets')
      .reply(200, JSON.stringify([{ id: 1, name, categoryId: 1 }]));
    const result = await run(['pets', 'list'], { env: env() });
    expect(result.stdout).toBe(
      'ID\tNAME\tCATEGORY\tSTATUS\n1\tEvil\\x1b]52;c;aGk=\\x07\\x1b[2J\\r\\nX\\t\\x9b1m\t1\t\n',
    );
  });

  it('writes a backslash as \\\\ in tab-separated rows, so that every value reads back; a table shows it as is', async () => {
    // `Rex<TAB>Jr` and the text `Rex\tJr` were both written `Rex\tJr`; ESC and the text `\x1b` alike.
    const names = ['Rex\tJr', 'Rex\\tJr', '\u001b', '\\x1b', 'C:\\dogs\\'];
    const body = JSON.stringify(names.map((name, i) => ({ id: i + 1, name, categoryId: 1 })));
    api().get('/v1/pets').times(3).reply(200, body);
    const rows = ['Rex\\tJr', 'Rex\\\\tJr', '\\x1b', '\\\\x1b', 'C:\\\\dogs\\\\'];
    const expected = `ID\tNAME\tCATEGORY\tSTATUS\n${rows.map((name, i) => `${i + 1}\t${name}\t1\t\n`).join('')}`;
    expect(await run(['pets', 'list'], { env: env() })).toEqual({
      code: 0,
      stdout: expected,
      stderr: '',
      prompts: [],
    });
    // Coloured (FORCE_COLOR) rows are tab-separated rows too.
    const coloured = await run(['pets', 'list'], { env: { ...env(), FORCE_COLOR: '1' } });
    expect(coloured.stdout).toBe(expected);
    const table = await run(['pets', 'list'], { env: { ...env(), NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n').map((line) => line.split(/ {2,}/)[1])).toEqual([
      'NAME',
      'Rex\\tJr',
      'Rex\\tJr',
      '\\x1b',
      '\\x1b',
      'C:\\dogs\\',
      undefined,
    ]);
  });

  it.each([
    [['--limit', '0'], '--limit must be an integer from 1 to 100 (got "0")'],
    [['--limit', '101'], '--limit must be an integer from 1 to 100 (got "101")'],
    [['--limit', 'ten'], '--limit must be an integer from 1 to 100 (got "ten")'],
    [['--limit', '2.5'], '--limit must be an integer from 1 to 100 (got "2.5")'],
    [['--limit', '+5'], '--limit must be an integer from 1 to 100 (got "+5")'],
    [['--status', 'lost'], '--status must be one of available, pending, sold (got "lost")'],
    [['--status', 'Sold'], '--status must be one of available, pending, sold (got "Sold")'],
    [['--status', 'soldout'], '--status must be one of available, pending, sold (got "soldout")'],
    // Given without a value: the flag as typed, and what it takes (commander's own words
    // were "option '--limit <n>' argument missing").
    [['--limit'], '--limit needs a value: an integer from 1 to 100'],
    [['--status'], '--status needs a value: one of available, pending, sold'],
    [['-p'], '--profile needs a value'],
    [['--timeout'], '--timeout needs a value: a positive number of seconds, at most 86400'],
    [['--colour'], 'unknown option "--colour"\nhint: see `store pets list --help`'],
  ])('rejects %j with exit 2 and sends nothing', async (flags, message) => {
    const result = await run(['pets', 'list', ...flags], { env: env() });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
    expect(unexpected).toEqual([]);
  });

  it('reports a usage error as one JSON line under --json', async () => {
    const result = await run(['pets', 'list', '--status', 'lost', '--json'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      '{"error":{"code":"usage_error","message":"--status must be one of available, pending, sold (got \\"lost\\")","status":null}}\n',
    );
  });

  it.each([
    [400, 'bad_request', 3],
    [401, 'unauthorized', 4],
    [403, 'forbidden', 4],
    [404, 'not_found', 5],
    [409, 'conflict', 3],
    [429, 'rate_limited', 7],
    [500, 'internal', 7],
  ])('maps an Error body with HTTP %i (%s) to exit %i', async (status, code, exit) => {
    // 429 is retried twice first (3 attempts); the others are answered at once.
    api()
      .get('/v1/pets')
      .times(status === 429 ? 3 : 1)
      .reply(status, { code, message: `it failed (${status})`, status });
    const result = await run(['pets', 'list'], { env: env() });
    expect(result).toEqual({
      code: exit,
      stdout: '',
      stderr: `error: it failed (${status}) (${code}, HTTP ${status})\n${status === 429 ? 'hint: still failing after 3 attempts; try again later\n' : ''}${exit === 4 ? 'hint: the key came from STORE_API_KEY\n' : ''}`,
      prompts: [],
    });
  });

  it('prints the Error body as one JSON line on stderr under --json', async () => {
    api().get('/v1/pets').reply(401, { code: 'unauthorized', message: 'bad key', status: 401 });
    const result = await run(['pets', 'list', '--json'], { env: env() });
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        '{"error":{"code":"unauthorized","message":"bad key","status":401,"hint":"the key came from STORE_API_KEY"}}\n',
      prompts: [],
    });
  });

  it.each([
    [
      502,
      '<html><body>Bad gateway</body></html>',
      'the server answered bad gateway (http_502, HTTP 502)\nhint: still failing after 3 attempts; try again later',
      7,
    ],
    [
      503,
      '',
      'the server answered service unavailable (http_503, HTTP 503)\nhint: still failing after 3 attempts; try again later',
      7,
    ],
    [400, '{"code":"bad', 'the server answered bad request (http_400, HTTP 400)', 3],
    // The spec's Error has code, message and an integer status: without one, it is no Error.
    [
      400,
      '{"message":"no code","status":400}',
      'the server answered bad request (http_400, HTTP 400)',
      3,
    ],
    [
      404,
      '{"code":"gone","message":"gone","status":404.5}',
      'the server answered not found (http_404, HTTP 404)',
      5,
    ],
  ])(
    'explains HTTP %i with a body that is not an Error body',
    async (status, body, message, exit) => {
      // 502 and 503 are retried twice first: three attempts in all.
      api()
        .get('/v1/pets')
        .times(status >= 500 ? 3 : 1)
        .reply(status, body);
      const result = await run(['pets', 'list'], { env: env() });
      expect(result).toEqual({
        code: exit,
        stdout: '',
        stderr: `error: ${message}\n`,
        prompts: [],
      });
    },
  );

  it('fails with exit 1 on a response of the wrong shape, and says why under --debug', async () => {
    api().get('/v1/pets').twice().reply(200, '[{"id":"one","name":"Rex","categoryId":1}]');
    const plain = await run(['pets', 'list'], { env: env() });
    expect(plain).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the server sent a response of an unexpected shape (HTTP 200)\nhint: run with --debug for details\n',
      prompts: [],
    });
    const debug = await run(['pets', 'list', '--debug'], { env: env() });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toContain('! 0.id: ');
    // The hint to run with --debug is not given to one who did.
    expect(debug.stderr).toMatch(
      /\nerror: the server sent a response of an unexpected shape \(HTTP 200\)\n$/,
    );
    expect(debug.stderr).toContain('> GET https://api.animal-store.example/v1/pets\n');
    expect(debug.stderr).toContain('> authorization: Bearer ****wxyz\n');
    expect(debug.stderr).not.toContain(KEY);
  });

  it('traces with STORE_DEBUG=1 as with --debug, the key masked', async () => {
    api().get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list', '--json'], { env: { ...env(), STORE_DEBUG: '1' } });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('[]\n');
    expect(result.stderr).toMatch(
      /^> GET https:\/\/api\.animal-store\.example\/v1\/pets\n> accept: application\/json\n> authorization: Bearer \*\*\*\*wxyz\n< 200 OK \(\d+ ms\)\n< \[\]\n$/,
    );
  });

  it('traces only the first 4 KiB of a body, saying how much more there was', async () => {
    const pets = Array.from({ length: 200 }, (_, i) => ({
      id: i + 1,
      name: `pet-${i + 1}`,
      categoryId: 1,
    }));
    const body = JSON.stringify(pets);
    api().get('/v1/pets').query({ limit: '100' }).reply(200, body);
    const result = await run(['pets', 'list', '--json', '--limit', '100'], {
      env: { ...env(), STORE_DEBUG: '1' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${body}\n`);
    const shown = `< ${body.slice(0, 4096)}… (${body.length - 4096} more bytes)\n`;
    expect(result.stderr.endsWith(shown)).toBe(true);
  });

  it('does not follow a redirect', async () => {
    api().get('/v1/pets').reply(302, '', { location: 'https://elsewhere.example/v1/pets' });
    const result = await run(['pets', 'list'], { env: env() });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the server answered with a redirect (HTTP 302 to https://elsewhere.example/v1/pets); redirects are not followed\n',
      prompts: [],
    });
  });

  it('reports a 300 Multiple Choices with a JSON list as a redirect, not as the list', async () => {
    api().get('/v1/pets').reply(300, BODY, { 'content-type': 'application/json' });
    expect(await run(['pets', 'list'], { env: env() })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: the server answered with a redirect (HTTP 300); redirects are not followed\n',
      prompts: [],
    });
  });

  it('warns once, not once per attempt, when each retried answer is marked deprecated', async () => {
    const headers = { deprecation: '@1767225600', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' };
    const scope = api().get('/v1/pets').times(2).reply(503, '', headers);
    scope.get('/v1/pets').reply(200, '[]', headers);
    const result = await run(['pets', 'list', '--json'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '[]\n',
      stderr: 'warning: the API marks GET /pets as deprecated; it will be removed on 2030-12-05\n',
      prompts: [],
    });
  });

  it.each([
    [
      'both',
      { deprecation: '@1767225600', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' },
      '; it will be removed on 2030-12-05',
    ],
    ['Deprecation alone', { deprecation: '@1767225600' }, ''],
    [
      'Sunset alone',
      { sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' },
      '; it will be removed on 2030-12-05',
    ],
  ])(
    'warns when a response carries Deprecation or Sunset headers (%s)',
    async (_what, headers, when) => {
      api().get('/v1/pets').reply(200, '[]', headers);
      const result = await run(['pets', 'list', '--json'], { env: env() });
      expect(result).toEqual({
        code: 0,
        stdout: '[]\n',
        stderr: `warning: the API marks GET /pets as deprecated${when}\n`,
        prompts: [],
      });
    },
  );

  it('exits 4 without sending anything when there is no key', async () => {
    const result = await run(['pets', 'list'], { env: baseEnv() });
    expect(result).toEqual(NO_KEY);
  });

  it('takes an empty key written by hand in the config for no key: exit 4, nothing sent', async () => {
    // It was sent as `Bearer ` and got a 401.
    const { env, file } = configSetup();
    writeConfigFile(file, JSON.stringify({ profiles: { production: { apiKey: '' } } }));
    expect(await run(['pets', 'list'], { env })).toEqual(NO_KEY);
    expect(unexpected).toEqual([]);
  });

  it('accepts global options after the subcommand and says which profile it used on a terminal', async () => {
    const scope = api(STAGING).get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list', '--profile', 'staging', '--no-color'], {
      env: env(),
      tty: true,
    });
    expect(scope.isDone()).toBe(true);
    expect(result.stderr).toBe(
      'Using profile staging (https://staging.api.animal-store.example/v1)\nNo animals found\n',
    );
  });

  it('says nothing about the profile when stderr is not a terminal', async () => {
    api(STAGING).get('/v1/pets').reply(200, '[{"id":1,"name":"Rex","categoryId":1}]');
    const result = await run(['-p', 'staging', 'pets', 'list'], {
      env: env(),
      tty: { stdout: true },
    });
    expect(result.stderr).toBe('');
  });

  // 127.0.0.1.example.com only begins like a loopback address: DNS may answer any address for
  // it, and the key would go there in clear.
  it.each(['pets.example.com', '127.0.0.1.example.com'])(
    'refuses to send the key over plain http to %s, a host that is not loopback',
    async (host) => {
      const result = await run(['pets', 'list'], {
        env: { ...env(), STORE_BASE_URL: `http://${host}/v1` },
      });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: refusing to send the API key over plain HTTP to ${host}\nhint: use an https:// URL (plain http is allowed for loopback hosts only)\n`,
        prompts: [],
      });
    },
  );

  it.each([
    [
      ['--timeout', '0'],
      {},
      '--timeout must be a positive number of seconds, at most 86400 (got "0")',
    ],
    [
      ['--timeout', 'soon'],
      {},
      '--timeout must be a positive number of seconds, at most 86400 (got "soon")',
    ],
    [
      ['--timeout', '3000000'],
      {},
      '--timeout must be a positive number of seconds, at most 86400 (got "3000000")',
    ],
    [
      ['--timeout', '0x10'],
      {},
      '--timeout must be a positive number of seconds, at most 86400 (got "0x10")',
    ],
    [
      [],
      { STORE_TIMEOUT: '0b11' },
      'STORE_TIMEOUT must be a positive number of seconds, at most 86400 (got "0b11")',
    ],
    [
      [],
      { STORE_TIMEOUT: '-1' },
      'STORE_TIMEOUT must be a positive number of seconds, at most 86400 (got "-1")',
    ],
  ])('rejects a bad time limit %j %j', async (flags, extra, message) => {
    const result = await run(['pets', 'list', ...flags], { env: { ...env(), ...extra } });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
  });

  it('a time limit that rounds to 0 ms is 1 ms, not none', () => {
    expect(globalOptions({ timeout: '1e-9' }, {}).timeoutMs).toBe(1);
    expect(globalOptions({}, { STORE_TIMEOUT: '0.0004' }).timeoutMs).toBe(1);
    expect(globalOptions({ timeout: '2.5' }, {}).timeoutMs).toBe(2500);
  });

  it('an empty STORE_TIMEOUT is unset, as other STORE_ variables are: the default applies', async () => {
    const scope = api().get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list', '--json'], { env: { ...env(), STORE_TIMEOUT: '' } });
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
    expect(scope.isDone()).toBe(true);
  });

  it('uses STORE_BASE_URL over the profile', async () => {
    const scope = api('https://eu.example.org').get('/api/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list'], {
      env: { ...env(), STORE_BASE_URL: 'https://eu.example.org/api/v1' },
    });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
  });

  it('takes a base URL ending in a slash as the same base URL (not /v1//pets)', async () => {
    const scope = api().get('/v1/pets').reply(200, '[]');
    const result = await run(['pets', 'list'], { env: { ...env(), STORE_BASE_URL: `${API}/v1/` } });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n',
      stderr: '',
      prompts: [],
    });
  });

  it('reaches the production API by default', async () => {
    const scope = api(API).get('/v1/pets').reply(200, '[]');
    expect((await run(['pets', 'list'], { env: env() })).code).toBe(0);
    expect(scope.isDone()).toBe(true);
  });
});
