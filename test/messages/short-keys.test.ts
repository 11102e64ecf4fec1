// A key shorter than 8 characters (#30, 7): auth login refuses it (masking one that short would
// hide ordinary words too); one that comes from STORE_API_KEY is masked wherever a server
// echoes it as a word of its own.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { baseEnv, configSetup, readConfig, run } from '../helpers/cli.js';
import { API, api, unexpected } from '../helpers/http.js';

const SHORT = 's3cr3t7';

describe('a key shorter than 8 characters', () => {
  it('is refused by auth login, with and without the check: exit 2, nothing sent or saved', async () => {
    const { env, file } = configSetup();
    for (const flags of [[], ['--no-verify']]) {
      const result = await run(['auth', 'login', '--with-key', ...flags], {
        env,
        stdin: `${SHORT}\n`,
      });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr:
          'error: the key is 7 characters long; store takes keys of 8 or more, which it can mask wherever a server shows them; nothing was saved\n',
        prompts: [],
      });
    }
    expect(existsSync(file)).toBe(false);
    expect(unexpected).toEqual([]);
  });

  it('the sandbox’s published key is no secret: auth login takes it', async () => {
    const { env, file } = configSetup();
    const result = await run(
      ['-p', 'sandbox', 'auth', 'login', '--with-key', '--no-verify', '--insecure-storage'],
      {
        env,
        stdin: 'sandbox\n',
      },
    );
    expect(result.code).toBe(0);
    expect(readConfig(file)).toEqual({ profiles: { sandbox: { apiKey: 'sandbox' } } });
  });

  it('from STORE_API_KEY, echoed by the server, is masked where it stands alone', async () => {
    // It was printed in clear: `error: bad key Bearer s3cr3t7`.
    const env = baseEnv({ STORE_API_KEY: SHORT });
    const body = {
      code: 'unauthorized',
      message: `bad key Bearer ${SHORT}; "${SHORT}" (${SHORT}) ${SHORT}`,
      status: 401,
    };
    const scope = api(API, SHORT).get('/v1/pets').twice().reply(401, body);
    const masked = 'bad key Bearer ****; "****" (****) ****';
    expect(await run(['pets', 'list'], { env })).toEqual({
      code: 4,
      stdout: '',
      stderr: `error: ${masked} (unauthorized, HTTP 401)\nhint: the key came from STORE_API_KEY\n`,
      prompts: [],
    });
    expect(await run(['api', '/pets'], { env })).toEqual({
      code: 4,
      stdout: `{"code":"unauthorized","message":"${masked.replaceAll('"', '\\"')}","status":401}\n`,
      stderr: `error: ${masked} (unauthorized, HTTP 401)\nhint: the key came from STORE_API_KEY\n`,
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
  });

  it('inside a longer word it is left alone: that is data, not the key', async () => {
    const env = baseEnv({ STORE_API_KEY: SHORT });
    const body = { code: 'bad', message: `pet x${SHORT} or ${SHORT}9 is taken`, status: 400 };
    const scope = api(API, SHORT).get('/v1/pets').reply(400, body);
    expect(await run(['pets', 'list'], { env })).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: pet x${SHORT} or ${SHORT}9 is taken (bad, HTTP 400)\n`,
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
  });
});
