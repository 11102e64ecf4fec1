// What each command prints under --json has exactly the fields its declaration lists (define.ts,
// `output`), in that order: --help, the completion scripts, `store help --json` and --json FIELDS
// all read the declaration, so a key added to the data and not to it would be missed by them.
import { describe, expect, it } from 'vitest';
import { outputOf } from '../../src/commands/define.js';
import { declaredFields } from '../../src/commands/json-output.js';
import { baseEnv, configSetup, run } from '../helpers/cli.js';
import { api, KEY } from '../helpers/http.js';
import { programTree } from '../helpers/tree.js';

const PET = '{"id":7,"name":"Rex","categoryId":2,"status":"sold"}';
const MESSAGE = '{"id":"m1","message":"hi","status":"queued","createdAt":"2026-11-22T10:00:00Z"}';

function fieldsOf(path: string): string[] | undefined {
  let command = programTree();
  for (const name of path.split(' ')) {
    command = command.commands.find((sub) => sub.name() === name) ?? command;
  }
  return declaredFields(outputOf(command));
}

/** The keys of the object printed, or of each element of the array. */
function keysPrinted(stdout: string): string[][] {
  const data = JSON.parse(stdout) as object | object[];
  return (Array.isArray(data) ? data : [data]).map((item) => Object.keys(item));
}

describe('--json prints the fields the command declares', () => {
  const env = () => baseEnv({ STORE_API_KEY: KEY });
  const cases: [string, string[], () => Promise<Record<string, string | undefined>>][] = [
    [
      'pets list',
      ['pets', 'list'],
      async () => {
        api().get('/v1/pets').reply(200, `[${PET}]`);
        return env();
      },
    ],
    [
      'pets get',
      ['pets', 'get', '7'],
      async () => {
        api().get('/v1/pets/7').reply(200, PET);
        return { ...env(), STORE_NO_DEPRECATION_WARNINGS: '1' };
      },
    ],
    [
      'pets add',
      ['pets', 'add', '--name', 'Rex', '--category-id', '2', '--status', 'sold'],
      async () => {
        api().post('/v1/pets').reply(201, PET);
        return env();
      },
    ],
    [
      'messages send',
      ['messages', 'send', 'hi'],
      async () => {
        api().post('/v1/messages').reply(201, MESSAGE);
        return env();
      },
    ],
    [
      'auth status',
      ['auth', 'status'],
      async () => {
        api().get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
        return env();
      },
    ],
    ['auth token', ['auth', 'token'], async () => env()],
    ['auth logout', ['auth', 'logout'], async () => configSetup().env],
    [
      'auth login',
      ['auth', 'login', '--with-key', '--no-verify', '--insecure-storage'],
      async () => configSetup().env,
    ],
    ['profile list', ['profile', 'list'], async () => configSetup().env],
    ['profile use', ['profile', 'use', 'staging'], async () => configSetup().env],
    [
      'profile set',
      ['profile', 'set', 'mine', '--base-url', 'http://127.0.0.1:9/v1'],
      async () => configSetup().env,
    ],
  ];

  it.each(cases)('%s', async (path, argv, setup) => {
    const fields = fieldsOf(path);
    expect(fields?.length).toBeGreaterThan(1);
    const result = await run([...argv, '--json'], { env: await setup(), stdin: 'k-new-1234\n' });
    expect(result).toMatchObject({ code: 0 });
    for (const keys of keysPrinted(result.stdout)) expect(keys).toEqual(fields);
  });

  it('profile remove', async () => {
    const { env: profiles } = configSetup();
    await run(['profile', 'set', 'mine', '--base-url', 'http://127.0.0.1:9/v1'], {
      env: profiles,
    });
    const result = await run(['profile', 'remove', 'mine', '--json'], { env: profiles });
    expect(result).toMatchObject({ code: 0 });
    expect(keysPrinted(result.stdout)).toEqual([fieldsOf('profile remove')]);
  });
});
