import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CancelledError } from '../../../src/errors.js';
import { HiddenInput, promptHidden } from '../../../src/prompt.js';
import { readConfig, run, configSetup as setup } from '../../helpers/cli.js';
import { API, api } from '../../helpers/http.js';
import { accountIn, newAccount, testKeyring } from '../../helpers/keyring.js';

const NEW_KEY = 'new-key-0123456789';

describe('store auth login', () => {
  it('prints one JSON object under --json instead of the confirmation line', async () => {
    const { env, file } = setup();
    const scope = api(API, NEW_KEY).get('/v1/pets').query({ limit: '1' }).reply(200, []);
    expect(
      await run(['auth', 'login', '--with-key', '--json'], { env, stdin: `${NEW_KEY}\n` }),
    ).toEqual({
      code: 0,
      stdout: '{"profile":"production","key":"****6789","verified":true,"keyStorage":"keyring"}\n',
      stderr: '',
      prompts: [],
    });
    expect(scope.isDone()).toBe(true);
    expect(readConfig(file)).toEqual({
      profiles: { production: { keyStorage: 'keyring', keyringAccount: newAccount('production') } },
    });
    expect(Object.fromEntries(testKeyring().entries)).toEqual({
      [accountIn(file, 'production')]: NEW_KEY,
    });
  });

  it('under --no-verify --json says the key was not verified', async () => {
    const { env } = setup();
    const result = await run(
      ['-p', 'staging', 'auth', 'login', '--with-key', '--no-verify', '--json'],
      {
        env,
        stdin: NEW_KEY,
      },
    );
    expect(result).toEqual({
      code: 0,
      stdout: '{"profile":"staging","key":"****6789","verified":false,"keyStorage":"keyring"}\n',
      stderr: '',
      prompts: [],
    });
  });

  it('says nothing was saved, and --no-verify, when the check gets a 5xx: exit 7', async () => {
    const { env, file } = setup();
    api(API, NEW_KEY).get('/v1/pets').query({ limit: '1' }).times(3).reply(503, '');
    const result = await run(['auth', 'login', '--with-key'], { env, stdin: NEW_KEY });
    expect(result).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'error: the server answered service unavailable (http_503, HTTP 503)\n' +
        'hint: still failing after 3 attempts; try again later; nothing was saved (--no-verify saves the key without checking it)\n',
      prompts: [],
    });
    expect(() => readConfig(file)).toThrow();
  });
});

describe('store auth logout', () => {
  it('prints one JSON object under --json, saying whether a key was removed', async () => {
    const { env, file } = setup();
    await run(['auth', 'login', '--with-key', '--no-verify'], { env, stdin: NEW_KEY });
    expect(await run(['auth', 'logout', '--json'], { env })).toEqual({
      code: 0,
      stdout: '{"profile":"production","keyRemoved":true}\n',
      stderr: '',
      prompts: [],
    });
    expect(readConfig(file)).toEqual({ profiles: {} });
    expect(await run(['auth', 'logout', '--json'], { env })).toEqual({
      code: 0,
      stdout: '{"profile":"production","keyRemoved":false}\n',
      stderr: '',
      prompts: [],
    });
  });
});

