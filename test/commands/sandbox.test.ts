// `store sandbox` as a user starts it: a real process on a loopback port.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, tempDir } from '../helpers/cli.js';
import { killAll, type SandboxProcess, startSandbox, store } from '../helpers/process.js';

afterEach(killAll);

describe('store sandbox', () => {
  let sandbox: SandboxProcess;

  it('names its defaults in --help (commander showed none: the values come from the schemas)', async () => {
    const result = await run(['sandbox', '--help'], { columns: 100 });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').slice(4, 10)).toEqual([
      'Options:',
      '  --port <port>         port to listen on, 0 for any free one (default: 4010)',
      '  --host <host>         address to listen on (default: 127.0.0.1)',
      '  --api-key <key>       the key clients must send (default: sandbox)',
      '  --data <file>         keep the data in this SQLite database file (created if missing or empty)',
      '  --seed <n>            start with n sample animals when there are none',
    ]);
  });

  it('stops cleanly with exit 0 on SIGTERM and on SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      sandbox = await startSandbox();
      const ended = await sandbox.stop(signal);
      expect(ended.code).toBe(0);
      expect(ended.signal).toBe(null);
      expect(ended.stderr).toMatch(/Sandbox stopped\n$/);
    }
  });

  it('refuses to start on a port that is taken, with exit 2', async () => {
    sandbox = await startSandbox();
    const port = new URL(sandbox.url).port;
    const second = await store(['sandbox', '--port', port]);
    expect(second).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: `error: port ${port} on 127.0.0.1 is already in use; choose another with --port\n`,
    });
  });

  it('refuses an address that is not this machine’s with exit 2, one line, no warning first', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine, and no DNS asked.
    const result = await store(['sandbox', '--port', '0', '--host', '192.0.2.1']);
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        'error: cannot listen on --host "192.0.2.1": not an address of this machine (EADDRNOTAVAIL)\n',
    });
  });

  it('warns on stderr when it listens where others can reach it (--host 0.0.0.0)', async () => {
    sandbox = await startSandbox(['--host', '0.0.0.0']);
    await sandbox.logged('Ctrl-C stops it');
    const ended = await sandbox.stop();
    expect(ended.code).toBe(0);
    expect(ended.stderr.split('\n')[0]).toBe(
      'warning: listening on 0.0.0.0, which is not loopback: others can reach the sandbox',
    );
  });

  it('refuses a --host name that does not resolve with exit 2, one line', async () => {
    const result = await store(['sandbox', '--port', '0', '--host', 'nosuch.invalid']);
    expect(result).toMatchObject({ code: 2, signal: null, stdout: '' });
    expect(result.stderr).toMatch(
      /^error: cannot listen on --host "nosuch\.invalid": not an address of this machine \((ENOTFOUND|EAI_AGAIN|EAI_FAIL)\)\n$/,
    );
  });

  it('refuses a --data file that is not its database: one line, code config_error, untouched', async () => {
    const data = join(tempDir(), 'bad.db');
    writeFileSync(data, 'not a db');
    const message = `data file ${data} is not a sandbox SQLite database; it was left untouched`;
    expect(await store(['sandbox', '--port', '0', '--data', data])).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `error: ${message}\n`,
    });
    expect(await store(['sandbox', '--port', '0', '--data', data, '--json'])).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `{"error":{"code":"config_error","message":"${message}","status":null}}\n`,
    });
    expect(readFileSync(data, 'utf8')).toBe('not a db');
  });

  it.each([
    [
      ['--api-key', 'my key'],
      '--api-key must be one word of printable characters (no white space or control characters, nothing beyond Latin-1)',
    ],
    // A control character, or one beyond Latin-1: no client could send it in a header.
    [
      ['--api-key', 'ab\u0001cd'],
      '--api-key must be one word of printable characters (no white space or control characters, nothing beyond Latin-1)',
    ],
    [
      ['--api-key', 'key\u20ac'],
      '--api-key must be one word of printable characters (no white space or control characters, nothing beyond Latin-1)',
    ],
    [['--api-key', ''], '--api-key must not be empty'],
    [['--data', ''], '--data needs a file name (got "")'],
    [['--host', ''], '--host must not be empty'],
    // It listened, printed `http://[::1%lo]:…/v1` and "internal error: Invalid URL", and ran on.
    [
      ['--host', '::1%lo'],
      '--host must be an address without an IPv6 zone (%…): fe80::1%eth0 cannot be put in a URL',
    ],
  ])('refuses %j with exit 2 before it starts', async (flags, message) => {
    // A key with a space was accepted, announced, and refused on every request (401).
    const result = await run(['sandbox', '--port', '0', ...flags]);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
  });

  it('takes a key of any characters but white space, which clients then send', async () => {
    // The key rule refused such keys once, though the sandbox matches them.
    sandbox = await startSandbox(['--api-key', 'p@ss!wo:rd']);
    const listed = await store(['pets', 'list', '--json'], {
      env: sandbox.env({ STORE_API_KEY: 'p@ss!wo:rd' }),
    });
    expect(listed).toEqual({ code: 0, signal: null, stdout: '[]\n', stderr: '' });
  });

  it('keeps --data across a restart', async () => {
    const data = join(tempDir(), 'store.json');
    sandbox = await startSandbox(['--data', data]);
    await store(['pets', 'add', '--name', 'Kept', '--category-id', '1'], { env: sandbox.env() });
    await sandbox.stop();
    sandbox = await startSandbox(['--data', data]);
    const listed = await store(['pets', 'list', '--json'], { env: sandbox.env() });
    expect(listed.stdout).toBe('[{"id":1,"name":"Kept","categoryId":1}]\n');
  });

  it('works with --profile sandbox and no other set-up on the default port', async () => {
    sandbox = await startSandboxOnDefaultPort();
    const listed = await store(['--profile', 'sandbox', 'pets', 'list', '--json']);
    expect(listed).toEqual({
      code: 0,
      signal: null,
      stdout: '[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]\n',
      stderr: '',
    });
  });
});

async function startSandboxOnDefaultPort(): Promise<SandboxProcess> {
  // startSandbox passes --port 0 first; a later --port wins in commander.
  return startSandbox(['--port', '4010', '--seed', '1']);
}
