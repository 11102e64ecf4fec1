import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, run, tempDir } from '../../helpers/cli.js';
import { api, KEY, unexpected } from '../../helpers/http.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });
const JSON_HEADERS = { 'content-type': 'application/json' };

function created(id: number | string, name: string, categoryId: number | string, status?: string) {
  const statusField = status ? `,"status":"${status}"` : '';
  return `{"id":${id},"name":"${name}","categoryId":${categoryId}${statusField}}`;
}

function fileWith(text: string): string {
  const path = join(tempDir(), 'animals.json');
  writeFileSync(path, text);
  return path;
}

describe('store pets add (flags)', () => {
  it('takes the int64 extremes as --category-id', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"Min","categoryId":-9223372036854775808}')
      .reply(201, created(1, 'Min', '-9223372036854775808'), JSON_HEADERS);
    const result = await run(
      ['pets', 'add', '--name', 'Min', '--category-id', '-9223372036854775808', '--json'],
      { env: env() },
    );
    expect(scope.isDone()).toBe(true);
    expect(result.stdout).toBe(`${created(1, 'Min', '-9223372036854775808')}\n`);
    const max = api()
      .post('/v1/pets', '{"name":"Max","categoryId":9223372036854775807}')
      .reply(201, created(2, 'Max', '9223372036854775807'), JSON_HEADERS);
    const top = await run(
      ['pets', 'add', '--name', 'Max', '--category-id', '9223372036854775807', '--json'],
      { env: env() },
    );
    expect(max.isDone()).toBe(true);
    expect(top.stdout).toBe(`${created(2, 'Max', '9223372036854775807')}\n`);
  });

  it('POSTs a NewPet and prints the created pet', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"Rex","categoryId":2,"status":"available"}')
      .matchHeader('content-type', 'application/json')
      .reply(201, created(7, 'Rex', 2, 'available'), JSON_HEADERS);
    const result = await run(
      ['pets', 'add', '--name', 'Rex', '--category-id', '2', '--status', 'available'],
      { env: env() },
    );
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n7\tRex\t2\tavailable\n',
      stderr: '',
      prompts: [],
    });
  });

  it('sends a category id beyond 2^53 digit for digit and prints the server’s object with --json', async () => {
    const body = '{"id":9007199254740995,"name":"Big","categoryId":9007199254740993,"extra":true}';
    const scope = api()
      .post('/v1/pets', '{"name":"Big","categoryId":9007199254740993}')
      .reply(201, body);
    const result = await run(
      ['pets', 'add', '--name', 'Big', '--category-id', '9007199254740993', '--json'],
      { env: env() },
    );
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: `${body}\n`, stderr: '', prompts: [] });
  });

  it.each([
    [['--category-id', '1'], '--name is required (or give --file)'],
    [['--name', 'Rex'], '--category-id is required (or give --file)'],
    [['--name', '', '--category-id', '1'], '--name must not be empty'],
    [
      ['--name', 'Rex', '--category-id', 'cats'],
      '--category-id must be an integer in the int64 range (got "cats")',
    ],
    [
      ['--name', 'Rex', '--category-id', '9223372036854775808'],
      '--category-id must be an integer in the int64 range (got "9223372036854775808")',
    ],
    [
      ['--name', 'Rex', '--category-id', '1', '--status', 'gone'],
      '--status must be one of available, pending, sold (got "gone")',
    ],
    [
      ['--file', 'x.json', '--name', 'Rex'],
      '--file cannot be combined with --name, --category-id or --status',
    ],
    [
      ['--file', 'x.json', '--category-id', '1'],
      '--file cannot be combined with --name, --category-id or --status',
    ],
    [
      ['--file', 'x.json', '--status', 'sold'],
      '--file cannot be combined with --name, --category-id or --status',
    ],
    [
      ['--name', 'Rex', '--category-id', '1', '--status', 'Sold'],
      '--status must be one of available, pending, sold (got "Sold")',
    ],
    [
      ['--name', 'Rex', '--category-id', '-9223372036854775809'],
      '--category-id must be an integer in the int64 range (got "-9223372036854775809")',
    ],
  ])('rejects %j with exit 2 and sends nothing', async (flags, message) => {
    const result = await run(['pets', 'add', ...flags], { env: env() });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
  });

  it('maps a 400 Error body to exit 3', async () => {
    api()
      .post('/v1/pets')
      .reply(400, { code: 'invalid_body', message: 'name is too long', status: 400 });
    const result = await run(['pets', 'add', '--name', 'Rex', '--category-id', '1'], {
      env: env(),
    });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr: 'error: name is too long (invalid_body, HTTP 400)\n',
      prompts: [],
    });
  });
});

