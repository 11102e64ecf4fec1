// Ctrl-C ends a real process, whatever it is waiting for.
import { execFileSync, spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { afterThisTest } from '../helpers/cleanup.js';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { BIN, collect, processEnv } from '../helpers/process.js';

const CREATED = '{"id":1,"name":"a","categoryId":1}';
const ANIMAL = '{"name":"a","categoryId":1}\n';
/** Bulk add (--json) of `file` stopped by Ctrl-C once its one input was created: by the
 * signal, with the command that resumes it and the summary on stderr as JSON lines. */
const stoppedAfterOne = (file: string) => ({
  code: null,
  signal: 'SIGINT',
  stdout: `${CREATED}\n`,
  stderr:
    `{"error":{"code":"interrupted","message":"interrupted: inputs after 1 were not sent","status":null,"hint":"resume with: store pets add --file ${file} --json --skip 1"}}\n` +
    '{"summary":{"created":1,"failed":0,"uncertain":0,"notSent":0}}\n',
});

/** `store args` as a process (stdin a pipe the test holds), killed after the test should it
 * still run; what it wrote so far is readable while it runs. */
function started(args: string[], baseUrl: string) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: baseUrl }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  afterThisTest(() => child.kill('SIGKILL'));
  const seen = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => {
    seen.stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    seen.stderr += chunk;
  });
  return { child, seen, ended: collect(child) };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
};

