// A config folder and config.json that store must not trust with the keys (issue #14 item
// 13): symbolic links, FIFOs, files other users own or may change. Refused with exit 1 and
// a line saying what to run, by reading and writing commands alike; nothing sent, nothing
// written.
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configSetup, run, tempDir } from '../helpers/cli.js';
import { KEY, unexpected } from '../helpers/http.js';
import { BIN, collect, type ProcessResult } from '../helpers/process.js';

const CONFIG = `{"currentProfile":"eu","profiles":{"eu":{"baseUrl":"https://eu.example.org/v1","apiKey":"${KEY}"}}}`;
const BUILTINS = 'production\nstaging\nsandbox\n';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Makes `path` belong to another user: chown as root (as here), else a different euid. */
function ownedByAnother(path: string): number {
  if (process.getuid?.() === 0) {
    chownSync(path, 12345, 12345);
    return 12345;
  }
  const uid = process.getuid?.() as number;
  vi.spyOn(process, 'geteuid').mockReturnValue(uid + 1);
  return uid;
}

const me = () =>
  process.getuid?.() === 0 ? userInfo().username : String((process.getuid?.() as number) + 1);

/** A real process, killed if it has not ended after 15 s (a hang shows as SIGKILL). */
async function storeProcess(args: string[], env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const result: ProcessResult = await collect(child);
  clearTimeout(guard);
  return result;
}

describe('config.json as a symbolic link', () => {
  it('is not followed by auth login: the file it points to is left as it was', async () => {
    const { env, file } = configSetup();
    const other = join(tempDir(), 'other-tool.json');
    writeFileSync(other, '{"theirs": true}\n', { mode: 0o644 });
    symlinkSync(other, file);
    const result = await run(['auth', 'login', '--with-key', '--no-verify'], {
      env,
      stdin: 'new-key-0123456789\n',
    });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: config file ${file} is a symbolic link; store does not follow links for the file that holds its keys: replace the link with the file it points to\n`,
      prompts: [],
    });
    expect(readFileSync(other, 'utf8')).toBe('{"theirs": true}\n');
    expect(statSync(other).mode & 0o777).toBe(0o644);
    expect(readlinkSync(file)).toBe(other);
  });

  it('is not read either: no request goes to the URL it holds', async () => {
    const { env, file } = configSetup();
    const other = join(tempDir(), 'config.json');
    writeFileSync(other, CONFIG, { mode: 0o600 });
    symlinkSync(other, file);
    const result = await run(['pets', 'list'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: config file .* is a symbolic link; /);
    expect(unexpected).toEqual([]);
  });
});

describe('config.json as a FIFO', () => {
  it('is refused at once by commands, and completion still lists the built-ins', async () => {
    const { env, file } = configSetup();
    execFileSync('mkfifo', ['-m', '600', file]);
    const list = await storeProcess(['profile', 'list'], env);
    expect(list).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `error: config file ${file} is a FIFO (named pipe), not a regular file; remove it\n`,
    });
    const set = await storeProcess(
      ['profile', 'set', 'x', '--base-url', 'https://x.example/v1'],
      env,
    );
    expect([set.code, set.signal]).toEqual([1, null]);
    const completion = await storeProcess(['__complete', 'profiles'], env);
    expect(completion).toEqual({ code: 0, signal: null, stdout: BUILTINS, stderr: '' });
    expect(lstatSync(file).isFIFO()).toBe(true);
  });

  it.each([
    ['a folder', (file: string) => mkdirSync(file), 'a directory'],
    ['a link to a device', (file: string) => symlinkSync('/dev/zero', file), 'a symbolic link'],
  ])('%s is refused too', async (_what, make, kind) => {
    const { env, file } = configSetup();
    make(file);
    const result = await run(['profile', 'list'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: config file ${file} is ${kind}`);
  });
});

describe('a config folder or file others may change', () => {
  it('refuses a folder writable by others: what to run, and nothing written', async () => {
    const { dir, env, file } = configSetup();
    chmodSync(dir, 0o777);
    for (const argv of [
      ['profile', 'list'],
      ['profile', 'set', 'x', '--base-url', 'https://x.example/v1'],
    ]) {
      const result = await run(argv, { env });
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: config folder ${dir} can be changed by other users (mode 0777); run: chmod 700 ${dir}\n`,
        prompts: [],
      });
    }
    expect(() => statSync(file)).toThrow(/ENOENT/);
  });

  it('refuses a file writable by its group, and leaves it alone', async () => {
    const { env, file } = configSetup();
    writeFileSync(file, CONFIG);
    chmodSync(file, 0o620);
    const result = await run(['auth', 'logout'], { env });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: config file ${file} can be changed by other users (mode 0620); run: chmod 600 ${file}\n`,
      prompts: [],
    });
    expect(readFileSync(file, 'utf8')).toBe(CONFIG);
  });

  it('allows a folder others can only read (as ssh does), and creates the file 0600', async () => {
    const { dir, env, file } = configSetup();
    chmodSync(dir, 0o755);
    const result = await run(['profile', 'set', 'x', '--base-url', 'https://x.example/v1'], {
      env,
    });
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'Created profile x\n', prompts: [] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
  });
});

describe('a config folder or file of another user', () => {
  it('refuses the file: its base URL never receives the key', async () => {
    const { env, file } = configSetup({ STORE_API_KEY: KEY });
    writeFileSync(file, CONFIG, { mode: 0o600 });
    const uid = ownedByAnother(file);
    const result = await run(['pets', 'list'], { env });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: config file ${file} belongs to another user (uid ${uid}); store only uses its config when it is yours: run: sudo chown ${me()} ${file}\n`,
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it('refuses the folder, for writes too', async () => {
    const { dir, env, file } = configSetup();
    const uid = ownedByAnother(dir);
    const result = await run(['profile', 'set', 'x', '--base-url', 'https://x.example/v1'], {
      env,
    });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: config folder ${dir} belongs to another user (uid ${uid}); store only uses its config when it is yours: run: sudo chown ${me()} ${dir}\n`,
      prompts: [],
    });
    expect(() => statSync(file)).toThrow(/ENOENT/);
  });

  it('trusts a folder of root’s, as ssh does (a config set up by an admin)', async () => {
    // `/` is root's: for a user other than root (as which this runs, if root), still trusted.
    if (process.getuid?.() === 0) vi.spyOn(process, 'geteuid').mockReturnValue(12345);
    const result = await run(['profile', 'list', '--json'], {
      env: { TERM: 'dumb', STORE_CONFIG_DIR: '/' },
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toHaveLength(3);
  });

  it('says a config folder that is a file is not a folder', async () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, '');
    const result = await run(['profile', 'list'], {
      env: { TERM: 'dumb', STORE_CONFIG_DIR: file },
    });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: config folder ${file} is not a folder\n`,
      prompts: [],
    });
  });

  it("completes only the built-in profiles from another user's file", async () => {
    const { env, file } = configSetup();
    writeFileSync(file, CONFIG, { mode: 0o600 });
    ownedByAnother(file);
    const result = await run(['__complete', 'profiles'], { env });
    expect(result).toEqual({ code: 0, stdout: BUILTINS, stderr: '', prompts: [] });
  });
});
