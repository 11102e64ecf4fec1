import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveProfile } from '../../src/config/profiles.js';
import {
  publishSandbox,
  RECORD_FILE,
  readEntries,
  runningSandboxUrl,
  startTime,
} from '../../src/config/sandbox-record.js';
import { announceSandbox } from '../../src/sandbox/announce.js';
import { afterThisTest } from '../helpers/cleanup.js';
import { BIN, processEnv } from '../helpers/process.js';
import { cleanup, tempDir } from './helpers.js';

afterEach(cleanup);

const URL_A = 'http://127.0.0.1:40001/v1';
const URL_B = 'http://127.0.0.1:40002/v1';
const ownStart = () => startTime('self');
const writeRecord = (dir: string, sandboxes: unknown[]) =>
  writeFileSync(path.join(dir, RECORD_FILE), JSON.stringify({ sandboxes }));

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'close');
  return child.pid as number;
}

describe('the sandbox record', () => {
  it('is written atomically with mode 0600, read back, and removed', async () => {
    const dir = path.join(tempDir(), 'config');
    const published = await publishSandbox(dir, URL_A);
    const file = path.join(dir, RECORD_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      sandboxes: [{ url: URL_A, pid: process.pid, started: ownStart() }],
    });
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBe(URL_A);
    await published.remove();
    expect(existsSync(file)).toBe(false);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBeUndefined();
  });

  it('ignores an entry whose process has ended, or whose pid now belongs to another process', async () => {
    const dir = tempDir();
    writeRecord(dir, [{ url: URL_A, pid: await deadPid(), started: null }]);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBeUndefined();
    // Our own pid with another start time: the pid was reused.
    writeRecord(dir, [{ url: URL_A, pid: process.pid, started: '1' }]);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBeUndefined();
    writeRecord(dir, [{ url: URL_A, pid: process.pid, started: ownStart() }]);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBe(URL_A);
  });

  it('tells a reused pid by the start time: a live process that started at another time is ignored', async () => {
    const dir = tempDir();
    const child = spawn('sleep', ['5']);
    afterThisTest(() => child.kill());
    await once(child, 'spawn');
    // The record's start time is this process's, not the sleep's, whose pid it names.
    writeRecord(dir, [{ url: URL_A, pid: child.pid, started: ownStart() }]);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBeUndefined();
    writeRecord(dir, [{ url: URL_A, pid: child.pid, started: startTime(child.pid as number) }]);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBe(URL_A);
  });

  it('trusts a live pid alone where the start time is unknown (no /proc: macOS, Windows)', () => {
    const dir = tempDir();
    writeRecord(dir, [{ url: URL_A, pid: process.pid, started: null }]);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBe(URL_A);
  });

  it.each([0, -1])('ignores an entry of pid %i (signal 0 to it reaches a process group)', (pid) => {
    const dir = tempDir();
    writeRecord(dir, [{ url: URL_A, pid, started: null }]);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBeUndefined();
  });

  it('leaves no temporary file behind when the record cannot be written', async () => {
    const dir = tempDir();
    // A folder where the record goes: the rename over it fails.
    mkdirSync(path.join(dir, RECORD_FILE));
    writeFileSync(path.join(dir, RECORD_FILE, 'x'), '');
    await expect(publishSandbox(dir, URL_A)).rejects.toThrow();
    expect(readdirSync(dir)).toEqual([RECORD_FILE]);
  });

  it('takes the newest running entry, and only a plain-http loopback URL', async () => {
    const dir = tempDir();
    const live = { pid: process.pid, started: ownStart() };
    writeRecord(dir, [
      { url: URL_A, ...live },
      { url: URL_B, ...live },
      { url: URL_A, pid: await deadPid(), started: null },
    ]);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBe(URL_B);
    for (const url of ['http://example.com:4010/v1', 'https://127.0.0.1/v1', 'not a url']) {
      writeRecord(dir, [{ url, ...live }]);
      expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir }), url).toBeUndefined();
    }
  });

  it('is not waited on when a FIFO stands in its place: none, at once', () => {
    const dir = tempDir();
    execFileSync('mkfifo', ['-m', '600', path.join(dir, RECORD_FILE)]);
    // Opening a FIFO without O_NONBLOCK waits for a writer, for good (not even Ctrl-C ends it):
    // run as a process with a time limit, so that such a regression fails instead of hanging.
    const listed = spawnSync(process.execPath, [BIN, 'profile', 'list', '--json'], {
      env: processEnv({ STORE_CONFIG_DIR: dir }),
      encoding: 'utf8',
      timeout: 20_000,
      // store handles SIGTERM in JavaScript, which cannot run while it is blocked in open().
      killSignal: 'SIGKILL',
    });
    expect(listed.signal).toBe(null);
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout)[2]).toMatchObject({
      name: 'sandbox',
      baseUrl: 'http://127.0.0.1:4010/v1',
    });
  });

  it('ignores a record that is not JSON or not the right shape', () => {
    const dir = tempDir();
    for (const text of ['', '{', '[]', '{"sandboxes":{}}', '{"sandboxes":[{"url":1,"pid":1}]}']) {
      writeFileSync(path.join(dir, RECORD_FILE), text);
      expect(readEntries(dir), text).toEqual([]);
      expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBeUndefined();
    }
  });

  it('never follows a symlink: not when reading, and writing replaces the link itself', async () => {
    const dir = tempDir();
    const elsewhere = path.join(tempDir(), 'elsewhere.json');
    writeFileSync(
      elsewhere,
      JSON.stringify({ sandboxes: [{ url: URL_A, pid: process.pid, started: ownStart() }] }),
    );
    const record = path.join(dir, RECORD_FILE);
    symlinkSync(elsewhere, record);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBeUndefined();
    const before = readFileSync(elsewhere, 'utf8');
    await publishSandbox(dir, URL_B);
    expect(lstatSync(record).isSymbolicLink()).toBe(false);
    expect(readFileSync(elsewhere, 'utf8')).toBe(before);
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBe(URL_B);
  });

  it.each(['stopping', 'starting'])(
    'is changed only under its lock: a sandbox %s waits while another writes it',
    async (what) => {
      // Without the lock, a sandbox stopping while another started wrote the record as it had
      // read it, and the newcomer's entry was lost (1 in 60–100 overlaps).
      const dir = tempDir();
      const published = what === 'stopping' ? await publishSandbox(dir, URL_A) : undefined;
      const file = path.join(dir, RECORD_FILE);
      // A live holder (this process stands for it), as another sandbox writing would be.
      const holder = {
        pid: process.pid,
        host: hostname(),
        time: Date.now(),
        token: 'feedfacecafebeef',
      };
      writeFileSync(`${file}.lock`, JSON.stringify(holder));
      let done = false;
      const change = (published ? published.remove() : publishSandbox(dir, URL_B)).then(() => {
        done = true;
      });
      // Its draft beside the lock shows it is waiting (or it is done: it did not wait).
      const draft = () =>
        readdirSync(dir).some((name) => name.startsWith(`${RECORD_FILE}.lock.new-`));
      while (!done && !draft()) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(done).toBe(false);
      const before = published ? [{ url: URL_A, pid: process.pid, started: ownStart() }] : [];
      expect(readEntries(dir)).toEqual(before);
      rmSync(`${file}.lock`);
      await change;
      const after = published ? [] : [{ url: URL_B, pid: process.pid, started: ownStart() }];
      expect(readEntries(dir)).toEqual(after);
    },
  );

  it('keeps the other sandboxes’ entries when one is added or removed, and drops dead ones', async () => {
    const dir = tempDir();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      const otherEntry = {
        url: URL_A,
        pid: other.pid as number,
        started: startTime(other.pid as number),
      };
      writeRecord(dir, [{ url: URL_B, pid: await deadPid(), started: null }, otherEntry]);
      const published = await publishSandbox(dir, URL_B);
      expect(readEntries(dir)).toEqual([
        otherEntry,
        { url: URL_B, pid: process.pid, started: ownStart() },
      ]);
      expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBe(URL_B);
      await published.remove();
      expect(readEntries(dir)).toEqual([otherEntry]);
      expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBe(URL_A);
    } finally {
      other.kill('SIGKILL');
    }
  });
});

