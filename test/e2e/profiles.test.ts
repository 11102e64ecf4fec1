// Profiles and keys as a user meets them: bin/store.js as a process against the sandbox as a
// process, real HTTP on loopback.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, collect, processEnv, startSandbox, store } from '../helpers/process.js';

describe('profiles and keys as a user meets them', () => {
  it('creates a profile for a sandbox, logs in to it, uses it, and forgets the key', async () => {
    const sandbox = await startSandbox(['--api-key', 'local-key-4321', '--seed', '1']);
    const env = processEnv();
    expect(
      await store(['profile', 'set', 'local', '--base-url', sandbox.url], { env }),
    ).toMatchObject({
      code: 0,
      stderr: 'Created profile local\n',
    });
    expect((await store(['profile', 'use', 'local'], { env })).code).toBe(0);
    // In config.json on purpose: the keyring is test/e2e/keyring.test.ts's.
    const login = await store(['auth', 'login', '--with-key', '--insecure-storage'], {
      env,
      stdin: 'local-key-4321\n',
    });
    expect(login).toMatchObject({
      code: 0,
      stderr: 'Logged in to profile local with key ****4321\n',
    });
    expect(await store(['auth', 'token'], { env })).toMatchObject({
      code: 0,
      stdout: 'local-key-4321\n',
    });
    const listed = await store(['pets', 'list', '--json'], { env });
    expect(listed).toMatchObject({
      code: 0,
      stdout: '[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]\n',
    });
    const profiles = await store(['profile', 'list'], { env });
    expect(profiles.stdout.split('\n')).toContain(
      `*\tlocal\t${sandbox.url}\t${sandbox.url}\tstored`,
    );
    expect(profiles.stdout).not.toContain('local-key-4321');
    expect(await store(['auth', 'logout'], { env })).toMatchObject({
      code: 0,
      stderr: 'Logged out of profile local\n',
    });
    expect(await store(['pets', 'list'], { env })).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        'error: no API key for profile local\nhint: run `store auth login` or set STORE_API_KEY\n',
    });
  });

  it('prompts for the key on a terminal without echoing it, checks it and saves it', async () => {
    const key = 'typed-key-5678';
    const sandbox = await startSandbox(['--api-key', key]);
    const env = processEnv({ STORE_BASE_URL: sandbox.url, STORE_PROFILE: 'sandbox' });
    // A real pseudo-terminal: `script` runs the command on one, fed from our pipe.
    const child = spawn(
      'script',
      ['-qec', `"${process.execPath}" "${BIN}" auth login --insecure-storage`, '/dev/null'],
      {
        env,
      },
    );
    child.once('exit', () => child.stdin.end());
    let screen = '';
    child.stdout.on('data', (chunk) => {
      const before = screen;
      screen += chunk;
      // Type only once the prompt is up (raw mode on), as a person would.
      if (!before.includes('API key') && screen.includes('API key for profile sandbox: ')) {
        child.stdin.write(`${key}\r`);
      }
    });
    const ended = await collect(child);
    expect(ended.code).toBe(0);
    expect(screen).toContain('API key for profile sandbox: ');
    expect(screen).toContain('Logged in to profile sandbox with key ****5678');
    expect(screen).not.toContain(key);
    const config = readFileSync(join(env.STORE_CONFIG_DIR as string, 'config.json'), 'utf8');
    expect(JSON.parse(config)).toEqual({ profiles: { sandbox: { apiKey: key } } });
  });

  it('reports a base URL without /v1 as not found (exit 5), not as a bad key', async () => {
    const sandbox = await startSandbox();
    const root = sandbox.url.replace(/\/v1$/, '');
    const result = await store(['pets', 'list'], { env: sandbox.env({ STORE_BASE_URL: root }) });
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: .+ \(not_found, HTTP 404\)\n$/);
  });
});
