// --json FIELDS and --jq, in-process against nock: the exact request, output and exit code.
import { describe, expect, it } from 'vitest';
import { baseEnv, configSetup, run } from '../helpers/cli.js';
import { api, KEY, unexpected } from '../helpers/http.js';

// As the server sends it: the second id is beyond 2^53, and a field the client does not know.
const BODY =
  '[{"id":1,"name":"Rex","categoryId":2,"status":"available"},{"id":9007199254740993,"name":"Tom","categoryId":3,"tag":{"color":"grey"}}]';
const env = () => baseEnv({ STORE_API_KEY: KEY });
const listed = () => api().get('/v1/pets').reply(200, BODY);

describe('--json FIELDS', () => {
  it.each([
    [['pets', 'list', '--json', 'id,name']],
    [['pets', 'list', '--json=id,name']],
    [['pets', 'list', '--json', ' id , name ']],
    [['--json', 'id,name', 'pets', 'list']],
    [['pets', '--json=id,name', 'list']],
  ])('%j prints only those keys of each object, ids exact', async (argv) => {
    const scope = listed();
    const result = await run(argv, { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '[{"id":1,"name":"Rex"},{"id":9007199254740993,"name":"Tom"}]\n',
      stderr: '',
      prompts: [],
    });
  });

  it('keeps the order asked for; a field an object lacks is null; a field named twice once', async () => {
    listed();
    const result = await run(['pets', 'list', '--json', 'status,id,status'], { env: env() });
    expect(result.stdout).toBe(
      '[{"status":"available","id":1},{"status":null,"id":9007199254740993}]\n',
    );
  });

  it('indents on a terminal, as --json does', async () => {
    api()
      .get('/v1/pets/9007199254740993')
      .reply(200, '{"id":9007199254740993,"name":"Tom","categoryId":3}');
    const result = await run(['pets', 'get', '9007199254740993', '--json', 'name'], {
      env: { ...env(), STORE_NO_DEPRECATION_WARNINGS: '1' },
      tty: true,
    });
    expect(result).toMatchObject({ code: 0, stdout: '{\n  "name": "Tom"\n}\n', stderr: '' });
  });

  it.each([
    [
      ['--json', 'bogus'],
      'unknown command \\"bogus\\"; commands: pets, messages, orders, auth, profile, api, sandbox, mcp, completion',
    ],
    [['--json', 'pest', 'list'], 'unknown command \\"pest\\" (did you mean \\"pets\\"?)'],
  ])(
    '%j: a word after --json and before any command is the command, mistyped',
    async (argv, message) => {
      const result = await run(argv, { env: env() });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `{"error":{"code":"usage_error","message":"${message}","status":null}}\n`,
        prompts: [],
      });
      expect(unexpected).toEqual([]);
    },
  );

  /** The service's answer to a message `text` sent, once. */
  const messageSent = (text: string) =>
    api()
      .post('/v1/messages', { message: text })
      .reply(201, { id: 'm1', message: text, status: 'queued', createdAt: '2026-11-22T10:00:00Z' });

  it('takes a word after --json as fields only where it can be fields', async () => {
    // A command word, an id, a profile name: not fields.
    listed();
    expect((await run(['--json', 'pets', 'list'], { env: env() })).stdout).toBe(`${BODY}\n`);
    api().get('/v1/pets/42').reply(200, '{"id":42,"name":"Rex","categoryId":2}');
    const get = await run(['pets', 'get', '--json', '42'], {
      env: { ...env(), STORE_NO_DEPRECATION_WARNINGS: '1' },
    });
    expect(get).toMatchObject({ code: 0, stdout: '{"id":42,"name":"Rex","categoryId":2}\n' });
    const { env: profiles } = configSetup();
    const use = await run(['profile', 'use', '--json', 'staging'], { env: profiles });
    expect(use).toEqual({
      code: 0,
      stdout: '{"profile":"staging","current":true,"overriddenBy":null}\n',
      stderr: '',
      prompts: [],
    });
    // A message that is not a list of its fields is the message.
    const sent = messageSent('hello');
    const send = await run(['messages', 'send', '--json', 'hello'], { env: env() });
    expect(sent.isDone()).toBe(true);
    expect(send).toMatchObject({ code: 0, stdout: expect.stringContaining('"message":"hello"') });
    // The command's own fields, where an argument could also stand: fields when a later word
    // is left for the argument; else the argument (a script's `--json "$msg"`).
    const again = await run(['profile', 'use', '--json', 'profile', 'staging'], { env: profiles });
    expect(again).toMatchObject({ code: 0, stdout: '{"profile":"staging"}\n' });
    const status = messageSent('status');
    const word = await run(['messages', 'send', '--json', 'status'], { env: env() });
    expect(status.isDone()).toBe(true);
    expect(word).toMatchObject({ code: 0, stdout: expect.stringContaining('"message":"status"') });
    const fields = messageSent('hi');
    const named = await run(['messages', 'send', '--json', 'status', '--timeout', '5', 'hi'], {
      env: env(),
    });
    expect(fields.isDone()).toBe(true);
    expect(named).toMatchObject({ code: 0, stdout: '{"status":"queued"}\n' });
  });

  it.each([
    [
      ['pets', 'list', '--json', 'nope'],
      'unknown JSON field "nope" for store pets list (did you mean "name"?)',
      'its fields: id, name, categoryId, status',
    ],
    [
      ['pets', 'list', '--json=id,nmae'],
      'unknown JSON field "nmae" for store pets list (did you mean "name"?)',
      'its fields: id, name, categoryId, status',
    ],
    [
      ['messages', 'send', 'hi', '--json', 'id,text'],
      'unknown JSON field "text" for store messages send',
      'its fields: id, message, status, createdAt',
    ],
    [
      ['pets', 'list', '--json=id,,name'],
      '--json takes field names separated by commas (got "id,,name")',
      undefined,
    ],
    [
      ['completion', 'bash', '--json=id'],
      'store completion prints no JSON data: --json FIELDS does not apply to it',
      undefined,
    ],
    [
      ['completion', 'bash', '--jq', '.'],
      'store completion prints no JSON data: --jq does not apply to it',
      undefined,
    ],
  ])('%j is a usage error, and nothing is sent', async (argv, message, hint) => {
    const result = await run(argv, { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({ error: { code: 'usage_error', message, status: null, hint } })}\n`,
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it.each(['id,,name', 'id,', ',id'])(
    'refuses --json %s as a list with a name missing, where no argument can stand: nothing sent',
    async (word) => {
      const result = await run(['pets', 'list', '--json', word], { env: env() });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `{"error":{"code":"usage_error","message":${JSON.stringify(`--json takes field names separated by commas (got ${JSON.stringify(word)})`)},"status":null}}\n`,
        prompts: [],
      });
      expect(unexpected).toEqual([]);
    },
  );

  it('chooses any field of an answer whose fields are not described (orders list)', async () => {
    api()
      .get('/v1/store/orders')
      .reply(200, '[{"orderId":7,"petId":9007199254740993,"quantity":1}]');
    const result = await run(['orders', 'list', '--json', 'petId,orderId'], { env: env() });
    expect(result).toMatchObject({
      code: 0,
      stdout: '[{"petId":9007199254740993,"orderId":7}]\n',
      stderr: '',
    });
  });

  it('chooses among the fields of each animal a bulk add created; a failure’s line stays whole', async () => {
    const scope = api()
      .post('/v1/pets', { name: 'Rex', categoryId: 2 })
      .reply(201, '{"id":9007199254740995,"name":"Rex","categoryId":2}');
    const result = await run(['pets', 'add', '--file', '-', '--json', 'id'], {
      env: env(),
      stdin: '{"name":"Rex","categoryId":2}\n{"name":"Tom"}\n',
    });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe(
      '{"id":9007199254740995}\n{"input":2,"line":2,"error":{"code":"invalid_input","message":"categoryId is required","status":null}}\n',
    );
  });

  it('refuses --jq for a bulk add (NDJSON, one line per input), before reading it', async () => {
    const result = await run(['pets', 'add', '--file', '-', '--jq', '.id'], {
      env: env(),
      stdin: '{"name":"Rex","categoryId":1}\n',
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({ error: { code: 'usage_error', message: '--jq does not apply to pets add --file', status: null, hint: 'its --json output is NDJSON, one line per input: pipe it to jq' } })}\n`,
      prompts: [],
    });
  });

  it('lists the fields in each command’s help', async () => {
    const result = await run(['pets', 'list', '--help'], { env: env() });
    expect(result.stdout).toContain(
      '\nJSON fields (--json FIELDS, --jq):\n  id, name, categoryId, status\n\nExamples:\n',
    );
    const orders = await run(['orders', 'list', '--help'], { env: env() });
    expect(orders.stdout).toContain(
      'JSON fields (--json FIELDS, --jq):\n  not described: --json FIELDS takes any name\n',
    );
  });
});

