// `pets add` on a terminal: the profile it writes to.
import { describe, expect, it } from 'vitest';
import { baseEnv, run } from '../../helpers/cli.js';
import { api, KEY } from '../../helpers/http.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });
const CREATED = { id: 7, name: 'Rex', categoryId: 1 };

describe('store pets add: the profile it writes to', () => {
  it('names production in a dim line on a terminal before sending', async () => {
    const scope = api().post('/v1/pets', { name: 'Rex', categoryId: 1 }).reply(201, CREATED);
    const result = await run(['pets', 'add', '--name', 'Rex', '--category-id', '1', '--json'], {
      env: env(),
      tty: true,
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: `${JSON.stringify(CREATED, null, 2)}\n`,
      stderr: '\u001b[2mUsing profile production (https://api.animal-store.example/v1)\u001b[22m\n',
      prompts: [],
    });
  });

  it('says nothing about the profile when stderr is not a terminal', async () => {
    api().post('/v1/pets').reply(201, CREATED);
    const result = await run(['pets', 'add', '--name', 'Rex', '--category-id', '1', '--json'], {
      env: env(),
      tty: { stdout: true, stdin: true },
    });
    expect(result.stderr).toBe('');
  });

  it('shows a profile name and URL from the config as text', async () => {
    api('https://x.example').post('/v1/pets').reply(201, CREATED);
    const result = await run(
      ['--no-color', 'pets', 'add', '--name', 'Rex', '--category-id', '1', '--json'],
      { env: baseEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: 'https://x.example/v1' }), tty: true },
    );
    expect(result.stderr).toBe(
      'Using profile production (https://x.example/v1, from STORE_BASE_URL)\n',
    );
  });
});
