import { describe, expect, it } from 'vitest';
import { baseEnv, run } from '../../helpers/cli.js';
import { api, KEY } from '../../helpers/http.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });

describe('store messages send', () => {
  const MESSAGE =
    '{"id":"msg_1","message":"hi there","status":"queued","createdAt":"2026-11-22T10:00:00Z"}';

  it('POSTs the argument to the messages URL and prints id, status and time', async () => {
    // Messages have a service of their own: not the base URL's host.
    const scope = api('https://msg.animal-store.example')
      .post('/v2/messages', '{"message":"hi there"}')
      .matchHeader('content-type', 'application/json')
      .reply(201, MESSAGE);
    const result = await run(['messages', 'send', 'hi there'], {
      env: { ...env(), STORE_MESSAGES_URL: 'https://msg.animal-store.example/v2' },
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: 'ID\tSTATUS\tCREATED AT\nmsg_1\tqueued\t2026-11-22T10:00:00Z\n',
      stderr: '',
      prompts: [],
    });
  });

  it('refuses an answer without createdAt (a Message has one), and says the message may be sent', async () => {
    const scope = api()
      .post('/v1/messages', '{"message":"hi"}')
      .reply(201, '{"id":"msg_1","message":"hi","status":"queued"}');
    expect(await run(['messages', 'send', 'hi'], { env: env() })).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the server sent a response of an unexpected shape (HTTP 201)\nhint: run with --debug for details; the message may have been sent\n',
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    [500, 'internal', 'hint: the message may have been sent\n'],
    [503, 'unavailable', ''],
  ])(
    'an answer %i is sent once, never again; the hint says whether it may have been sent',
    async (status, code, hint) => {
      // Once: a POST is not sent again (nock refuses a second request).
      const scope = api()
        .post('/v1/messages', '{"message":"hi"}')
        .reply(status, { code, message: 'the queue is down', status });
      expect(await run(['messages', 'send', 'hi'], { env: env() })).toEqual({
        code: 7,
        stdout: '',
        stderr: `error: the queue is down (${code}, HTTP ${status})\n${hint}`,
        prompts: [],
      });
      expect(scope.isDone()).toBe(true);
    },
  );

  it.each([
    ['no argument', []],
    ['-', ['-']],
  ])('reads stdin with %s and drops one trailing newline', async (_what, args) => {
    const scope = api()
      .post('/v1/messages', '{"message":"line one\\nline two\\n"}')
      .reply(201, MESSAGE);
    const result = await run(['messages', 'send', ...args, '--json'], {
      env: env(),
      stdin: 'line one\nline two\n\n',
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: `${MESSAGE}\n`, stderr: '', prompts: [] });
  });

  it('drops a trailing CRLF from stdin whole (a file saved on Windows)', async () => {
    const scope = api()
      .post('/v1/messages', '{"message":"Restock done\\r\\nfor cats"}')
      .reply(201, MESSAGE);
    const result = await run(['messages', 'send', '--json'], {
      env: env(),
      stdin: 'Restock done\r\nfor cats\r\n',
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: `${MESSAGE}\n`, stderr: '', prompts: [] });
  });

  it.each([
    ['an empty argument', [''], {}],
    ['empty stdin', [], { stdin: '\n' }],
  ])(
    'rejects %s with exit 2, with a key or without (the text is checked first)',
    async (_what, args, extra) => {
      const error = {
        code: 2,
        stdout: '',
        stderr: 'error: the message is empty; nothing was sent\n',
        prompts: [],
      };
      expect(await run(['messages', 'send', ...args], { env: env(), ...extra })).toEqual(error);
      expect(await run(['messages', 'send', ...args], { env: baseEnv(), ...extra })).toEqual(error);
    },
  );

  it.each([
    [
      'not UTF-8 (a Latin-1 file)',
      Buffer.from('Caf\xe9 ouvert\n', 'latin1'),
      'the message on stdin is not UTF-8 text; nothing was sent',
    ],
    [
      'over 1 MiB (`yes |`)',
      Buffer.alloc(1024 * 1024 + 1, 'y'),
      'the message on stdin is over 1 MiB; nothing was sent',
    ],
  ])('refuses stdin %s with exit 2, nothing sent', async (_what, stdin, message) => {
    const result = await run(['messages', 'send'], { env: env(), stdin });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
  });

  it('sends a message of exactly 1 MiB from stdin', async () => {
    const text = 'y'.repeat(1024 * 1024);
    const scope = api()
      .post('/v1/messages', JSON.stringify({ message: text }))
      .reply(201, MESSAGE);
    const result = await run(['messages', 'send', '--json'], { env: env(), stdin: text });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: `${MESSAGE}\n`, stderr: '', prompts: [] });
  });

  it('never waits on a terminal without an argument', async () => {
    const result = await run(['messages', 'send'], { env: env(), tty: true });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: give the message as an argument, or pipe it on stdin\n',
      prompts: [],
    });
  });

  it('with - on a terminal, says what it waits for, then sends what was typed', async () => {
    const scope = api()
      .post('/v1/messages', '{"message":"typed here"}')
      .reply(201, { id: 'm1', message: 'typed here', status: 'queued', createdAt: 'now' });
    const result = await run(['messages', 'send', '-', '--json'], {
      env: { ...env(), NO_COLOR: '1' },
      tty: { stdin: true, stderr: true },
      stdin: 'typed here\n',
    });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({
      code: 0,
      stdout: '{"id":"m1","message":"typed here","status":"queued","createdAt":"now"}\n',
      stderr:
        'Type the message; Ctrl-D to send it\n' +
        'Using profile production (https://api.animal-store.example/v1)\n',
      prompts: [],
    });
  });

  it('maps a 400 Error body to exit 3', async () => {
    api()
      .post('/v1/messages')
      .reply(400, { code: 'invalid_json', message: 'bad JSON', status: 400 });
    const result = await run(['messages', 'send', 'x', '--json'], { env: env() });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr: '{"error":{"code":"invalid_json","message":"bad JSON","status":400}}\n',
      prompts: [],
    });
  });
});
