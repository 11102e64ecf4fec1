// The process as a shell meets it: bin/store.js run as a child (against the sandbox, also a
// process, where it needs a server).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { BIN, collect, processEnv, startSandbox, store } from '../helpers/process.js';

/** A node on PATH older than 22.19 (not the pinned one npm scripts run), if there is one. */
const OLD_NODE = (() => {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, 'node');
    if (!existsSync(path)) continue;
    const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
    const [major = 0, minor = 0] = version.slice(1).split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 19)) return { path, version };
  }
  return undefined;
})();

describe('the process', () => {
  it('prints one line and exits 1 on a Node older than 22.19', async () => {
    const result = await store(['--version'], {
      nodeArgs: [
        '--import',
        'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"22.18.0"})',
      ],
    });
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: 'store: requires Node.js >= 22.19 (found v22.18.0)\n',
    });
  });

  // The fake above cannot show that an old Node parses bin/store.js at all: a real one can.
  // CI machines have one (their own Node, 20 here, under the pinned one); elsewhere there may be
  // none older than 22.19 on PATH, and this case has nothing to run.
  it.runIf(OLD_NODE)('prints one line and exits 1 on a real older Node (from PATH)', async () => {
    const old = OLD_NODE as { path: string; version: string };
    for (const argv of [['--version'], ['pets', 'list']]) {
      expect(await store(argv, { node: old.path })).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: `store: requires Node.js >= 22.19 (found ${old.version})\n`,
      });
    }
  });

  it('prints its version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(await store(['--version'])).toEqual({
      code: 0,
      signal: null,
      stdout: `${pkg.version}\n`,
      stderr: '',
    });
  });

  it('gives the help asked for under a noun with exit 0, and help for a noun alone with exit 2', async () => {
    // As a process: commander reads process.exitCode for its help's exit code.
    const asked = await store(['pets', 'help', 'list']);
    expect(asked).toMatchObject({ code: 0, signal: null, stderr: '' });
    expect(asked.stdout).toMatch(/^Usage: store pets list /);
    const incomplete = await store(['pets']);
    expect(incomplete).toMatchObject({ code: 2, signal: null, stdout: '' });
    expect(incomplete.stderr).toMatch(/^Usage: store pets /);
  });

  it('reports an unknown command with a suggestion and exit 2, no stack trace', async () => {
    expect(await store(['pest', 'list'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'error: unknown command "pest" (did you mean "pets"?)\n',
    });
  });

  it('ends quietly when the reader closes the pipe early (| head -1)', async () => {
    const sandbox = await startSandbox(['--seed', '100']);
    const { spawnSync } = await import('node:child_process');
    const script = `"${process.execPath}" "${join(process.cwd(), 'bin/store.js')}" pets list --limit 100 | head -1; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const result = spawnSync('bash', ['-c', script], { env: sandbox.env(), encoding: 'utf8' });
    expect(result.stdout).toBe('ID\tNAME\tCATEGORY\tSTATUS\n');
    expect(result.stderr).toBe('exit=0\n');
  });

  it('ends quietly when the reader of --jq output closes the pipe early (| head -1)', () => {
    // 300,000 lines from jq, far more than a pipe holds: the reader is gone long before.
    const script = `"${process.execPath}" "${join(process.cwd(), 'bin/store.js')}" help --jq 'range(300000)' | head -1; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const result = spawnSync('bash', ['-c', script], { env: processEnv(), encoding: 'utf8' });
    expect(result.stdout).toBe('0\n');
    expect(result.stderr).toBe('exit=0\n');
  });

  it('says in one line that it cannot start when dist/ is missing: exit 1', () => {
    const copy = tempDir();
    mkdirSync(join(copy, 'bin'));
    for (const file of ['store.js', 'package.json']) {
      copyFileSync(join(process.cwd(), 'bin', file), join(copy, 'bin', file));
    }
    for (const argv of [['pets', 'list'], ['--version']]) {
      const result = spawnSync(process.execPath, [join(copy, 'bin', 'store.js'), ...argv], {
        env: processEnv(),
        encoding: 'utf8',
      });
      expect({ code: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr: `store: cannot start: ENOENT: no such file or directory, open '${join(copy, 'dist', 'store.cjs')}' (run \`npm run build\`?)\n`,
      });
    }
  });

  it('writes the whole of a large answer to a pipe another process made non-blocking', async () => {
    // Node's stream waits for a slow reader on a pipe some other program made non-blocking.
    const pets = Array.from({ length: 20_000 }, (_, i) => ({
      id: i + 1,
      name: `pet ${i} ${'x'.repeat(100)}`,
      categoryId: (i % 5) + 1,
      status: 'available',
    }));
    const body = JSON.stringify(pets);
    const server = await faultServer((_req, res) => reply(res, 200, body));
    const env = processEnv({ STORE_BASE_URL: server.url, STORE_API_KEY: 'k-1234' });
    const nonBlocking =
      'import fcntl, os, sys\n' +
      'fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK)\n' +
      'os.execv(sys.argv[1], sys.argv[1:])';
    const child = spawn(
      'python3',
      ['-c', nonBlocking, process.execPath, BIN, 'pets', 'list', '--json'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // Read nothing for a while: the pipe fills (2.6 MB against a buffer of some hundred KB).
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 500);
    const result = await collect(child);
    expect(body.length).toBeGreaterThan(2_500_000);
    expect(result).toEqual({ code: 0, signal: null, stdout: `${body}\n`, stderr: '' });
  });

  it('keeps serving when nothing reads its log (stderr on a pipe), and stops at Ctrl-C', async () => {
    // The sandbox logs each request on stderr: on a full pipe Node's stream holds the lines
    // and the event loop goes on, where a blocking write would stop the whole process.
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0'], {
      env: processEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.pause(); // never read
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    const url = first.toString().trim();
    const path = `/pets/${'x'.repeat(300)}`;
    let answered = 0;
    // ≈400 log lines of ≈350 bytes (an id that is no id: 400): more than a pipe holds (64 KiB).
    for (let i = 0; i < 400; i += 1) {
      const response = await fetch(`${url}${path}`, {
        headers: { authorization: 'Bearer sandbox' },
        signal: AbortSignal.timeout(5000),
      });
      await response.arrayBuffer();
      if (response.status === 400) answered += 1;
    }
    expect(answered).toBe(400);
    // The first Ctrl-C stops the server; the log it could not write still holds the process
    // (as it always did: it is not thrown away), and a second one ends it at once.
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    await sleep(300);
    child.kill('SIGINT');
    const [code, signal] = (await Promise.race([
      exited,
      sleep(5000).then(() => ['still running', null]),
    ])) as [number | string | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGINT' });
  });

  it('ends quietly when the reader is gone before the first write (| true): EPIPE is no failure', () => {
    // `true` exits long before store writes its help: the first write meets a closed pipe.
    const script = `"${process.execPath}" "${join(process.cwd(), 'bin/store.js')}" help | true; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const result = spawnSync('bash', ['-c', script], { env: processEnv(), encoding: 'utf8' });
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('exit=0\n');
  });
});
