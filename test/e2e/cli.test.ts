// bin/store.js as a process against the sandbox as a process: real HTTP on loopback.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import {
  BIN,
  collect,
  killAll,
  processEnv,
  type SandboxProcess,
  startSandbox,
  store,
} from '../helpers/process.js';

afterEach(killAll);

const DEPRECATED =
  "warning: 'store pets get' is deprecated and will be removed on 2030-12-05; use 'store pets list --status <status>' instead\n";

describe('store against the sandbox', () => {
  let sandbox: SandboxProcess;

  it('lists seeded animals as tab-separated rows through a pipe, and as JSON', async () => {
    sandbox = await startSandbox(['--seed', '4']);
    const tsv = await store(['pets', 'list'], { env: sandbox.env() });
    expect(tsv).toEqual({
      code: 0,
      signal: null,
      stdout:
        'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t1\tavailable\n2\tBella\t2\tpending\n3\tMilo\t3\tsold\n4\tLuna\t4\tavailable\n',
      stderr: '',
    });
    const json = await store(['pets', 'list', '--status', 'available', '--limit', '1', '--json'], {
      env: sandbox.env(),
    });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(json.stdout).toBe('[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]\n');
  });

  it('adds animals from flags and from NDJSON on stdin, then finds them', async () => {
    sandbox = await startSandbox();
    const one = await store(['pets', 'add', '--name', 'Rex', '--category-id', '2', '--json'], {
      env: sandbox.env(),
    });
    expect(one).toMatchObject({
      code: 0,
      stdout: '{"id":1,"name":"Rex","categoryId":2}\n',
      stderr: '',
    });
    const many = await store(['pets', 'add', '--file', '-', '--json'], {
      env: sandbox.env(),
      stdin:
        '{"name":"A","categoryId":1,"status":"sold"}\n{"name":"B"}\n{"name":"C","categoryId":3}\n',
    });
    expect(many).toEqual({
      code: 3,
      signal: null,
      stdout:
        '{"id":2,"name":"A","categoryId":1,"status":"sold"}\n' +
        '{"input":2,"error":{"code":"invalid_input","message":"categoryId is required","status":null}}\n' +
        '{"id":3,"name":"C","categoryId":3}\n',
      stderr: '',
    });
    const sold = await store(['pets', 'list', '--status', 'sold'], { env: sandbox.env() });
    expect(sold.stdout).toBe('ID\tNAME\tCATEGORY\tSTATUS\n2\tA\t1\tsold\n');
  });

  it('keeps int64 ids exact end to end, and warns about the deprecated get', async () => {
    const dir = tempDir();
    const data = join(dir, 'data.json');
    writeFileSync(
      data,
      '{"pets":[{"id":9007199254740993,"name":"Big","categoryId":9007199254740993,"status":"pending"}],"messages":[],"orders":[]}',
    );
    sandbox = await startSandbox(['--data', data]);
    const got = await store(['pets', 'get', '9007199254740993', '--json'], { env: sandbox.env() });
    expect(got).toEqual({
      code: 0,
      signal: null,
      stdout:
        '{"id":9007199254740993,"name":"Big","categoryId":9007199254740993,"status":"pending"}\n',
      stderr: DEPRECATED,
    });
    const added = await store(
      ['pets', 'add', '--name', 'Next', '--category-id', '9223372036854775807', '--json'],
      {
        env: sandbox.env(),
      },
    );
    expect(added.stdout).toBe(
      '{"id":9007199254740994,"name":"Next","categoryId":9223372036854775807}\n',
    );
  });

  it('maps the sandbox’s failures to exit codes', async () => {
    sandbox = await startSandbox();
    const missing = await store(['pets', 'get', '5'], { env: sandbox.env() });
    expect(missing.code).toBe(5);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/\nerror: no pet with id 5 \(pet_not_found, HTTP 404\)\n$/);
    const wrongKey = await store(['pets', 'list', '--json'], {
      env: sandbox.env({ STORE_API_KEY: 'nope-1234' }),
    });
    expect(wrongKey).toMatchObject({ code: 4, stdout: '' });
    expect(JSON.parse(wrongKey.stderr)).toMatchObject({
      error: { code: 'unauthorized', status: 401 },
    });
    expect(wrongKey.stderr).not.toContain('nope-1234');
  });

  it('sends a message from stdin and lists orders', async () => {
    sandbox = await startSandbox(['--seed', '3']);
    const sent = await store(['messages', 'send', '--json'], {
      env: sandbox.env(),
      stdin: 'Restock done\n',
    });
    expect(sent.code).toBe(0);
    const message = JSON.parse(sent.stdout);
    expect(message).toMatchObject({ message: 'Restock done', status: 'queued' });
    expect(new Date(message.createdAt).toISOString()).toBe(message.createdAt);
    const orders = await store(['orders', 'list'], { env: sandbox.env() });
    expect(orders.code).toBe(0);
    expect(orders.stdout.split('\n')[0]).toBe('id\tpetId\tquantity\tstatus\tshipDate\tcomplete');
    expect(orders.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('logs in with a key from stdin, checking it against the API first', async () => {
    sandbox = await startSandbox(['--api-key', 'right-key-7890']);
    const env = processEnv({ STORE_BASE_URL: sandbox.url, STORE_PROFILE: 'sandbox' });
    const rejected = await store(['auth', 'login', '--with-key'], {
      env,
      stdin: 'wrong-key-0000\n',
    });
    expect(rejected).toMatchObject({
      code: 4,
      stdout: '',
      stderr: 'error: the API rejected the key (HTTP 401); nothing was saved\n',
    });
    const accepted = await store(['auth', 'login', '--with-key'], {
      env,
      stdin: 'right-key-7890\n',
    });
    expect(accepted).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile sandbox with key ****7890\n',
    });
    const status = await store(['auth', 'status', '--json'], { env });
    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(status.stdout)).toEqual({
      profile: 'sandbox',
      baseUrl: sandbox.url,
      baseUrlSource: 'env',
      keySource: 'config',
      key: '****7890',
      valid: true,
    });
    const config = readFileSync(join(env.STORE_CONFIG_DIR as string, 'config.json'), 'utf8');
    expect(JSON.parse(config)).toEqual({ profiles: { sandbox: { apiKey: 'right-key-7890' } } });
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

  it('keeps --data across a restart', async () => {
    const data = join(tempDir(), 'store.json');
    sandbox = await startSandbox(['--data', data]);
    await store(['pets', 'add', '--name', 'Kept', '--category-id', '1'], { env: sandbox.env() });
    await sandbox.stop();
    sandbox = await startSandbox(['--data', data]);
    const listed = await store(['pets', 'list', '--json'], { env: sandbox.env() });
    expect(listed.stdout).toBe('[{"id":1,"name":"Kept","categoryId":1}]\n');
  });

  it('leaves an intact data file when killed with SIGKILL in the middle of writes', async () => {
    const data = join(tempDir(), 'store.json');
    sandbox = await startSandbox(['--data', data]);
    const lines = Array.from({ length: 2000 }, (_, i) => `{"name":"P${i}","categoryId":1}`).join(
      '\n',
    );
    const adding = store(['pets', 'add', '--file', '-', '--json'], {
      env: sandbox.env(),
      stdin: lines,
    });
    // Kill once some writes have happened, while others are still coming.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await sandbox.stop('SIGKILL');
    // The import was cut off: the server went away under it.
    expect((await adding).code).toBe(6);
    const saved = JSON.parse(readFileSync(data, 'utf8'));
    const count = saved.pets.length;
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(2000);
    sandbox = await startSandbox(['--data', data]);
    const listed = await store(['pets', 'list', '--limit', '100', '--json'], {
      env: sandbox.env(),
    });
    expect(JSON.parse(listed.stdout)).toHaveLength(Math.min(count, 100));
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

  it('prints its version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(await store(['--version'])).toEqual({
      code: 0,
      signal: null,
      stdout: `${pkg.version}\n`,
      stderr: '',
    });
  });

  it('reports an unknown command with a suggestion and exit 2, no stack trace', async () => {
    expect(await store(['pest', 'list'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: "error: unknown command 'pest' (Did you mean pets?)\n",
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
});

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
    const login = await store(['auth', 'login', '--with-key'], { env, stdin: 'local-key-4321\n' });
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
      stderr: 'error: no API key for profile local: run `store auth login` or set STORE_API_KEY\n',
    });
  });

  it('prompts for the key on a terminal without echoing it, checks it and saves it', async () => {
    const key = 'typed-key-5678';
    const sandbox = await startSandbox(['--api-key', key]);
    const env = processEnv({ STORE_BASE_URL: sandbox.url, STORE_PROFILE: 'sandbox' });
    // A real pseudo-terminal: `script` runs the command on one, fed from our pipe.
    const child = spawn(
      'script',
      ['-qec', `"${process.execPath}" "${BIN}" auth login`, '/dev/null'],
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
