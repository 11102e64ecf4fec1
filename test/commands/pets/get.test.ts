import { describe, expect, it } from 'vitest';
import { baseEnv, NO_KEY, run } from '../../helpers/cli.js';
import { api, KEY } from '../../helpers/http.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });

describe('store pets get', () => {
  const WARNING =
    "warning: 'store pets get' is deprecated and will be removed on 2030-12-05; use 'store pets list --status <status>' instead\n";

  // ' 42 ': an id with spaces around it (a quoted "$ID ") is taken too.
  it.each(['42', ' 42 '])(
    'warns that it is deprecated and still prints the pet (id %j)',
    async (id) => {
      const scope = api()
        .get('/v1/pets/42')
        .reply(200, '{"id":42,"name":"Rex","categoryId":1,"status":"pending"}');
      const result = await run(['pets', 'get', id], { env: env() });
      expect(scope.isDone()).toBe(true);
      expect(result).toEqual({
        code: 0,
        stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n42\tRex\t1\tpending\n',
        stderr: WARNING,
        prompts: [],
      });
    },
  );

  it('keeps the warning plain text on stderr under --json, and an id beyond 2^53 exact', async () => {
    const body = '{"id":9007199254740993,"name":"Tom","categoryId":1,"owner":{"name":"Ann"}}';
    api()
      .get('/v1/pets/9007199254740993')
      .reply(200, body, { sunset: 'Thu, 05 Dec 2030 00:00:00 GMT', deprecation: '@1767225600' });
    const result = await run(['pets', 'get', '9007199254740993', '--json'], { env: env() });
    expect(result).toEqual({
      code: 0,
      stdout: `${body}\n`,
      stderr: WARNING,
      prompts: [],
    });
  });

  it('fails with exit 1 on a pet without its required id, printing nothing', async () => {
    api().get('/v1/pets/42').reply(200, '{"name":"Rex","categoryId":1}');
    expect(await run(['pets', 'get', '42'], { env: env() })).toEqual({
      code: 1,
      stdout: '',
      stderr: `${WARNING}error: the server sent a response of an unexpected shape (HTTP 200)\nhint: run with --debug for details\n`,
      prompts: [],
    });
  });

  it('exits 5 when the pet does not exist', async () => {
    api()
      .get('/v1/pets/9')
      .reply(404, { code: 'not_found', message: 'pet 9 not found', status: 404 });
    const result = await run(['pets', 'get', '9'], { env: env() });
    expect(result).toEqual({
      code: 5,
      stdout: '',
      stderr: `${WARNING}error: pet 9 not found (not_found, HTTP 404)\n`,
      prompts: [],
    });
  });

  it.each(['abc', '1.5', '9223372036854775808', '-9223372036854775809'])(
    'rejects the id %s with exit 2',
    async (id) => {
      const result = await run(['pets', 'get', '--', id], { env: env() });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: petId must be an integer in the int64 range (got "${id}")\n`,
        prompts: [],
      });
    },
  );

  it('says nothing of the deprecation when it cannot run: no key, an unknown profile', async () => {
    const noKey = await run(['pets', 'get', '1'], { env: baseEnv() });
    expect(noKey).toEqual(NO_KEY);
    const unknown = await run(['pets', 'get', '1', '-p', 'nope'], { env: env() });
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: unknown profile "nope"\nhint: see `store profile list`, or create it with `store profile set nope --base-url <url>`\n',
      prompts: [],
    });
  });

  it('needs an id', async () => {
    const result = await run(['pets', 'get'], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: store pets get needs <petId>\nhint: see `store pets get --help`\n',
      prompts: [],
    });
  });
});
