import { describe, expect, it } from 'vitest';
import { baseEnv, run } from '../../helpers/cli.js';
import { api, KEY } from '../../helpers/http.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });

describe('store orders list', () => {
  it('renders an array of objects with the union of their keys, in the order first seen', async () => {
    const scope = api()
      .get('/v1/store/orders')
      .reply(
        200,
        '[{"id":1,"petId":9007199254740993,"status":"placed"},{"id":2,"complete":true,"meta":{"a":1}}]',
      );
    const result = await run(['orders', 'list'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout:
        'id\tpetId\tstatus\tcomplete\tmeta\n1\t9007199254740993\tplaced\t\t\n2\t\t\ttrue\t{"a":1}\n',
      stderr: '',
      prompts: [],
    });
  });

  it.each([
    ['as it is', KEY],
    // As an encoder that escapes some characters writes it.
    ['with JSON escapes in it', KEY.replace('-', '\\u002d').replace('-', '\\u002D')],
  ])(
    'masks the key the server echoes in its data (%s): only auth token prints it',
    async (_how, echoed) => {
      const scope = api()
        .get('/v1/store/orders')
        .times(2)
        .reply(200, `[{"id":1,"note":"placed with ${echoed}"}]`);
      const table = await run(['orders', 'list'], { env: env() });
      const json = await run(['orders', 'list', '--json'], { env: env() });
      expect(scope.isDone()).toBe(true);
      expect(table).toMatchObject({ code: 0, stdout: 'id\tnote\n1\tplaced with ****wxyz\n' });
      expect(json).toMatchObject({
        code: 0,
        stdout: '[{"id":1,"note":"placed with ****wxyz"}]\n',
      });
    },
  );

  it('prints anything that is not an array of objects as JSON', async () => {
    api().get('/v1/store/orders').reply(200, '{"orders":[],"next":null}');
    const result = await run(['orders', 'list'], { env: env() });
    expect(result).toEqual({
      code: 0,
      stdout: '{"orders":[],"next":null}\n',
      stderr: '',
      prompts: [],
    });
    // Numbers a double cannot hold are kept exact as raw JSON: still numbers, not objects.
    api().get('/v1/store/orders').reply(200, '[1e400,-1e400]');
    expect((await run(['orders', 'list'], { env: env() })).stdout).toBe('[1e400,-1e400]\n');
    // Arrays are not rows: their indexes are no columns.
    api().get('/v1/store/orders').reply(200, '[[1,2],[3]]');
    expect((await run(['orders', 'list'], { env: env() })).stdout).toBe('[[1,2],[3]]\n');
  });

  it('shows null as an empty cell', async () => {
    api().get('/v1/store/orders').reply(200, '[{"id":1,"shipDate":null,"status":"placed"}]');
    const result = await run(['orders', 'list'], { env: env() });
    expect(result.stdout).toBe('id\tshipDate\tstatus\n1\t\tplaced\n');
  });

  it('an empty list: nothing in a pipe, "No orders found" on a terminal, [] with --json', async () => {
    api().get('/v1/store/orders').times(4).reply(200, '[]');
    expect(await run(['orders', 'list'], { env: env() })).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
      prompts: [],
    });
    expect(await run(['orders', 'list'], { env: { ...env(), NO_COLOR: '1' }, tty: true })).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No orders found\n',
      prompts: [],
    });
    // --json gets neither line, on a terminal or not.
    for (const tty of [false, true]) {
      expect(await run(['orders', 'list', '--json'], { env: env(), tty })).toEqual({
        code: 0,
        stdout: '[]\n',
        stderr: '',
        prompts: [],
      });
    }
  });

  it('says "No orders found" for an empty list only: not for an empty string or a length of 0', async () => {
    api().get('/v1/store/orders').reply(200, '""');
    expect(await run(['orders', 'list'], { env: { ...env(), NO_COLOR: '1' }, tty: true })).toEqual({
      code: 0,
      stdout: '""\n',
      stderr: '',
      prompts: [],
    });
    api().get('/v1/store/orders').reply(200, '{"length":0}');
    expect(await run(['orders', 'list'], { env: { ...env(), NO_COLOR: '1' }, tty: true })).toEqual({
      code: 0,
      stdout: '{\n  "length": 0\n}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('shows the server’s control characters as escapes, in a pipe and in a table', async () => {
    const body = JSON.stringify([{ id: 1, note: 'a\u001b[2J\tb\u009b1m', 'x\u001b]0;t\u0007': 2 }]);
    api().get('/v1/store/orders').times(2).reply(200, body);
    expect(await run(['orders', 'list'], { env: env() })).toEqual({
      code: 0,
      stdout: 'id\tnote\tx\\x1b]0;t\\x07\n1\ta\\x1b[2J\\tb\\x9b1m\t2\n',
      stderr: '',
      prompts: [],
    });
    expect(await run(['orders', 'list'], { env: { ...env(), NO_COLOR: '1' }, tty: true })).toEqual({
      code: 0,
      stdout: 'id  note               x\\x1b]0;t\\x07\n1   a\\x1b[2J\\tb\\x9b1m  2\n',
      stderr: '',
      prompts: [],
    });
  });

  it('never cuts the id column of a table; other columns are cut with …', async () => {
    const body = '[{"id":9007199254740993,"note":"a long note that cannot fit"}]';
    api().get('/v1/store/orders').reply(200, body);
    const result = await run(['orders', 'list'], {
      env: { ...env(), NO_COLOR: '1' },
      tty: true,
      columns: 24,
    });
    expect(result).toEqual({
      code: 0,
      stdout: 'id                note\n9007199254740993  a lon…\n',
      stderr: '',
      prompts: [],
    });
  });

  it.each([
    [200, ['orders', 'list']],
    [204, ['orders', 'list', '--json']],
  ])('an empty body (HTTP %i) is no answer: one error line, exit 1', async (status, argv) => {
    api().get('/v1/store/orders').reply(status, '');
    const json = argv.includes('--json');
    const message = `the server sent an empty response (HTTP ${status})`;
    expect(await run(argv, { env: env() })).toEqual({
      code: 1,
      stdout: '',
      stderr: json
        ? `{"error":{"code":"unexpected_response","message":"${message}","status":${status}}}\n`
        : `error: ${message}\n`,
      prompts: [],
    });
  });

  it('an answer nested more than 1000 levels deep: one error line, exit 1, not an internal error', async () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const scope = api()
      .get('/v1/store/orders')
      .times(2)
      .reply(200, deep(20_000))
      .get('/v1/store/orders')
      .reply(200, deep(1001))
      .get('/v1/store/orders')
      .reply(200, deep(1000));
    const message = 'the server sent a response nested more than 1000 levels deep (HTTP 200)';
    expect(await run(['orders', 'list'], { env: env() })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${message}\n`,
      prompts: [],
    });
    expect(await run(['orders', 'list', '--json'], { env: env() })).toEqual({
      code: 1,
      stdout: '',
      stderr: `{"error":{"code":"unexpected_response","message":"${message}","status":200}}\n`,
      prompts: [],
    });
    expect(await run(['orders', 'list'], { env: env() })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${message}\n`,
      prompts: [],
    });
    expect(await run(['orders', 'list', '--json'], { env: env() })).toEqual({
      code: 0,
      stdout: `${deep(1000)}\n`,
      stderr: '',
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
    // With a number a double cannot hold (read by a reviver): the same, not "not JSON".
    api()
      .get('/v1/store/orders')
      .reply(200, `[-0.5,${deep(3000)}]`);
    expect(await run(['orders', 'list'], { env: env() })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${message}\n`,
      prompts: [],
    });
  });

  it('prints the API data exactly with --json', async () => {
    api().get('/v1/store/orders').reply(200, '[{"id":9007199254740993}]');
    const result = await run(['orders', 'list', '--json'], { env: env() });
    expect(result).toEqual({
      code: 0,
      stdout: '[{"id":9007199254740993}]\n',
      stderr: '',
      prompts: [],
    });
  });
});
