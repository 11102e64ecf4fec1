// `pets add --file` bounds its memory with V8 flags that only take effect at start-up: the
// process starts over under them, in its own place (src/restart.ts), before it reads or sends
// anything. Here the decision on a stand-in process, then the real thing as a process.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BULK_V8_FLAGS } from '../../src/bulk/import.js';
import { type RestartableProcess, restartWithV8Flags } from '../../src/restart.js';
import { baseEnv, run, tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { api, KEY } from '../helpers/http.js';
import { processEnv, store } from '../helpers/process.js';

const FLAGS = ['--max-semi-space-size=1', '--optimize-for-size'];

/** A process that records the execve it is asked for instead of doing it (and says
 * 'replaced' where the real one would not return). */
function standIn(overrides: Partial<RestartableProcess> = {}) {
  const calls: { file: string; args: readonly string[]; env: NodeJS.ProcessEnv }[] = [];
  const proc: RestartableProcess = {
    platform: 'linux',
    // A file that is there: the restart checks it can run it.
    execPath: process.execPath,
    execArgv: ['--enable-source-maps'],
    argv: [process.execPath, '/opt/store/bin/store.js', 'pets', 'add', '--file', 'a.ndjson'],
    env: { HOME: '/home/me', NODE_OPTIONS: '--max-old-space-size=4096' },
    // The real one does not return: the process is replaced.
    execve: ((file: string, args: readonly string[], env: NodeJS.ProcessEnv) => {
      calls.push({ file, args, env });
      return 'replaced';
    }) as unknown as RestartableProcess['execve'],
    ...overrides,
  };
  return { proc, calls };
}

describe('restartWithV8Flags', () => {
  it('starts the same invocation over with the flags added before its own', () => {
    const { proc, calls } = standIn();
    expect(restartWithV8Flags(FLAGS, proc, false)).toBe('replaced');
    expect(calls).toEqual([
      {
        file: process.execPath,
        args: [
          process.execPath,
          '--max-semi-space-size=1',
          '--optimize-for-size',
          '--enable-source-maps',
          '/opt/store/bin/store.js',
          'pets',
          'add',
          '--file',
          'a.ndjson',
        ],
        env: { HOME: '/home/me', NODE_OPTIONS: '--max-old-space-size=4096' },
      },
    ]);
  });

  it('returns true without restarting once started with them (the restarted process)', () => {
    const { proc, calls } = standIn({
      execArgv: ['--enable-source-maps', '--max-semi-space-size=1', '--optimize-for-size'],
    });
    expect(restartWithV8Flags(FLAGS, proc, false)).toBe(true);
    expect(calls).toEqual([]);
  });

  it('keeps a value the user gave (NODE_OPTIONS) and adds only what is missing', () => {
    const { proc, calls } = standIn({
      execArgv: [],
      env: { NODE_OPTIONS: '--max-semi-space-size=16' },
    });
    expect(restartWithV8Flags(FLAGS, proc, false)).toBe('replaced');
    expect(calls.map((call) => call.args.slice(1, -5))).toEqual([['--optimize-for-size']]);
  });

  it('returns false where it cannot restart, and runs on', () => {
    // Windows: Node has execve there, which throws.
    const windows = standIn({ platform: 'win32' });
    expect(restartWithV8Flags(FLAGS, windows.proc, false)).toBe(false);
    expect(windows.calls).toEqual([]);
    const sea = standIn();
    expect(restartWithV8Flags(FLAGS, sea.proc, true)).toBe(false);
    expect(sea.calls).toEqual([]);
    // Node gone (execve would abort the process, not throw).
    const gone = standIn({ execPath: join(tempDir(), 'node') });
    expect(restartWithV8Flags(FLAGS, gone.proc, false)).toBe(false);
    expect(gone.calls).toEqual([]);
    // The permission model without --allow-child-process: execve throws.
    const refused = standIn({
      execve: (() => {
        throw Object.assign(new Error('Access to this API has been restricted'), {
          code: 'ERR_ACCESS_DENIED',
        });
      }) as RestartableProcess['execve'],
    });
    expect(restartWithV8Flags(FLAGS, refused.proc, false)).toBe(false);
  });

  it('is what the bulk import asks for', () => {
    expect(BULK_V8_FLAGS).toEqual(FLAGS);
  });
});

describe('pets add --file, as a process', () => {
  // Prints, as the process ends, its id and the flags it runs under: once, as the process
  // that started is replaced, not ended.
  const PROBE = [
    '--import',
    'data:text/javascript,process.on("exit",()=>process.stderr.write("probe "+JSON.stringify(process.execArgv.filter((arg)=>!arg.startsWith("-"+"-import")&&!arg.startsWith("data:")))+"\\n"))',
  ];

  it('runs under the flags, in the same process, and does its work once', async () => {
    const server = await faultServer((_req, res, n) =>
      reply(res, 201, `{"id":${n},"name":"Rex","categoryId":1}`),
    );
    const result = await store(['pets', 'add', '--file', '-', '--json'], {
      env: processEnv({ STORE_BASE_URL: server.url, STORE_API_KEY: 'k-1234' }),
      stdin: '{"name":"Rex","categoryId":1}\n{"name":"Bella","categoryId":1}\n',
      nodeArgs: PROBE,
    });
    expect(result).toMatchObject({
      code: 0,
      stdout: '{"id":1,"name":"Rex","categoryId":1}\n{"id":2,"name":"Rex","categoryId":1}\n',
      stderr:
        '{"summary":{"created":2,"failed":0,"uncertain":0,"notSent":0}}\n' +
        'probe ["--max-semi-space-size=1","--optimize-for-size"]\n',
    });
    expect(server.seen.map((request) => [request.method, request.url, request.body])).toEqual([
      ['POST', '/v1/pets', '{"name":"Rex","categoryId":1}'],
      ['POST', '/v1/pets', '{"name":"Bella","categoryId":1}'],
    ]);
  });

  it('does not restart for a dry run (nothing is sent)', async () => {
    const dry = await store(['pets', 'add', '--file', '-', '--dry-run', '--json'], {
      env: processEnv(),
      stdin: '{"name":"Rex","categoryId":1}\n',
      nodeArgs: PROBE,
    });
    expect(dry).toEqual({
      code: 0,
      signal: null,
      stdout: '{"input":1,"valid":true}\n',
      stderr: '{"summary":{"valid":1,"failed":0}}\nprobe []\n',
    });
  });
});

describe('pets add --file, where it restarts (in-process, the restart stood in for)', () => {
  const INPUT = '{"name":"Rex","categoryId":1}\n';
  const CREATED = '{"id":7,"name":"Rex","categoryId":1}\n';
  const withKey = () => baseEnv({ STORE_API_KEY: KEY });
  /** The one POST each import here makes. */
  const expectCreated = () =>
    api()
      .post('/v1/pets', { name: 'Rex', categoryId: 1 })
      .reply(201, { id: 7, name: 'Rex', categoryId: 1 });
  /** Records the flags asked for; answers as the restarted process would: in force. */
  const restartStandIn = () => {
    const asked: (readonly string[])[] = [];
    return {
      asked,
      restartWithV8Flags: (flags: readonly string[]) => {
        asked.push(flags);
        return true;
      },
    };
  };

  it('asks for the flags before it reads or sends anything (stdin, a pipe), then imports', async () => {
    const { asked, restartWithV8Flags } = restartStandIn();
    const scope = expectCreated();
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: withKey(),
      stdin: INPUT,
      restartWithV8Flags,
    });
    expect(result).toMatchObject({
      code: 0,
      stdout: CREATED,
      stderr: '{"summary":{"created":1,"failed":0,"uncertain":0,"notSent":0}}\n',
    });
    expect(asked).toEqual([FLAGS]);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ['a file of 128 KiB or more', 128 * 1024, [FLAGS]],
    ['a smaller file (its memory would not grow)', 128 * 1024 - 1, []],
  ])('restarts for %s', async (_what, size, expected) => {
    const { asked, restartWithV8Flags } = restartStandIn();
    // One animal, padded with white space to the size.
    const animal = '[{"name":"Rex","categoryId":1}]';
    const file = join(tempDir(), 'animals.json');
    writeFileSync(file, `${animal}${' '.repeat(size - animal.length)}`);
    expect(statSync(file).size).toBe(size);
    const scope = expectCreated();
    const result = await run(['pets', 'add', '--file', file, '--json'], {
      env: withKey(),
      restartWithV8Flags,
    });
    expect(result).toMatchObject({ code: 0, stdout: CREATED });
    expect(asked).toEqual(expected);
    expect(scope.isDone()).toBe(true);
  });

  it('does not restart for animals typed at a terminal', async () => {
    const { asked, restartWithV8Flags } = restartStandIn();
    const scope = expectCreated();
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: withKey(),
      tty: { stdin: true },
      stdin: INPUT,
      restartWithV8Flags,
    });
    expect(result).toMatchObject({ code: 0, stdout: CREATED });
    expect(asked).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('leaves a file it cannot read to say why, without restarting', async () => {
    const { asked, restartWithV8Flags } = restartStandIn();
    const missing = join(tempDir(), 'missing.ndjson');
    const result = await run(['pets', 'add', '--file', missing, '--json'], {
      env: withKey(),
      restartWithV8Flags,
    });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain(`cannot read --file ${missing}: no such file or directory`);
    expect(asked).toEqual([]);
  });

  it('does not restart after a Ctrl-C already received: exit 130, nothing sent', async () => {
    const { asked, restartWithV8Flags } = restartStandIn();
    const controller = new AbortController();
    controller.abort();
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: withKey(),
      stdin: INPUT,
      signal: controller.signal,
      restartWithV8Flags,
    });
    expect(result).toMatchObject({ code: 130, stdout: '' });
    expect(asked).toEqual([]);
  });

  it('does not restart for a dry run', async () => {
    const { asked, restartWithV8Flags } = restartStandIn();
    const result = await run(['pets', 'add', '--file', '-', '--dry-run', '--json'], {
      stdin: INPUT,
      restartWithV8Flags,
    });
    expect(result).toEqual({
      code: 0,
      stdout: '{"input":1,"valid":true}\n',
      stderr: '{"summary":{"valid":1,"failed":0}}\n',
      prompts: [],
    });
    expect(asked).toEqual([]);
  });
});
