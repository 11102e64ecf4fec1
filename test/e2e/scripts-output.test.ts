// The checks, end to end: the built program against the sandbox, through real pipes.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/store.js';
import { tempDir } from '../helpers/cli.js';
import { killAll, processEnv, startSandbox, store } from '../helpers/process.js';

afterEach(killAll);

describe('output for scripts, against the sandbox', () => {
  it('chooses fields, refuses an unknown one, filters with jq', async () => {
    const sandbox = await startSandbox(['--seed', '3']);
    const env = sandbox.env();
    expect(await store(['pets', 'list', '--json', 'id,name'], { env })).toEqual({
      code: 0,
      signal: null,
      stdout: '[{"id":1,"name":"Rex"},{"id":2,"name":"Bella"},{"id":3,"name":"Milo"}]\n',
      stderr: '',
    });
    expect(await store(['pets', 'list', '--json', 'nope'], { env })).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        '{"error":{"code":"usage_error","message":"unknown JSON field \\"nope\\" for store pets list (did you mean \\"name\\"?)","status":null,"hint":"its fields: id, name, categoryId, status"}}\n',
    });
    expect(await store(['pets', 'list', '--jq', '.[].name'], { env })).toEqual({
      code: 0,
      signal: null,
      stdout: 'Rex\nBella\nMilo\n',
      stderr: '',
    });
    expect(await store(['pets', 'list', '--jq', '.['], { env })).toMatchObject({
      code: 2,
      stdout: '',
    });
    expect(await store(['pets', 'list', '--jq', 'error("x")'], { env })).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: '{"error":{"code":"jq_error","message":"--jq: x","status":null}}\n',
    });
  });

  it('gives the filter the environment as $ENV and env, but for the key in STORE_API_KEY', async () => {
    const env = processEnv({ STORE_API_KEY: 'k-secret-98765', WANTED: 'pets list' });
    const result = await store(
      ['help', '--jq', '$ENV | has("STORE_API_KEY"), $ENV.WANTED, (env | tostring)'],
      { env },
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const [has, wanted, all] = result.stdout.trimEnd().split('\n');
    expect(has).toBe('false');
    expect(wanted).toBe('pets list');
    expect(all).toContain('"WANTED":"pets list"');
    expect(all).not.toContain('k-secret-98765');
  });

  it('keeps ids above 2^53 exact through --jq', async () => {
    const data = join(tempDir(), 'data.db');
    (await Store.open(data)).close();
    const db = new DatabaseSync(data);
    db.exec(
      "INSERT INTO pets (id, name, category_id, status) VALUES (9007199254740993, 'Big', 9223372036854775807, 'pending')",
    );
    db.close();
    const sandbox = await startSandbox(['--data', data]);
    const env = sandbox.env();
    expect(await store(['pets', 'list', '--jq', '.[].id'], { env })).toMatchObject({
      code: 0,
      stdout: '9007199254740993\n',
    });
    expect(await store(['pets', 'list', '--jq', '.[0]'], { env })).toMatchObject({
      code: 0,
      stdout:
        '{"id":9007199254740993,"name":"Big","categoryId":9223372036854775807,"status":"pending"}\n',
    });
  });
});