describe('store pets add --file', () => {
  it('adds one JSON object', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"Rex","categoryId":1}')
      .reply(201, created(1, 'Rex', 1));
    const result = await run(['pets', 'add', '--file', fileWith('{"name":"Rex","categoryId":1}')], {
      env: env(),
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t1\t\n',
      stderr: '1 created, 0 failed, 0 uncertain, 0 not sent\n',
      prompts: [],
    });
  });

  it('adds a JSON array in order and prints NDJSON with --json', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"A","categoryId":1}')
      .reply(201, created(1, 'A', 1))
      .post('/v1/pets', '{"name":"B","categoryId":9007199254740993,"status":"sold"}')
      .reply(201, created(2, 'B', '9007199254740993', 'sold'));
    const file = fileWith(
      '[{"name":"A","categoryId":1},{"name":"B","categoryId":9007199254740993,"status":"sold"}]',
    );
    const result = await run(['pets', 'add', '--file', file, '--json'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: `${created(1, 'A', 1)}\n${created(2, 'B', '9007199254740993', 'sold')}\n`,
      stderr: '{"summary":{"created":2,"failed":0,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('reads NDJSON from stdin with --file -', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"A","categoryId":1}')
      .reply(201, created(1, 'A', 1))
      .post('/v1/pets', '{"name":"B","categoryId":2}')
      .reply(201, created(2, 'B', 2));
    const result = await run(['pets', 'add', '--file', '-'], {
      env: env(),
      stdin: '{"name":"A","categoryId":1}\n\n{"name":"B","categoryId":2}\n',
    });
    expect(scope.isDone()).toBe(true);
    expect(result.stdout).toBe('ID\tNAME\tCATEGORY\tSTATUS\n1\tA\t1\t\n2\tB\t2\t\n');
    expect(result.code).toBe(0);
  });

  it('reports every object, sends none that fail validation, and exits with the first failure', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"A","categoryId":1}')
      .reply(201, created(1, 'A', 1))
      .post('/v1/pets', '{"name":"C","categoryId":3}')
      .reply(404, { code: 'no_category', message: 'category 3 does not exist', status: 404 })
      .post('/v1/pets', '{"name":"D","categoryId":4}')
      .reply(201, created(4, 'D', 4));
    // The first failure in input order is the 404 (exit 5); the invalid inputs after it
    // (exit 3) are settled sooner, without a request.
    const lines = [
      '{"name":"A","categoryId":1}',
      '{"name":"C","categoryId":3}',
      '{"name":"B"}',
      '"not an object"',
      '{"name":"D","categoryId":4}',
    ];
    const json = await run(['pets', 'add', '--file', '-', '--json'], {
      env: env(),
      stdin: `${lines.join('\n')}\n`,
    });
    expect(scope.isDone()).toBe(true);
    expect(json.code).toBe(5);
    expect(json.stderr).toBe('{"summary":{"created":2,"failed":3,"uncertain":0,"notSent":0}}\n');
    expect(json.stdout.split('\n')).toEqual([
      created(1, 'A', 1),
      '{"input":2,"line":2,"error":{"code":"no_category","message":"category 3 does not exist","status":404}}',
      '{"input":3,"line":3,"error":{"code":"invalid_input","message":"categoryId is required","status":null}}',
      '{"input":4,"line":4,"error":{"code":"invalid_input","message":"expected an object with name and categoryId (got a string)","status":null}}',
      created(4, 'D', 4),
      '',
    ]);
  });

  it('lists created pets on stdout and failures on stderr without --json', async () => {
    api()
      .post('/v1/pets', '{"name":"A","categoryId":1}')
      .reply(201, created(1, 'A', 1))
      .post('/v1/pets', '{"name":"B","categoryId":2}')
      .reply(503, { code: 'unavailable', message: 'down for maintenance', status: 503 });
    const result = await run(['pets', 'add', '--file', '-'], {
      env: env(),
      stdin: '[{"name":"A","categoryId":1},{"name":"B","categoryId":2}]',
    });
    expect(result).toEqual({
      code: 7,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n1\tA\t1\t\n',
      stderr:
        'error: input 2: down for maintenance (unavailable, HTTP 503)\n1 created, 1 failed (input 2), 0 uncertain, 0 not sent\n',

      prompts: [],
    });
  });

  it.each([500, 502, 504, 599])(
    'holds an input answered %i as uncertain: the server may have created it before it failed',
    async (status) => {
      api()
        .post('/v1/pets', '{"name":"B","categoryId":2}')
        .reply(status, { code: 'internal', message: 'database down', status });
      const result = await run(['pets', 'add', '--file', '-'], {
        env: env(),
        stdin: '[{"name":"B","categoryId":2}]',
      });
      expect(result).toEqual({
        code: 7,
        stdout: '',
        stderr:
          `error: input 1: database down (internal, HTTP ${status})\nhint: the animal may have been created\n` +
          '0 created, 0 failed, 1 uncertain (input 1), 0 not sent; uncertain inputs: they may have been created, and adding them again may duplicate them\n',
        prompts: [],
      });
    },
  );

  it('writes a backslash in a created animal’s row as \\\\, as every tab-separated row does', async () => {
    api()
      .post('/v1/pets', '{"name":"C:\\\\dogs\\tRex","categoryId":1}')
      .reply(201, created(1, 'C:\\\\dogs\\tRex', 1));
    const result = await run(['pets', 'add', '--file', '-'], {
      env: env(),
      stdin: '{"name":"C:\\\\dogs\\tRex","categoryId":1}',
    });
    expect(result).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n1\tC:\\\\dogs\\tRex\t1\t\n',
      stderr: '1 created, 0 failed, 0 uncertain, 0 not sent\n',
      prompts: [],
    });
  });

  it('reads a one-line JSON array that starts after spaces as the array it is', async () => {
    const result = await run(['pets', 'add', '--file', '-', '--dry-run', '--json'], {
      env: env(),
      stdin: ' \t[{"name":"A","categoryId":1},{"name":"B","categoryId":2}]\n',
    });
    expect(result).toEqual({
      code: 0,
      stdout: '{"input":1,"valid":true}\n{"input":2,"valid":true}\n',
      stderr: '{"summary":{"valid":2,"failed":0}}\n',
      prompts: [],
    });
  });

  it('reads a pretty-printed JSON object whole', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"Rex","categoryId":1}')
      .reply(201, created(1, 'Rex', 1));
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: env(),
      stdin: '{\n  "name": "Rex",\n  "categoryId": 1\n}\n',
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: `${created(1, 'Rex', 1)}\n`,
      stderr: '{"summary":{"created":1,"failed":0,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('sends good NDJSON lines and reports a broken later line as that input’s failure (exit 3)', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"A","categoryId":1}')
      .reply(201, created(1, 'A', 1))
      .post('/v1/pets', '{"name":"C","categoryId":3}')
      .reply(201, created(3, 'C', 3));
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: env(),
      stdin: '{"name":"A","categoryId":1}\n{"name":\n{"name":"C","categoryId":3}\n',
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 3,
      stdout:
        `${created(1, 'A', 1)}\n` +
        '{"input":2,"line":2,"error":{"code":"invalid_json","message":"not valid JSON","status":null}}\n' +
        `${created(3, 'C', 3)}\n`,
      stderr: '{"summary":{"created":2,"failed":1,"uncertain":0,"notSent":0}}\n',

      prompts: [],
    });
  });

  it('reports an NDJSON line that is not UTF-8 as that input’s failure, and keeps its bytes in --failed', async () => {
    // A Latin-1 export: decoded as UTF-8, "Café" became "Caf\uFFFD" and was created so.
    const dir = tempDir();
    const file = join(dir, 'pets.ndjson');
    const latin1 = Buffer.from('{"name":"Caf\xe9","categoryId":2}', 'latin1');
    writeFileSync(file, Buffer.concat([Buffer.from('{"name":"A","categoryId":1}\n'), latin1]));
    const failed = join(dir, 'failed.ndjson');
    const scope = api()
      .post('/v1/pets', '{"name":"A","categoryId":1}')
      .reply(201, created(1, 'A', 1));
    const result = await run(['pets', 'add', '--file', file, '--failed', failed, '--json'], {
      env: env(),
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 3,
      stdout:
        `${created(1, 'A', 1)}\n` +
        '{"input":2,"line":2,"error":{"code":"invalid_encoding","message":"not UTF-8 text","status":null}}\n',
      stderr: `{"summary":{"created":1,"failed":1,"uncertain":0,"notSent":0,"failedFile":${JSON.stringify(failed)}}}\n`,
      prompts: [],
    });
    expect(readFileSync(failed)).toEqual(Buffer.concat([latin1, Buffer.from('\n')]));
  });

  it.each([
    ['a JSON array', '[{"name":"Caf\xe9","categoryId":2}]', 1],
    [
      'NDJSON whose first line',
      '{"name":"Caf\xe9","categoryId":2}\n{"name":"A","categoryId":1}',
      1,
    ],
    ['a pretty-printed object', '{\n  "name": "Caf\xe9",\n  "categoryId": 2\n}', 2],
  ])('refuses %s is not UTF-8 with exit 2, nothing sent', async (_what, text, line) => {
    const file = join(tempDir(), 'pets.json');
    writeFileSync(file, Buffer.from(text, 'latin1'));
    const result = await run(['pets', 'add', '--file', file], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: --file: line ${line} is not UTF-8 text; nothing was sent\n`,
      prompts: [],
    });
  });

  it.each([
    [['--concurrency', '0'], '--concurrency must be an integer from 1 to 64 (got "0")'],
    [['--concurrency', '65'], '--concurrency must be an integer from 1 to 64 (got "65")'],
    [['--concurrency'], '--concurrency needs a value: an integer from 1 to 64'],
    [['--category-id'], '--category-id needs a value: an integer in the int64 range'],
    [['--failed'], '--failed needs a value'],
  ])('rejects %j with exit 2', async (flags, message) => {
    const result = await run(['pets', 'add', '--file', '-', ...flags], { env: env(), stdin: '{}' });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
  });

  it.each([
    [['--file', ''], '--file needs a file name (got "")'],
    [['--file', '-', '--failed', ''], '--failed needs a file name (got "")'],
  ])('rejects an empty file name %j with exit 2, nothing sent', async (flags, message) => {
    // `--file "$UNSET"` said "cannot read --file  (ENOENT)".
    const result = await run(['pets', 'add', ...flags], {
      env: env(),
      stdin: '{"name":"A","categoryId":1}\n',
    });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
    expect(unexpected).toEqual([]);
  });

  it('refuses an input nested more than 1000 levels deep, or holding half of a surrogate pair, as its own failure: exit 3, nothing sent for it, its line kept in --failed', async () => {
    // 20,000 levels crashed the import with a stack trace once it was sent; a lone surrogate
    // passed --dry-run and was refused by the sandbox (a server may store it as U+FFFD).
    const nest = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const lines = [
      '{"name":"A","categoryId":1}',
      `{"name":"B","categoryId":1,"x":${nest(999)}}`,
      `{"name":"C","categoryId":1,"x":${nest(1000)}}`,
      `{"name":"D","categoryId":1,"x":${nest(20_000)}}`,
      '{ "name" : "Rex \\ud83d", "categoryId": 1 }',
      '{"name":"E","categoryId":1,"tags":[{"label":"\\udc00"}]}',
      '{"name":"\\ud83d\\udc36","categoryId":2}',
    ];
    const dir = tempDir();
    const file = join(dir, 'pets.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const failed = join(dir, 'failed.ndjson');
    const scope = api()
      .post('/v1/pets', '{"name":"A","categoryId":1}')
      .reply(201, created(1, 'A', 1))
      .post('/v1/pets', lines[1] as string)
      .reply(201, created(2, 'B', 1))
      .post('/v1/pets', '{"name":"\u{1F436}","categoryId":2}')
      .reply(201, created(3, '\u{1F436}', 2));
    const errorLine = (n: number, message: string) =>
      `{"input":${n},"line":${n},"error":{"code":"invalid_input","message":${JSON.stringify(message)},"status":null}}`;
    const errors = [
      [3, 'nests more than 1000 levels deep'],
      [4, 'nests more than 1000 levels deep'],
      [
        5,
        'name must be well-formed Unicode: it holds half of a surrogate pair (got "Rex \\ud83d")',
      ],
      [
        6,
        'tags must be well-formed Unicode: it holds half of a surrogate pair (got [{"label":"\\udc00"}])',
      ],
    ] as const;
    const result = await run(['pets', 'add', '--file', file, '--failed', failed, '--json'], {
      env: env(),
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 3,
      stdout: [
        created(1, 'A', 1),
        created(2, 'B', 1),
        ...errors.map(([n, message]) => errorLine(n, message)),
        created(3, '\u{1F436}', 2),
        '',
      ].join('\n'),
      stderr: `{"summary":{"created":3,"failed":4,"uncertain":0,"notSent":0,"failedFile":${JSON.stringify(failed)}}}\n`,
      prompts: [],
    });
    // As given, spaces and escapes included: `--file failed.ndjson` retries exactly those.
    expect(readFileSync(failed, 'utf8')).toBe(`${lines.slice(2, 6).join('\n')}\n`);

    const dryRun = await run(['pets', 'add', '--file', file, '--dry-run'], { env: env() });
    expect(dryRun).toEqual({
      code: 3,
      stdout: '',
      stderr: `${errors.map(([n, message]) => `error: input ${n} (line ${n}): ${message}\n`).join('')}Checked 7 inputs: 3 valid, 4 failed (inputs 3-6), nothing was sent\n`,
      prompts: [],
    });
  });

  it('refuses a deep input holding a number a double cannot hold in the same words (it was "not valid JSON")', async () => {
    // Such numbers are read by a reviver, whose recursion ends near 2,000 levels.
    const deep = `{"name":"a","categoryId":9007199254740993,"x":${'['.repeat(3000)}${']'.repeat(3000)}}`;
    const ndjson = await run(['pets', 'add', '--file', '-', '--dry-run'], {
      env: env(),
      stdin: `${deep}\n${deep}\n{"name":"b","categoryId":1}\n`,
    });
    expect(ndjson).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'error: input 1 (line 1): nests more than 1000 levels deep\n' +
        'error: input 2 (line 2): nests more than 1000 levels deep\n' +
        'Checked 3 inputs: 1 valid, 2 failed (inputs 1-2), nothing was sent\n',
      prompts: [],
    });
    const document = await run(['pets', 'add', '--file', '-', '--dry-run'], {
      env: env(),
      stdin: `[\n${deep}\n]\n`,
    });
    expect(document).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: --file: the JSON document nests more than 1000 levels deep; nothing was sent\n',
      prompts: [],
    });
  });

  it('cuts the value shown before an emoji the cut would split, never between its halves', async () => {
    const status = `x${'😀'.repeat(100)}`;
    const result = await run(['pets', 'add', '--file', '-', '--dry-run', '--json'], {
      env: env(),
      stdin: `{"name":"a","categoryId":1,"status":"${status}"}\n`,
    });
    // `"x` and 28 emoji are 58 UTF-16 units; the 29th would end on half of its pair.
    const message = `status must be one of available, pending, sold (got "x${'😀'.repeat(28)}…)`;
    expect(result).toEqual({
      code: 3,
      stdout: `{"input":1,"line":1,"error":{"code":"invalid_input","message":${JSON.stringify(message)},"status":null}}\n`,
      stderr: '{"summary":{"valid":0,"failed":1}}\n',
      prompts: [],
    });
  });

  it('calls broken JSON that holds an inexact number not valid JSON, not too deep', async () => {
    const result = await run(['pets', 'add', '--file', '-', '--dry-run'], {
      env: env(),
      stdin: '{"name":"a","categoryId":1}\n{"name":"b","categoryId":1e0,\n',
    });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'error: input 2 (line 2): not valid JSON\n' +
        'Checked 2 inputs: 1 valid, 1 failed (input 2), nothing was sent\n',
      prompts: [],
    });
  });

  it('shows at most 60 characters of a wrong value in an input’s message', async () => {
    const result = await run(['pets', 'add', '--file', '-', '--dry-run'], {
      env: env(),
      stdin: `{"name":["${'a'.repeat(500_000)}"],"categoryId":1}\n`,
    });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: input 1 (line 1): name must be a string with a character other than a space (got ["${'a'.repeat(57)}…)\nChecked 1 inputs: 0 valid, 1 failed (input 1), nothing was sent\n`,
      prompts: [],
    });
  });

  it('warns that --failed cannot hold an input of a JSON document nested too deeply to be written', async () => {
    const dir = tempDir();
    const failed = join(dir, 'failed.ndjson');
    const nest = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const result = await run(['pets', 'add', '--file', '-', '--failed', failed], {
      env: env(),
      stdin: `[{"name":"A","categoryId":1,"x":${nest(20_000)}},{"name":"B"}]`,
    });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'error: input 1: nests more than 1000 levels deep\n' +
        'error: input 2: categoryId is required\n' +
        `0 created, 2 failed (inputs 1-2), 0 uncertain, 0 not sent; failed and not sent in ${failed}\n` +
        `warning: --failed ${failed} does not hold input 1: nested too deeply to be written as JSON\n`,
      prompts: [],
    });
    expect(readFileSync(failed, 'utf8')).toBe('{"name":"B"}\n');
  });

  it('reports an animal whose answer nests more than 1000 levels deep as one that may have been created, not a crash', async () => {
    const deep = `{"id":1,"name":"A","categoryId":1,"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const scope = api()
      .post('/v1/pets', '{"name":"A","categoryId":1}')
      .reply(201, deep, JSON_HEADERS)
      .post('/v1/pets', '{"name":"B","categoryId":2}')
      .reply(201, created(2, 'B', 2), JSON_HEADERS)
      .post('/v1/pets', '{"name":"A","categoryId":1}')
      .reply(201, deep, JSON_HEADERS);
    const message = 'the server sent a response nested more than 1000 levels deep (HTTP 201)';
    const bulk = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
      env: env(),
      stdin: '{"name":"A","categoryId":1}\n{"name":"B","categoryId":2}\n',
    });
    expect(bulk).toEqual({
      code: 1,
      stdout: `{"input":1,"line":1,"error":{"code":"unexpected_response","message":"${message}","status":201,"hint":"the animal may have been created"}}\n${created(2, 'B', 2)}\n`,
      stderr: '{"summary":{"created":1,"failed":0,"uncertain":1,"notSent":0}}\n',
      prompts: [],
    });
    const one = await run(['pets', 'add', '--name', 'A', '--category-id', '1'], { env: env() });
    expect(one).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: ${message}\nhint: the animal may have been created: before adding it again, look for it with \`store pets list --limit 100\` (the service cannot search by name)\n`,
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
  });

  it('takes --concurrency only with --file', async () => {
    const result = await run(
      ['pets', 'add', '--name', 'A', '--category-id', '1', '--concurrency', '2'],
      {
        env: env(),
      },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --concurrency goes with --file\n',
      prompts: [],
    });
  });

  it.each([
    [
      'text that is not JSON',
      'hello world\n{"name":"A","categoryId":1}\n',
      '--file is not JSON or NDJSON (expected a JSON object, a JSON array or NDJSON); nothing was sent',
    ],
    [
      'a JSON array cut short',
      '[{"name":"A","categoryId":1},\n{"name":"B"',
      '--file is not JSON or NDJSON (expected a JSON object, a JSON array or NDJSON); nothing was sent',
    ],
  ])('rejects %s with exit 2 before sending anything', async (_what, text, message) => {
    const result = await run(['pets', 'add', '--file', fileWith(text)], { env: env() });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
  });

  it('has nothing to do with an empty file (a --failed file after a clean run), as with []: exit 0', async () => {
    for (const text of ['', '  \n', '[]']) {
      const result = await run(['pets', 'add', '--file', fileWith(text), '--json'], { env: env() });
      expect(result, JSON.stringify(text)).toEqual({
        code: 0,
        stdout: '',
        stderr: '{"summary":{"created":0,"failed":0,"uncertain":0,"notSent":0}}\n',
        prompts: [],
      });
    }
    expect(unexpected).toEqual([]);
  });

  it('rejects a file that does not exist with exit 2', async () => {
    const path = join(tempDir(), 'missing.json');
    const result = await run(['pets', 'add', '--file', path], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot read --file ${path}: no such file or directory\n`,
      prompts: [],
    });
  });

  it('rejects a folder with exit 2, not as an internal error', async () => {
    const dir = tempDir();
    const result = await run(['pets', 'add', '--file', dir], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot read --file ${dir}: it is a directory\n`,
      prompts: [],
    });
  });
});