describe('the sandbox profile', () => {
  it('goes to the running sandbox unless its base URL is set by the user or STORE_BASE_URL', async () => {
    const dir = tempDir();
    const env = { STORE_CONFIG_DIR: dir };
    await publishSandbox(dir, URL_A);
    expect(resolveProfile({}, env, 'sandbox')).toMatchObject({
      baseUrl: URL_A,
      messagesUrl: URL_A,
      apiKey: 'sandbox',
    });
    expect(
      resolveProfile(
        { profiles: { sandbox: { messagesUrl: 'http://localhost:1/v1' } } },
        env,
        'sandbox',
      ),
    ).toMatchObject({ baseUrl: URL_A, messagesUrl: 'http://localhost:1/v1' });
    expect(
      resolveProfile(
        { profiles: { sandbox: { baseUrl: 'http://localhost:2/v1' } } },
        env,
        'sandbox',
      ),
    ).toMatchObject({ baseUrl: 'http://localhost:2/v1', messagesUrl: 'http://localhost:2/v1' });
    expect(
      resolveProfile({}, { ...env, STORE_BASE_URL: 'http://localhost:3/v1' }, 'sandbox'),
    ).toMatchObject({ baseUrl: 'http://localhost:3/v1', messagesUrl: 'http://localhost:3/v1' });
    expect(resolveProfile({}, env, 'production').baseUrl).toBe(
      'https://api.animal-store.example/v1',
    );
  });

  it('is http://127.0.0.1:4010/v1 without a record', () => {
    expect(resolveProfile({}, { STORE_CONFIG_DIR: tempDir() }, 'sandbox')).toMatchObject({
      baseUrl: 'http://127.0.0.1:4010/v1',
      messagesUrl: 'http://127.0.0.1:4010/v1',
    });
  });
});

