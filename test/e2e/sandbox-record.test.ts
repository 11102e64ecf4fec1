// `store sandbox` on any port is found by `store -p sandbox …` in other processes that share
// its config folder; when it stops, the profile falls back to http://127.0.0.1:4010/v1.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, collect, type ProcessResult, processEnv, store } from '../helpers/process.js';

interface Running {
  url: string;
  child: ChildProcess;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<ProcessResult>;
}

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** A sandbox on a free port, with the given environment (its config folder). */
async function sandboxIn(env: NodeJS.ProcessEnv, args: string[] = []): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const result = collect(child);
  // Ready once the start lines are on stderr (the record is written before them).
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', () => {
      if (stderr.includes('Sandbox ready:')) resolve(stdout.split('\n')[0] as string);
    });
    child.once('close', () => reject(new Error(`sandbox exited early: ${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      const ended = await result;
      running.delete(child);
      return ended;
    },
  };
}

/** `store -p sandbox --debug pets list --json`: the debug trace names the URL it asked. */
async function listVia(env: NodeJS.ProcessEnv) {
  const result = await store(['-p', 'sandbox', '--debug', 'pets', 'list', '--json'], { env });
  return { ...result, asked: result.stderr.split('\n')[0] };
}

describe('store -p sandbox finds the running sandbox', () => {
  it('on a free port, from another process, and falls back to 4010 once it stops', async () => {
    const env = processEnv();
    const sandbox = await sandboxIn(env, ['--seed', '1']);
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(sandbox.url).not.toBe('http://127.0.0.1:4010/v1');
    expect(sandbox.stderr()).toBe(
      `Sandbox listening at ${sandbox.url} with API key "sandbox"; Ctrl-C stops it\n` +
        'Sandbox ready: store -p sandbox pets list\n',
    );
    const record = join(env.STORE_CONFIG_DIR as string, 'sandbox.json');
    expect(existsSync(record)).toBe(true);

    const listed = await store(['-p', 'sandbox', 'pets', 'list', '--json'], { env });
    expect(listed).toEqual({
      code: 0,
      signal: null,
      stdout: '[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]\n',
      stderr: '',
    });
    const added = await store(
      ['-p', 'sandbox', 'pets', 'add', '--name', 'Tom', '--category-id', '2', '--json'],
      { env },
    );
    expect(added.stdout).toBe('{"id":2,"name":"Tom","categoryId":2}\n');

    const ended = await sandbox.stop('SIGTERM');
    expect(ended.code).toBe(0);
    expect(existsSync(record)).toBe(false);
    // Falls back to the default address. The trace names it whether or not something else
    // (another test's sandbox) listens there.
    const after = await listVia(env);
    expect(after.asked).toBe('> GET http://127.0.0.1:4010/v1/pets');
  });

  it('ignores the record of a sandbox killed with SIGKILL', async () => {
    const env = processEnv();
    const sandbox = await sandboxIn(env);
    expect((await listVia(env)).asked).toBe(`> GET ${sandbox.url}/pets`);
    await sandbox.stop('SIGKILL');
    expect(existsSync(join(env.STORE_CONFIG_DIR as string, 'sandbox.json'))).toBe(true);
    expect((await listVia(env)).asked).toBe('> GET http://127.0.0.1:4010/v1/pets');
  });

  it('two at once: the newest wins, and stopping one leaves the other findable', async () => {
    const env = processEnv();
    const first = await sandboxIn(env);
    const second = await sandboxIn(env);
    expect((await listVia(env)).asked).toBe(`> GET ${second.url}/pets`);
    await second.stop();
    expect((await listVia(env)).asked).toBe(`> GET ${first.url}/pets`);

    const third = await sandboxIn(env);
    expect((await listVia(env)).asked).toBe(`> GET ${third.url}/pets`);
    await first.stop(); // an older one stopping does not take the newest's entry
    expect((await listVia(env)).asked).toBe(`> GET ${third.url}/pets`);
    await third.stop();
    expect(existsSync(join(env.STORE_CONFIG_DIR as string, 'sandbox.json'))).toBe(false);
  });

  it('STORE_BASE_URL still wins over the record', async () => {
    const env = processEnv();
    await sandboxIn(env);
    const result = await listVia({ ...env, STORE_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(result.asked).toBe('> GET http://127.0.0.1:9/v1/pets');
  });

  it.each([
    ['STORE_BASE_URL exported', { STORE_BASE_URL: 'http://127.0.0.1:9/v1' }, 'url'],
    ['the profile’s base URL set', {}, 'url'],
    ['STORE_API_KEY exported', { STORE_API_KEY: 'production-key-1234' }, 'key'],
  ])(
    'names in its ready line what `-p sandbox` needs to reach it (%s), and that command works',
    async (what, extra, needs) => {
      // It said `store -p sandbox pets list`, which went to 127.0.0.1:9 (exit 6), or sent
      // another key (exit 4).
      const env = { ...processEnv(), ...extra };
      if (what === 'the profile’s base URL set') {
        const set = ['profile', 'set', 'sandbox', '--base-url', 'http://127.0.0.1:9/v1'];
        expect((await store(set, { env })).code).toBe(0);
      }
      const sandbox = await sandboxIn(env);
      const ready = sandbox.stderr().split('\n')[1];
      const prefix = needs === 'url' ? `STORE_BASE_URL=${sandbox.url}` : 'STORE_API_KEY=sandbox';
      expect(ready).toBe(`Sandbox ready: ${prefix} store -p sandbox pets list`);
      const [name, value] = prefix.split('=') as [string, string];
      const listed = await store(['-p', 'sandbox', 'pets', 'list', '--json'], {
        env: { ...env, [name]: value },
      });
      expect(listed).toEqual({ code: 0, signal: null, stdout: '[]\n', stderr: '' });
    },
  );
});
