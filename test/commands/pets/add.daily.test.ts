// `pets add` on a terminal: the profile it writes to.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CancelledError } from '../../../src/errors.js';
import { promptLine } from '../../../src/prompt.js';
import { baseEnv, run } from '../../helpers/cli.js';
import { api, KEY, unexpected } from '../../helpers/http.js';

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

describe('store pets add on a terminal: asks for what is missing', () => {
  const env = () => baseEnv({ STORE_API_KEY: KEY, NO_COLOR: '1' });
  const STATUS_Q = 'Status: 1) available  2) pending  3) sold, or Enter for none: ';

  it('asks for the name, the category id and the status, then sends them', async () => {
    const scope = api()
      .post('/v1/pets', { name: 'Rex', categoryId: 7, status: 'pending' })
      .reply(201, { id: 1, name: 'Rex', categoryId: 7, status: 'pending' });
    const result = await run(['pets', 'add', '--json'], {
      env: env(),
      tty: true,
      answers: ['Rex', '7', '2'],
    });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
    expect(result.prompts).toEqual(['Name: ', 'Category id: ', STATUS_Q]);
  });

  it('asks only for what is missing, again after a bad answer; Enter means no status', async () => {
    const scope = api()
      .post('/v1/pets', '{"name":"Rex","categoryId":9007199254740993}')
      .reply(201, '{"id":1,"name":"Rex","categoryId":9007199254740993}');
    const result = await run(['pets', 'add', '--name', 'Rex', '--json'], {
      env: env(),
      tty: true,
      answers: ['seven', '9007199254740993', 'Sold', '4', ''],
    });
    expect(scope.isDone()).toBe(true);
    expect(result.prompts).toEqual([
      'Category id: ',
      'Category id: ',
      STATUS_Q,
      STATUS_Q,
      STATUS_Q,
    ]);
    // The profile first, before the questions.
    expect(result.stderr).toBe(
      'Using profile production (https://api.animal-store.example/v1)\n' +
        'the category id must be an integer in the int64 range (got "seven")\n' +
        'choose 1 to 3, or available, pending, sold, or press Enter for none\n' +
        'choose 1 to 3, or available, pending, sold, or press Enter for none\n',
    );
    expect(result.stdout).toBe(
      '{\n  "id": 1,\n  "name": "Rex",\n  "categoryId": 9007199254740993\n}\n',
    );
  });

  it('fits a question wider than the terminal: its first lines written, the last one asked', async () => {
    const scope = api()
      .post('/v1/pets', { name: 'Rex', categoryId: 7, status: 'sold' })
      .reply(201, { id: 1, name: 'Rex', categoryId: 7, status: 'sold' });
    const result = await run(['pets', 'add', '--name', 'Rex', '--json'], {
      env: env(),
      tty: true,
      columns: 40,
      answers: ['7', '3'],
    });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
    expect(result.prompts).toEqual(['Category id: ', 'or Enter for none: ']);
    expect(result.stderr).toBe(
      'Using profile production\n(https://api.animal-store.example/v1)\n' +
        'Status: 1) available 2) pending 3) sold,\n',
    );
  });

  it('takes a status by name, and does not ask for one given as a flag', async () => {
    api()
      .post('/v1/pets', { name: 'Tom', categoryId: 3, status: 'sold' })
      .reply(201, { id: 2, name: 'Tom', categoryId: 3 });
    const byName = await run(['pets', 'add', '--category-id', '3', '--json'], {
      env: env(),
      tty: true,
      answers: ['Tom', 'sold'],
    });
    expect(byName).toMatchObject({ code: 0, prompts: ['Name: ', STATUS_Q] });
    api()
      .post('/v1/pets', { name: 'Tom', categoryId: 3, status: 'available' })
      .reply(201, { id: 3, name: 'Tom', categoryId: 3 });
    const flagged = await run(['pets', 'add', '--status', 'available', '--json'], {
      env: env(),
      tty: true,
      answers: ['Tom', '3'],
    });
    expect(flagged).toMatchObject({ code: 0, prompts: ['Name: ', 'Category id: '] });
  });

  it('repeats a bad answer in its error line with control characters neutralised', async () => {
    api()
      .post('/v1/pets', { name: 'Rex', categoryId: 7 })
      .reply(201, { id: 1, name: 'Rex', categoryId: 7 });
    // A C1 control (CSI) and a bidi override, pasted: JSON's quoting leaves both as they are.
    const result = await run(['pets', 'add', '--name', 'Rex', '--json'], {
      env: env(),
      tty: true,
      answers: ['7\u009b2J\u202e', '7', ''],
    });
    expect(result).toEqual({
      code: 0,
      stdout: '{\n  "id": 1,\n  "name": "Rex",\n  "categoryId": 7\n}\n',
      stderr:
        'Using profile production (https://api.animal-store.example/v1)\n' +
        'the category id must be an integer in the int64 range (got "7\\x9b2J\\u202e")\n',
      prompts: ['Category id: ', 'Category id: ', STATUS_Q],
    });
  });

  it('refuses an empty name at the prompt and asks again', async () => {
    api()
      .post('/v1/pets', { name: 'Rex', categoryId: 1, status: 'sold' })
      .reply(201, { id: 1, name: 'Rex', categoryId: 1, status: 'sold' });
    const result = await run(['pets', 'add', '--category-id', '1', '--status', 'sold'], {
      env: env(),
      tty: true,
      answers: ['  ', 'Rex'],
    });
    expect(result.code).toBe(0);
    expect(result.prompts).toEqual(['Name: ', 'Name: ']);
    expect(result.stderr.split('\n')[1]).toBe('the name must not be empty');
  });

  it.each([
    ['the name', [null]],
    ['the category id', ['Rex', null]],
    ['the status', ['Rex', '1', null]],
  ])('Ctrl-C at the prompt for %s: exit 130, nothing sent', async (_what, answers) => {
    const result = await run(['pets', 'add'], { env: env(), tty: true, answers });
    // Which profile the animal was to go to is said before the first question (it was said
    // only once the POST was sent).
    expect(result).toMatchObject({
      code: 130,
      stdout: '',
      stderr: 'Using profile production (https://api.animal-store.example/v1)\n',
    });
    expect(unexpected).toEqual([]);
  });

  it.each([
    ['stdin is not a terminal', { stdout: true, stderr: true }],
    ['stderr is not a terminal', { stdin: true, stdout: true }],
    ['nothing is a terminal', false],
  ])('asks nothing when %s: every missing flag in one line, exit 2', async (_why, tty) => {
    const result = await run(['pets', 'add'], { env: env(), tty, answers: ['Rex', '1', ''] });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --name and --category-id are required (or give --file)\n',
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it('refuses missing flags before looking for a key (exit 2, not 4)', async () => {
    const result = await run(['pets', 'add', '--name', 'Rex'], { env: baseEnv() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --category-id is required (or give --file)\n',
      prompts: [],
    });
  });
});

describe('promptLine (the terminal prompt behind io.prompt)', () => {
  const ask = (typed: string[], end = false) => {
    const stdin = new PassThrough();
    const stderr = new PassThrough();
    let shown = '';
    stderr.on('data', (chunk) => {
      shown += chunk;
    });
    const answer = promptLine(stdin, stderr, 'Name: ');
    for (const text of typed) stdin.write(text);
    if (end) stdin.end();
    // What was shown, once the writes made meanwhile have arrived (a stream's data comes on
    // a later tick).
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    return answer.then(
      async (value) => {
        await settled();
        return { value, shown };
      },
      async (error: Error) => {
        await settled();
        return { error: error.constructor.name, shown };
      },
    );
  };

  it('returns the line typed, shown as typed after the question', async () => {
    const { value, shown } = (await ask(['Re', 'x\r'])) as { value: string; shown: string };
    expect(value).toBe('Rex');
    expect(shown).toContain('Name: ');
    expect(shown).toContain('Rex');
    // The Enter ended the line: no empty line after it.
    expect(shown).not.toMatch(/\n\s*\n$/);
  });

  it('is cancelled by Ctrl-C and by the end of input (Ctrl-D), its line ended either way', async () => {
    const cut = await ask(['Re\u0003']);
    expect(cut).toMatchObject({ error: 'CancelledError' });
    expect(cut.shown.endsWith('\n')).toBe(true);
    // Ctrl-D left the shell's prompt on the question's line (readline draws it with cursor
    // moves on a terminal).
    const ended = await ask([], true);
    expect(ended).toMatchObject({ error: 'CancelledError' });
    expect(ended.shown).toMatch(/Name: (\u001b\[\d+G)?\n$/);
    // SIGTERM (an abort) while the question waits: the same.
    const controller = new AbortController();
    const stderr = new PassThrough();
    let shown = '';
    stderr.on('data', (chunk) => {
      shown += chunk;
    });
    const answer = promptLine(new PassThrough(), stderr, 'Name: ', controller.signal);
    controller.abort();
    await expect(answer).rejects.toThrow(CancelledError);
    await new Promise((resolve) => setImmediate(resolve));
    expect(shown).toMatch(/Name: (\u001b\[\d+G)?\n$/);
  });
});