describe('--json errors', () => {
  it('are one JSON object a line on a terminal too, not wrapped to its width', async () => {
    const message =
      'Pet 12345 was not found in this store, please check the identifier and try again later';
    const scope = api()
      .get('/v1/pets/12345')
      .reply(404, { code: 'not_found', message, status: 404 });
    const result = await run(['pets', 'get', '12345', '--json'], {
      // Its deprecation warning, text, is another matter.
      env: { ...env(), STORE_NO_DEPRECATION_WARNINGS: '1' },
      tty: { stderr: true },
      columns: 40,
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 5,
      stdout: '',
      stderr: `{"error":{"code":"not_found","message":"${message}","status":404}}\n`,
      prompts: [],
    });
  });
});

describe('--jq', () => {
  it('prints each result on its own line, strings raw', async () => {
    const scope = listed();
    const result = await run(['pets', 'list', '--jq', '.[].name'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: 'Rex\nTom\n', stderr: '', prompts: [] });
  });

  it.each([
    ['.[].id', '1\n9007199254740993\n'],
    ['.[1]', '{"id":9007199254740993,"name":"Tom","categoryId":3,"tag":{"color":"grey"}}\n'],
    ['.[1].id | tostring', '9007199254740993\n'],
    ['map(select(.status == "available")) | length', '1\n'],
    ['.[] | [.id, .name] | @tsv', '1\tRex\n9007199254740993\tTom\n'],
    ['.[1].tag', '{"color":"grey"}\n'],
    ['empty', ''],
  ])('%s keeps ids above 2^53 exact', async (expression, stdout) => {
    listed();
    const result = await run(['pets', 'list', '--jq', expression], { env: env() });
    expect(result).toEqual({ code: 0, stdout, stderr: '', prompts: [] });
  });

  it('gives the filter the environment as $ENV and env, as jq does', async () => {
    listed();
    const result = await run(
      ['pets', 'list', '--jq', '.[] | select(.name == $ENV.WANTED) | [.id, env.WANTED] | @tsv'],
      { env: { ...env(), WANTED: 'Tom' } },
    );
    expect(result).toEqual({
      code: 0,
      stdout: '9007199254740993\tTom\n',
      stderr: '',
      prompts: [],
    });
    // A filter that cannot follow the binding that gives it (a module directive) runs as given.
    listed();
    const module = await run(['pets', 'list', '--jq', 'module {}; .[0].name'], { env: env() });
    expect(module).toEqual({ code: 0, stdout: 'Rex\n', stderr: '', prompts: [] });
  });

  it('filters the fields chosen with --json FIELDS', async () => {
    listed();
    const result = await run(['pets', 'list', '--json', 'name,id', '--jq', '.[1]'], {
      env: env(),
    });
    expect(result.stdout).toBe('{"name":"Tom","id":9007199254740993}\n');
  });

  it('on a terminal: JSON indented, control characters in strings shown, not sent', async () => {
    api().get('/v1/pets').reply(200, '[{"id":1,"name":"R\\u001b[31mex","categoryId":2}]');
    const result = await run(['pets', 'list', '--jq', '.[0].name, .[0]'], {
      env: env(),
      tty: true,
    });
    expect(result.stdout).toBe(
      'R\\x1b[31mex\n{\n  "id": 1,\n  "name": "R\\u001b[31mex",\n  "categoryId": 2\n}\n',
    );
  });

  it('neutralises what `stderr` and `debug` write on a terminal; a pipe gets it as jq wrote it', async () => {
    // An OSC title change, a C1 CSI (U+009B) and a bidi override from the server went to the
    // terminal raw.
    const body = '[{"id":1,"name":"R\\u001b]0;x\\u0007\\u009b2J\\u202eex","categoryId":2}]';
    const expression = '.[0].name | stderr | debug | empty';
    const scope = api().get('/v1/pets').times(2).reply(200, body);
    const tty = await run(['pets', 'list', '--jq', expression], {
      env: env(),
      tty: { stdout: true, stderr: true },
    });
    const piped = await run(['pets', 'list', '--jq', expression], { env: env() });
    expect(scope.isDone()).toBe(true);
    // `stderr` writes the string raw and no newline; `debug` a JSON line (jq escapes C0 only).
    expect(tty).toEqual({
      code: 0,
      stdout: '',
      stderr: 'R\\x1b]0;x\\x07\\x9b2J\\u202eex["DEBUG:","R\\u001b]0;x\\u0007\\x9b2J\\u202eex"]\n',
      prompts: [],
    });
    expect(piped).toEqual({
      code: 0,
      stdout: '',
      stderr: 'R\u001b]0;x\u0007\u009b2J\u202eex["DEBUG:","R\\u001b]0;x\\u0007\u009b2J\u202eex"]\n',
      prompts: [],
    });
  });

  it('passes the raw text through a pipe, as jq -r does', async () => {
    api().get('/v1/pets').reply(200, '[{"id":1,"name":"a\\tb\\nc","categoryId":2}]');
    const result = await run(['pets', 'list', '--jq', '.[0].name'], { env: env() });
    expect(result.stdout).toBe('a\tb\nc\n');
  });

  it.each([
    ['.[', '--jq: syntax error, unexpected end of file at <top-level>, line 1, column 2'],
    ['.[] | nosuch', '--jq: nosuch/0 is not defined at <top-level>, line 1, column 7'],
  ])('%j does not compile: exit 2 with jq’s message, nothing sent', async (expression, message) => {
    const result = await run(['pets', 'list', '--jq', expression], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({ error: { code: 'usage_error', message, status: null } })}\n`,
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it.each([
    ['error("x")', '--jq: x'],
    ['.[] | .name | error', '--jq: Rex'],
    ['error({a: 1})', '--jq: (not a string): {"a":1}'],
    ['.[0] | .id.x', '--jq: Cannot index number with string ("x")'],
  ])(
    '%j fails while filtering: exit 1 with jq’s message, stdout empty',
    async (expression, message) => {
      const scope = listed();
      const result = await run(['pets', 'list', '--jq', expression], { env: env() });
      expect(scope.isDone()).toBe(true);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `${JSON.stringify({ error: { code: 'jq_error', message, status: null } })}\n`,
        prompts: [],
      });
    },
  );

  it('filters a raw request’s JSON answer (store api), and refuses an answer that is not JSON', async () => {
    listed();
    const result = await run(['api', '/pets', '--jq', '.[1].id'], { env: env() });
    expect(result).toEqual({ code: 0, stdout: '9007199254740993\n', stderr: '', prompts: [] });
    api().get('/v1/pets').reply(200, 'plain words', { 'content-type': 'text/plain' });
    const text = await run(['api', '/pets', '--jq', '.'], { env: env() });
    expect(text).toEqual({
      code: 1,
      stdout: '',
      stderr:
        '{"error":{"code":"not_json","message":"--jq and --json FIELDS need a JSON answer; this one is not JSON","status":null}}\n',
      prompts: [],
    });
  });

  it('says so when the engine itself fails (values nested 10,000 deep), and recovers', async () => {
    const deep = await run([
      'help',
      '--jq',
      'reduce range(10000) as $_ ([]; [.]) | tojson | fromjson | flatten',
    ]);
    expect(deep).toEqual({
      code: 1,
      stdout: '',
      stderr:
        '{"error":{"code":"jq_error","message":"--jq: the jq engine stopped (memory access out of bounds): values nested too deep?","status":null}}\n',
      prompts: [],
    });
    expect(await run(['help', '--jq', '.version'])).toMatchObject({ code: 0, stdout: '1\n' });
  });

  it('refuses an empty expression', async () => {
    const result = await run(['pets', 'list', '--jq', ' '], { env: env() });
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        '{"error":{"code":"usage_error","message":"--jq needs a jq expression (got \\"\\")","status":null}}\n',
    });
  });

  it('works on any command that prints data: auth status, profile list', async () => {
    api().get('/v1/pets').query({ limit: '1' }).reply(200, '[]');
    const status = await run(['auth', 'status', '--jq', '.valid, .keySource'], { env: env() });
    expect(status).toEqual({ code: 0, stdout: 'true\nenv\n', stderr: '', prompts: [] });
    const { env: profiles } = configSetup();
    const list = await run(['profile', 'list', '--jq', '.[] | select(.current) | .name'], {
      env: profiles,
    });
    expect(list).toEqual({ code: 0, stdout: 'production\n', stderr: '', prompts: [] });
  });
});