/** A named pipe in a fresh folder. */
function fifo(name: string): string {
  const path = join(tempDir(), name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('Ctrl-C', () => {
  it.each([
    ['pets add --file', (path: string) => ['pets', 'add', '--file', path, '--json']],
    ['store api --input', (path: string) => ['api', '/pets', '--input', path]],
  ])(
    'ends %s waiting to open a FIFO no one writes to: by SIGINT, nothing sent',
    async (_what, argv) => {
      const server = await faultServer((_req, res) => reply(res, 201, CREATED));
      const { child, ended } = started(argv(fifo('input.fifo')), server.url);
      // The open waits in libuv's thread pool from the start; give the process time to get there.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      child.kill('SIGINT');
      expect(await ended).toEqual({ code: null, signal: 'SIGINT', stdout: '', stderr: '' });
      expect(server.seen).toEqual([]);
    },
  );

  it('ends bulk add reading a FIFO whose writer stays and says nothing', async () => {
    const server = await faultServer((_req, res) => reply(res, 201, CREATED));
    const path = fifo('animals.fifo');
    const { child, seen, ended } = started(['pets', 'add', '--file', path, '--json'], server.url);
    // The writer: one animal, then it stays and says nothing (a read of the FIFO waits).
    const writer = await open(path, 'w');
    afterThisTest(() => writer.close());
    await writer.write(ANIMAL);
    await until(() => seen.stdout.includes('\n'));
    child.kill('SIGINT');
    // The read cannot be cancelled and holds the process: once its report is written, it ends
    // by the signal (a shell's $? is 130).
    expect(await ended).toEqual(stoppedAfterOne(path));
  });

  it.each([
    ['every input read', 1, 'quit at once after every input had been sent', undefined],
    [
      'inputs left to read',
      3,
      'quit at once: inputs after 1 were not sent',
      'resume with: store pets add --file - --json --concurrency 1 --skip 1',
    ],
  ])(
    'a second Ctrl-C ends bulk add at once while it waits for requests in flight (%s), and says where it stands',
    async (_what, animals, quit, hint) => {
      const server = await faultServer(() => {}); // never answers
      const argv = ['pets', 'add', '--file', '-', '--json', '--concurrency', '1'];
      const { child, seen, ended } = started(argv, server.url);
      child.stdin.end(ANIMAL.repeat(animals));
      await until(() => server.seen.length > 0);
      child.kill('SIGINT');
      // The first lets the request in flight finish, and says how to quit at once.
      await until(() => seen.stderr.includes('Ctrl-C again'));
      child.kill('SIGINT');
      // Input 1's answer never came: reported as a timed-out POST is, then where to resume.
      expect(await ended).toEqual({
        code: null,
        signal: 'SIGINT',
        stdout:
          '{"input":1,"line":1,"error":{"code":"interrupted","message":"quit at once before its answer came: the animal may have been created","status":null}}\n',
        stderr:
          '{"notice":{"message":"waiting for 1 request in flight (Ctrl-C again to quit at once)"}}\n' +
          `${JSON.stringify({ error: { code: 'interrupted', message: quit, status: null, ...(hint ? { hint } : {}) } })}\n` +
          '{"summary":{"created":0,"failed":0,"uncertain":1,"notSent":0}}\n',
      });
    },
  );

  it('ends bulk add waiting on a silent stdin: by SIGINT, the resume point said, nothing left running', async () => {
    const server = await faultServer((_req, res) => reply(res, 201, CREATED));
    const { child, seen, ended } = started(['pets', 'add', '--file', '-', '--json'], server.url);
    // One animal, then stdin stays open and silent: the process is waiting for more.
    child.stdin.write(ANIMAL);
    await until(() => seen.stdout.includes('\n'));
    child.kill('SIGINT');
    expect(await ended).toEqual(stoppedAfterOne('-'));
  });

  it.each(['SIGHUP', 'SIGTERM'] as const)(
    'ends bulk add on %s as on Ctrl-C: the requests in flight answered, the resume command said, then by the signal',
    async (signal) => {
      // A dropped SSH session (SIGHUP) ended it at once with exit 129 and no resume advice.
      let answer: (() => void) | undefined;
      const server = await faultServer((_req, res) => {
        answer = () => reply(res, 201, CREATED);
      });
      const { child, seen, ended } = started(['pets', 'add', '--file', '-', '--json'], server.url);
      child.stdin.write(ANIMAL);
      await until(() => server.seen.length === 1);
      child.kill(signal);
      await until(() => seen.stderr.includes('in flight'));
      answer?.();
      expect(await ended).toEqual({
        ...stoppedAfterOne('-'),
        signal,
        stderr: `{"notice":{"message":"waiting for 1 request in flight (Ctrl-C again to quit at once)"}}\n${stoppedAfterOne('-').stderr}`,
      });
    },
  );

  it('ends a command by the signal received (SIGTERM too), once its output is written', async () => {
    const server = await faultServer(() => {}); // never answers
    const { child, ended } = started(['pets', 'list'], server.url);
    await until(() => server.seen.length > 0);
    child.kill('SIGTERM');
    expect(await ended).toEqual({ code: null, signal: 'SIGTERM', stdout: '', stderr: '' });
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'ends a --jq filter that would run for ever on %s, at once',
    async (signal) => {
      // The filter holds the event loop, where no listener can run: the signal was held, and
      // only SIGKILL ended the process.
      const server = await faultServer((_req, res) => reply(res, 200, `[${CREATED}]`));
      const { child, ended } = started(['pets', 'list', '--jq', 'last(range(1e15))'], server.url);
      await until(() => server.seen.length === 1);
      // Long enough for the answer to be read and the filter to start.
      await new Promise((resolve) => setTimeout(resolve, 500));
      child.kill(signal);
      expect(await ended).toEqual({ code: null, signal, stdout: '', stderr: '' });
    },
  );

  it('stops the shell script that runs store, as it stops for any Unix program', async () => {
    // bash ends a script on Ctrl-C only when its child died of the SIGINT; a child that exits
    // with status 130 is taken to have handled it, and the loop went on (store ran 3 times).
    const server = await faultServer(() => {}); // never answers
    const script = 'for i in 1 2 3; do "$NODE" "$BIN" pets list; echo "after $i: $?"; done';
    const shell = spawn('bash', ['-c', script], {
      env: processEnv({
        STORE_API_KEY: 'k',
        STORE_BASE_URL: server.url,
        NODE: process.execPath,
        BIN,
      }),
      // Its own process group, as a terminal's foreground job: Ctrl-C reaches the whole group.
      detached: true,
    });
    afterThisTest(() => {
      try {
        process.kill(-(shell.pid as number), 'SIGKILL');
      } catch {
        // Ended already.
      }
    });
    const ended = collect(shell);
    await until(() => server.seen.length > 0);
    process.kill(-(shell.pid as number), 'SIGINT');
    expect(await ended).toEqual({ code: null, signal: 'SIGINT', stdout: '', stderr: '' });
    expect(server.seen).toHaveLength(1);
  });
});