describe('the hidden prompt (auth login on a terminal)', () => {
  const typed = (...chunks: string[]) => {
    const input = new HiddenInput();
    let state = 'more';
    for (const chunk of chunks) state = input.feed(chunk);
    return { state, value: input.value };
  };

  it.each([
    ['arrow keys (CSI)', ['ab\u001b[Dc\u001b[A\u001b[B\u001b[Cd\r'], 'abcd'],
    ['function keys with parameters', ['k\u001b[15~e\u001b[1;5Py\r'], 'key'],
    ['SS3 keys (F1-F4, application-mode arrows)', ['k\u001bOPe\u001bOAy\r'], 'key'],
    // The Escape key: its ESC comes alone, the next key in a chunk of its own.
    ['a bare ESC', ['k\u001b', 'e\u001b', 'y\r'], 'key'],
    // ESC b and ESC f, sent together: Alt+b/f, and Option+←/→ on a Mac. They became "bf".
    ['Alt with a key', ['prod\u001bb\u001bf-key\r'], 'prod-key'],
    ['an OSC string ended by BEL', ['k\u001b]0;title\u0007ey\r'], 'key'],
    ['an OSC string ended by ESC \\', ['k\u001b]0;title\u001b\\', 'ey\r'], 'key'],
    // Alt+] and Alt+Shift+O: the sequence they open ends with their chunk (a terminal sends a
    // string or an SS3 key whole), and the keys typed after them are kept.
    ['Alt+] alone', ['key-abc', '\u001b]', 'def\r'], 'key-abcdef'],
    ['Alt+Shift+O alone', ['key-abc', '\u001bO', 'def\r'], 'key-abcdef'],
    ['the Escape key, then O', ['key-abc', '\u001b', 'Okay\r'], 'key-abcOkay'],
    [
      'DCS, SOS, PM and APC strings',
      ['k\u001bPq\u0007e\u001bXa\u0007\u001b^b\u0007\u001b_c\u0007y\r'],
      'key',
    ],
    // After the Escape key, a key that opens a string when sent with ESC is a key like any
    // other: everything after it up to Enter was thrown away.
    ['the Escape key, then P', ['key-abc', '\u001b', 'P', 'xyz\r'], 'key-abcPxyz'],
    // Alt+Backspace: a Backspace.
    ['Alt+Backspace', ['keyx\u001b\u007f\r'], 'key'],
    ['a sequence split across chunks', ['ke\u001b', '[', '1;', '2D', 'y\n'], 'key'],
    ['a bracketed paste', ['\u001b[200~pasted-key\u001b[201~\r'], 'pasted-key'],
    ['Backspace and Ctrl-U', ['wrong\u0015ke\u007fey\r'], 'key'],
    // Terminals that send ^H for Backspace.
    ['Ctrl-H as Backspace', ['kex\by\r'], 'key'],
    // F1–F5 on the Linux console: the letter after the second [ was added to the key.
    ['Linux console function keys', ['k\u001b[[Ae\u001b[[', 'Ey\r'], 'key'],
    // A stray Alt-[ (ESC [) or Alt-O swallowed the Enter after it.
    ['ESC [ before Enter', ['key\u001b[\r'], 'key'],
    ['ESC O before Enter', ['key\u001bO', '\n'], 'key'],
    // A CSI's final byte may be @ (0x40), the first of its range.
    ['a CSI ending in @', ['k\u001b[2@ey\r'], 'key'],
  ])('drops %s: never part of the key', (_what, chunks, key) => {
    expect(typed(...chunks)).toEqual({ state: 'done', value: key });
  });

  it('keeps spaces, and Backspace removes a whole emoji, not half of it', () => {
    expect(typed('my key\r')).toEqual({ state: 'done', value: 'my key' });
    expect(typed('key🐶\u007f\r')).toEqual({ state: 'done', value: 'key' });
  });

  it('ends at Ctrl-D, and Ctrl-C cancels', () => {
    expect(typed('key\u0004')).toEqual({ state: 'done', value: 'key' });
    expect(typed('ke', 'y\u0003')).toMatchObject({ state: 'cancel' });
    expect(typed('ke')).toEqual({ state: 'more', value: 'ke' });
    expect(typed('ke\u001b[', '\u0003')).toMatchObject({ state: 'cancel' });
    expect(typed('ke\u001b[1;', '\u0003')).toMatchObject({ state: 'cancel' });
  });

  /** A stderr, and what was written to it so far. */
  const shownOnStderr = () => {
    const stderr = new PassThrough();
    let text = '';
    stderr.on('data', (chunk) => {
      text += chunk;
    });
    return { stderr, shown: () => text };
  };

  /** A terminal's stdin that records the raw modes it is put in. */
  const rawStdin = () =>
    Object.assign(new PassThrough(), {
      modes: [] as boolean[],
      setRawMode(mode: boolean) {
        this.modes.push(mode);
      },
    });

  it('reads from a raw-mode terminal, echoes nothing of the key, and restores the mode', async () => {
    const stdin = rawStdin();
    const { stderr, shown } = shownOnStderr();
    const answer = promptHidden(stdin, stderr, 'API key: ');
    stdin.write('sec\u001b[Dret\r');
    expect(await answer).toBe('secret');
    expect(shown()).toBe('API key: \n');
    expect(stdin.modes).toEqual([true, false]);
    // A terminal left flowing would hold the process open after the answer.
    expect(stdin.isPaused()).toBe(true);
  });

  it('turns echo off before the question shows, and lets go of stdin after the answer', async () => {
    // A key typed or pasted the moment the question appears must not be echoed; a listener
    // left on stdin would take the input of whatever reads it next.
    const events: string[] = [];
    const stdin = Object.assign(new PassThrough(), {
      setRawMode(mode: boolean) {
        events.push(`raw ${mode}`);
      },
    });
    const stderr = new Writable({
      write(chunk, _encoding, done) {
        events.push(`shown ${JSON.stringify(String(chunk))}`);
        done();
      },
    });
    const answer = promptHidden(stdin, stderr, 'API key: ');
    stdin.write('key\r');
    expect(await answer).toBe('key');
    expect(events).toEqual(['raw true', 'shown "API key: "', 'raw false', 'shown "\\n"']);
    expect(stdin.listenerCount('data')).toBe(0);
  });

  it('is cancelled by an abort (SIGTERM) while it waits, restoring the mode', async () => {
    const stdin = rawStdin();
    const controller = new AbortController();
    const answer = promptHidden(stdin, new PassThrough(), 'API key: ', controller.signal);
    stdin.write('ke');
    controller.abort();
    await expect(answer).rejects.toBeInstanceOf(CancelledError);
    expect(stdin.modes).toEqual([true, false]);
  });

  it('is left alone by an abort after it was answered: no second newline, the mode restored once', async () => {
    const stdin = rawStdin();
    const { stderr, shown } = shownOnStderr();
    const controller = new AbortController();
    const answer = promptHidden(stdin, stderr, 'API key: ', controller.signal);
    stdin.write('key\r');
    expect(await answer).toBe('key');
    controller.abort();
    await new Promise((resolve) => setImmediate(resolve));
    expect(shown()).toBe('API key: \n');
    expect(stdin.modes).toEqual([true, false]);
  });

  it('cancels on Ctrl-C typed at the raw-mode prompt (not a signal there), restoring the mode', async () => {
    const stdin = rawStdin();
    const answer = promptHidden(stdin, new PassThrough(), 'API key: ');
    stdin.write('ke\u0003y\r');
    await expect(answer).rejects.toBeInstanceOf(CancelledError);
    expect(stdin.modes).toEqual([true, false]);
  });

  it('--with-key on a terminal reads the key at a hidden prompt instead of echoing it', async () => {
    const { env, file } = setup();
    const result = await run(['auth', 'login', '--with-key', '--no-verify'], {
      env,
      tty: true,
      typed: NEW_KEY,
    });
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Saved key ****6789 for profile production without checking it\n',
      prompts: ['API key for profile production: '],
    });
    expect(readConfig(file)).toEqual({
      profiles: { production: { keyStorage: 'keyring', keyringAccount: newAccount('production') } },
    });
    expect(Object.fromEntries(testKeyring().entries)).toEqual({
      [accountIn(file, 'production')]: NEW_KEY,
    });
  });
});