describe('store pets add --file with a key the API refuses', () => {
  const PET = '{"id":1,"name":"Rex","categoryId":1}';

  it('pets add --file stops sending at a 401: one POST, the rest not sent, exit 4', async () => {
    api()
      .post('/v1/pets')
      .once()
      .reply(401, { code: 'unauthorized', message: 'key revoked', status: 401 });
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
      env: env(),
      stdin: `${PET}\n${PET}\n${PET}\n`,
    });
    const notSent = (n: number) =>
      `{"input":${n},"error":{"code":"not_sent","message":"input 1 failed: key revoked","status":null}}`;
    expect(result).toEqual({
      code: 4,
      stdout: `{"input":1,"line":1,"error":{"code":"unauthorized","message":"key revoked","status":401,"hint":"the key came from STORE_API_KEY"}}\n${notSent(2)}\n${notSent(3)}\n`,
      stderr:
        '{"error":{"code":"not_sent","message":"inputs 2-3 not sent: input 1 failed: key revoked","status":null,"hint":"the key came from STORE_API_KEY"}}\n' +
        '{"summary":{"created":0,"failed":1,"uncertain":0,"notSent":2,"hint":"resume with: store pets add --file - --json --concurrency 1 --skip 1"}}\n',
      prompts: [],
    });
  });

  it('pets add --file without --json: one error line for the input refused, one for all not sent', async () => {
    api()
      .post('/v1/pets')
      .once()
      .reply(403, { code: 'forbidden', message: 'read-only key', status: 403 });
    const result = await run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
      env: env(),
      stdin: `${PET}\n${PET}\n${PET}\n${PET}\n`,
    });
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'error: input 1 (line 1): read-only key (forbidden, HTTP 403)\nhint: the key came from STORE_API_KEY\n' +
        'error: inputs 2-4 not sent: input 1 failed: read-only key\n' +
        '0 created, 1 failed (input 1), 0 uncertain, 3 not sent (inputs 2-4)\n' +
        'hint: resume with: store pets add --file - --concurrency 1 --skip 1\n',
      prompts: [],
    });
  });
});

describe('store pets add --file - on a terminal', () => {
  it('says what it is waiting for when stdin is a terminal, and nothing when it is a pipe', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"Rex","categoryId":2}')
      .twice()
      .reply(201, created(1, 'Rex', 2), JSON_HEADERS);
    const typed = await run(['pets', 'add', '--file', '-', '--json'], {
      env: env(),
      tty: { stdin: true },
      stdin: '{"name":"Rex","categoryId":2}\n',
    });
    const piped = await run(['pets', 'add', '--file', '-', '--json'], {
      env: env(),
      stdin: '{"name":"Rex","categoryId":2}\n',
    });
    expect(scope.isDone()).toBe(true);
    expect(typed).toEqual({
      code: 0,
      stdout: `${created(1, 'Rex', 2)}\n`,
      stderr:
        '{"notice":{"message":"Reading animals from the terminal, one JSON object per line; Ctrl-D to finish"}}\n' +
        '{"summary":{"created":1,"failed":0,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
    expect(piped.stderr).toBe('{"summary":{"created":1,"failed":0,"uncertain":0,"notSent":0}}\n');
  });
});
