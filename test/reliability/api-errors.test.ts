import { describe, expect, it } from 'vitest';
import { baseEnv, run } from '../helpers/cli.js';
import { api, KEY } from '../helpers/http.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });

describe('every command that calls the API', () => {
  it.each([
    ['pets list', ['pets', 'list'], 'get', '/v1/pets'],
    ['pets add', ['pets', 'add', '--name', 'Rex', '--category-id', '1'], 'post', '/v1/pets'],
    ['pets get', ['pets', 'get', '1'], 'get', '/v1/pets/1'],
    ['messages send', ['messages', 'send', 'hi'], 'post', '/v1/messages'],
    ['orders list', ['orders', 'list'], 'get', '/v1/store/orders'],
  ] as const)(
    '%s maps 401 to exit 4 with the Error body, stdout empty',
    async (_name, argv, method, path) => {
      const scope = api()
        [method](path)
        .reply(401, { code: 'unauthorized', message: 'key revoked', status: 401 });
      const result = await run([...argv], { env: env() });
      expect(scope.isDone()).toBe(true);
      expect(result.code).toBe(4);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n').slice(-2)).toEqual([
        'error: key revoked; the key came from STORE_API_KEY (unauthorized, HTTP 401)',
        '',
      ]);
    },
  );
});
