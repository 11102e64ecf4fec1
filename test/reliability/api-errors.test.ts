import { describe, expect, it } from 'vitest';
import { baseEnv, run } from '../helpers/cli.js';
import { api, KEY } from '../helpers/http.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });

describe('every command that calls the API', () => {
  const WARNING =
    "warning: 'store pets get' is deprecated and will be removed on 2030-12-05; use 'store pets list --status <status>' instead\n";
  const COMMANDS = [
    ['pets list', ['pets', 'list'], 'get', '/v1/pets'],
    ['pets add', ['pets', 'add', '--name', 'Rex', '--category-id', '1'], 'post', '/v1/pets'],
    ['pets get', ['pets', 'get', '1'], 'get', '/v1/pets/1'],
    ['messages send', ['messages', 'send', 'hi'], 'post', '/v1/messages'],
    ['orders list', ['orders', 'list'], 'get', '/v1/store/orders'],
  ] as const;

  // The server's message echoes the key: it is masked, as everywhere store shows a key.
  it.each(COMMANDS)(
    '%s maps 401 to exit 4 with the Error body (the key masked), stdout empty',
    async (name, argv, method, path) => {
      const body = { code: 'unauthorized', message: `key ${KEY} revoked`, status: 401 };
      const scope = api()[method](path).times(2).reply(401, body);
      const warning = name === 'pets get' ? WARNING : '';
      expect(await run([...argv], { env: env() })).toEqual({
        code: 4,
        stdout: '',
        stderr: `${warning}error: key ****wxyz revoked; the key came from STORE_API_KEY (unauthorized, HTTP 401)\n`,
        prompts: [],
      });
      expect(await run([...argv, '--json'], { env: env() })).toEqual({
        code: 4,
        stdout: '',
        stderr: `${warning}{"error":{"code":"unauthorized","message":"key ****wxyz revoked; the key came from STORE_API_KEY","status":401}}\n`,
        prompts: [],
      });
      expect(scope.isDone()).toBe(true);
    },
  );

  it('pets add --file masks it in the line of each input, and in the stop line', async () => {
    const body = { code: 'unauthorized', message: `key ${KEY} revoked`, status: 401 };
    const scope = api().post('/v1/pets').reply(401, body);
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
      env: env(),
      stdin: '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n',
    });
    expect(scope.isDone()).toBe(true);
    const masked = 'key ****wxyz revoked; the key came from STORE_API_KEY';
    expect(result).toEqual({
      code: 4,
      stdout:
        `{"input":1,"error":{"code":"unauthorized","message":"${masked}","status":401}}\n` +
        `{"input":2,"error":{"code":"not_sent","message":"input 1 failed: ${masked}","status":null}}\n`,
      stderr: `{"error":{"code":"not_sent","message":"input 2 not sent: input 1 failed: ${masked}","status":null}}\n`,
      prompts: [],
    });
  });
});