describe('announceSandbox', () => {
  it('records the sandbox and names the command to use', async () => {
    const dir = tempDir();
    const warnings: string[] = [];
    const announced = await announceSandbox({ STORE_CONFIG_DIR: dir }, URL_A, 'sandbox', (line) =>
      warnings.push(line),
    );
    expect(announced.readyLine).toBe('Sandbox ready: store -p sandbox pets list');
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBe(URL_A);
    await announced.withdraw();
    expect(runningSandboxUrl({ STORE_CONFIG_DIR: dir })).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('asks for no STORE_BASE_URL when `-p sandbox` reaches it with a trailing slash or another spelling', async () => {
    // `profile set sandbox --base-url http://127.0.0.1:4010/v1/` with the sandbox on 4010.
    const reaches = async () => ({ baseUrl: `${URL_A}/`, apiKey: 'sandbox' });
    const elsewhere = async () => ({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sandbox' });
    const env = { STORE_CONFIG_DIR: tempDir() };
    const plain = await announceSandbox(env, URL_A, 'sandbox', () => {}, reaches);
    expect(plain.readyLine).toBe('Sandbox ready: store -p sandbox pets list');
    await plain.withdraw();
    // Other spellings of the same URL, as the client parses them.
    for (const spelling of [URL_A.replace('http:', 'HTTP:'), `${URL_A}/.`, `${URL_A}/x/..`]) {
      const same = async () => ({ baseUrl: spelling, apiKey: 'sandbox' });
      const announced = await announceSandbox(env, URL_A, 'sandbox', () => {}, same);
      expect(announced.readyLine, spelling).toBe('Sandbox ready: store -p sandbox pets list');
      await announced.withdraw();
    }
    const other = await announceSandbox(env, URL_A, 'sandbox', () => {}, elsewhere);
    expect(other.readyLine).toBe(
      `Sandbox ready: STORE_BASE_URL=${URL_A} store -p sandbox pets list`,
    );
    await other.withdraw();
    // What the URL parser alone would read as the same URL, and the client refuses (exit 2):
    // a carriage return from a CRLF env file, a space, a tab.
    for (const refused of [`${URL_A}\r`, `${URL_A} `, URL_A.replace('/v1', '/v\t1')]) {
      const broken = async () => ({ baseUrl: refused, apiKey: 'sandbox' });
      const announced = await announceSandbox(env, URL_A, 'sandbox', () => {}, broken);
      expect(announced.readyLine, JSON.stringify(refused)).toBe(
        `Sandbox ready: STORE_BASE_URL=${URL_A} store -p sandbox pets list`,
      );
      await announced.withdraw();
    }
  });

  it('names the key when it is not the profile’s, quoted for the shell', async () => {
    const announced = await announceSandbox(
      { STORE_CONFIG_DIR: tempDir() },
      URL_A,
      "it's",
      () => {},
    );
    expect(announced.readyLine).toBe(
      "Sandbox ready: STORE_API_KEY='it'\\''s' store -p sandbox pets list",
    );
  });

  it('says so, and names the URL, when the record cannot be written', async () => {
    const blocker = path.join(tempDir(), 'file');
    writeFileSync(blocker, '');
    const warnings: string[] = [];
    const env = { STORE_CONFIG_DIR: path.join(blocker, 'config') };
    const announced = await announceSandbox(env, URL_A, 'sandbox', (line) => warnings.push(line));
    expect(announced.readyLine).toBe(
      `Sandbox ready: STORE_BASE_URL=${URL_A} store -p sandbox pets list`,
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: could not record the sandbox in ${blocker}/config \\(ENOTDIR.*\\); \`store -p sandbox\` will not find it on another port$`,
        ),
      ),
    ]);
    await expect(announced.withdraw()).resolves.toBeUndefined();
  });

  it('says so when there is no config folder to be found (no home folder)', async () => {
    const os = process.getBuiltinModule('node:os');
    const userInfo = vi.spyOn(os, 'userInfo').mockImplementation(() => {
      throw new Error('uv_os_homedir returned ENOENT');
    });
    afterThisTest(() => userInfo.mockRestore());
    const warnings: string[] = [];
    const announced = await announceSandbox({}, URL_A, 'sandbox', (line) => warnings.push(line));
    expect(announced.readyLine).toBe(
      `Sandbox ready: STORE_BASE_URL=${URL_A} store -p sandbox pets list`,
    );
    expect(warnings).toEqual([
      "warning: could not record the sandbox (cannot tell where your config folder is (HOME is not set, and this user has no home folder in the system's user database): set HOME, or STORE_CONFIG_DIR to the folder for config.json); `store -p sandbox` will not find it on another port",
    ]);
  });

  it('writes no record for a URL that is not loopback', async () => {
    const dir = tempDir();
    const announced = await announceSandbox(
      { STORE_CONFIG_DIR: dir },
      'http://192.0.2.1:4010/v1',
      'sandbox',
      () => {},
    );
    expect(existsSync(path.join(dir, RECORD_FILE))).toBe(false);
    expect(announced.readyLine).toBe(
      'Sandbox ready: STORE_BASE_URL=http://192.0.2.1:4010/v1 store -p sandbox pets list',
    );
  });
});
