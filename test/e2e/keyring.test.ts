// The key in a real Secret Service (test/helpers/secret-service.ts): bin/store.js as a process,
// `secret-tool` looking at what the keyring holds, and a server on loopback seeing what is sent.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { KEYRING_TIMEOUT_MS, systemKeyring } from '../../src/config/key-store.js';
import { afterThisTest } from '../helpers/cleanup.js';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { BIN, collect, processEnv, store } from '../helpers/process.js';
import { keyringSession, SKIP } from '../helpers/secret-service.js';

const KEY = 'keyring-key-5678';
const PETS = '[{"id":1,"name":"Rex","categoryId":2,"status":"available"}]';

/** A server on loopback that answers every request with one pet, and a profile `loc` for it. */
async function setUp(sessionEnv: Record<string, string>) {
  const server = await faultServer((_req, res) => reply(res, 200, PETS));
  const env = processEnv({ ...sessionEnv, STORE_PROFILE: 'loc' });
  const configFile = join(env.STORE_CONFIG_DIR as string, 'config.json');
  writeFileSync(configFile, JSON.stringify({ profiles: { loc: { baseUrl: server.url } } }), {
    mode: 0o600,
  });
  const config = () => JSON.parse(readFileSync(configFile, 'utf8'));
  /** The account of loc's entry, as config.json names it. */
  const account = (): string => config().profiles.loc.keyringAccount;
  return { server, env, configFile, config, account };
}

describe.skipIf(SKIP)('the key in a real Secret Service (gnome-keyring)', () => {
  it('login stores it there and not in config.json; commands send it; logout removes it', async () => {
    const session = await keyringSession();
    const { server, env, config, account } = await setUp(session.env);

    const login = await store(['auth', 'login', '--with-key'], { env, stdin: `${KEY}\n` });
    expect(login).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile loc with key ****5678\n',
    });
    const entry = account();
    expect(entry).toMatch(/^loc-[0-9a-f]{16}$/);
    expect(config()).toEqual({
      profiles: { loc: { baseUrl: server.url, keyStorage: 'keyring', keyringAccount: entry } },
    });
    expect(session.secret(entry)).toBe(KEY);

    const listed = await store(['pets', 'list', '--json'], { env });
    expect(listed).toMatchObject({ code: 0, stdout: `${PETS}\n`, stderr: '' });
    // The check at login, then the list: each with the key from the keyring.
    expect(server.seen.map((r) => `${r.method} ${r.url} ${r.authorization}`)).toEqual([
      `GET /v1/pets?limit=1 Bearer ${KEY}`,
      `GET /v1/pets Bearer ${KEY}`,
    ]);

    const status = await store(['auth', 'status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ keyStorage: 'keyring', key: '****5678' });
    expect(await store(['auth', 'token'], { env })).toMatchObject({
      code: 0,
      stdout: `${KEY}\n`,
    });

    const logout = await store(['auth', 'logout'], { env });
    expect(logout).toMatchObject({ code: 0, stderr: 'Logged out of profile loc\n' });
    expect(session.secret(entry)).toBeNull();
    expect(config()).toEqual({ profiles: { loc: { baseUrl: server.url } } });
  });

  it('reads and removals are made in this process, without the library; a locked item is left to it', async () => {
    const session = await keyringSession();
    session.store('loc-0123456789abcdef', KEY);
    session.store('loc-00000000000000aa', 'another-key-1234');
    vi.stubEnv('DBUS_SESSION_BUS_ADDRESS', session.env.DBUS_SESSION_BUS_ADDRESS);
    const spawn = vi.spyOn(process.getBuiltinModule('node:child_process'), 'spawn');
    afterThisTest(() => {
      spawn.mockRestore();
      vi.unstubAllEnvs();
    });
    const keyring = await systemKeyring();
    expect(await keyring.get('loc-0123456789abcdef')).toBe(KEY);
    // No item at all: none, as the library would say.
    expect(await keyring.get('loc-fedcba9876543210')).toBeNull();
    expect(await keyring.delete('loc-00000000000000aa')).toBe(true);
    expect(session.secret('loc-00000000000000aa')).toBeNull();
    expect(await keyring.delete('loc-00000000000000aa')).toBe(false);
    expect(session.secret('loc-0123456789abcdef')).toBe(KEY);
    expect(spawn).not.toHaveBeenCalled();
    session.lock();
    await expect(keyring.get('loc-0123456789abcdef')).rejects.toThrow(
      /unlock prompt was dismissed/,
    );
    expect(spawn).toHaveBeenCalledTimes(1);
  });

  it('moves a key kept in config.json into the keyring at the next login', async () => {
    const session = await keyringSession();
    const { server, env, configFile, config, account } = await setUp(session.env);
    writeFileSync(
      configFile,
      JSON.stringify({ profiles: { loc: { baseUrl: server.url, apiKey: 'old-key-1111' } } }),
    );
    // The key in the file keeps working, and the keyring is left alone.
    expect(await store(['pets', 'list', '--json'], { env })).toMatchObject({ code: 0 });
    expect(server.seen.map((r) => r.authorization)).toEqual(['Bearer old-key-1111']);
    expect(session.secret('loc')).toBeNull();

    const login = await store(['auth', 'login', '--with-key', '--no-verify'], { env, stdin: KEY });
    expect(login).toMatchObject({
      code: 0,
      stderr: 'Saved key ****5678 for profile loc without checking it\n',
    });
    expect(config()).toEqual({
      profiles: { loc: { baseUrl: server.url, keyStorage: 'keyring', keyringAccount: account() } },
    });
    expect(readFileSync(configFile, 'utf8')).not.toContain('old-key');
    expect(session.secret(account())).toBe(KEY);
  });

  it('a locked keyring: a key in it is exit 4; a login saves to config.json, saying so and naming the entry that stays', async () => {
    const session = await keyringSession();
    const { server, env, configFile, config, account } = await setUp(session.env);
    const login = ['auth', 'login', '--with-key', '--no-verify'];
    expect((await store(login, { env, stdin: KEY })).code).toBe(0);
    const entry = account();
    session.lock();
    expect(await store(['pets', 'list'], { env })).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        'error: cannot read the key of profile loc from the system keyring (it is locked)\n' +
        'hint: unlock the keyring, or run `store -p loc auth login` to store the key again\n',
    });
    expect(server.seen).toEqual([]);
    expect(await store(login, { env, stdin: KEY })).toMatchObject({
      code: 0,
      stderr:
        `warning: the system keyring cannot be used (it is locked); the key is stored in plain text in ${configFile}\n` +
        `warning: the old key of profile loc stays in the system keyring (it is locked): service "store", account "${entry}"\n` +
        'Saved key ****5678 for profile loc without checking it\n',
    });
    expect(config()).toEqual({ profiles: { loc: { baseUrl: server.url, apiKey: KEY } } });
    expect(await store(['pets', 'list', '--json'], { env })).toMatchObject({ code: 0 });
    expect(server.seen.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`]);
  });
});

describe.skipIf(SKIP)('a key moved to the file leaves nothing in the keyring', () => {
  it('--insecure-storage after a login into the keyring removes the entry; logout has only the file to clear', async () => {
    const session = await keyringSession();
    const { server, env, config, account } = await setUp(session.env);
    const login = ['auth', 'login', '--with-key', '--no-verify'];
    expect((await store(login, { env, stdin: KEY })).code).toBe(0);
    const entry = account();
    expect(session.secret(entry)).toBe(KEY);
    const insecure = await store([...login, '--insecure-storage'], {
      env,
      stdin: 'file-key-7777',
    });
    expect(insecure).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Saved key ****7777 for profile loc without checking it\n',
    });
    expect(config()).toEqual({
      profiles: { loc: { baseUrl: server.url, apiKey: 'file-key-7777' } },
    });
    expect(session.secret(entry)).toBeNull();
    expect(await store(['auth', 'logout'], { env })).toMatchObject({
      code: 0,
      stderr: 'Logged out of profile loc\n',
    });
  });
});

describe.skipIf(SKIP)('config folders share the keyring, never an entry', () => {
  it('a login under another config folder with the same profile name leaves this one its key', async () => {
    const session = await keyringSession();
    const a = await setUp(session.env);
    const b = await setUp(session.env);
    const login = ['auth', 'login', '--with-key', '--no-verify'];
    expect((await store(login, { env: a.env, stdin: KEY })).code).toBe(0);
    expect((await store(login, { env: b.env, stdin: 'other-key-9999' })).code).toBe(0);
    expect(a.account()).not.toBe(b.account());
    expect(session.secret(a.account())).toBe(KEY);
    expect(session.secret(b.account())).toBe('other-key-9999');

    expect(await store(['pets', 'list', '--json'], { env: a.env })).toMatchObject({ code: 0 });
    expect(await store(['pets', 'list', '--json'], { env: b.env })).toMatchObject({ code: 0 });
    expect(a.server.seen.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`]);
    expect(b.server.seen.map((r) => r.authorization)).toEqual(['Bearer other-key-9999']);

    // Logging out of one forgets its entry only.
    expect((await store(['auth', 'logout'], { env: b.env })).code).toBe(0);
    expect(session.secret(a.account())).toBe(KEY);
    expect(await store(['auth', 'token'], { env: a.env })).toMatchObject({
      code: 0,
      stdout: `${KEY}\n`,
    });
  });

  it("a key stored under the profile's name (an older store) is read there, and moves at the next login", async () => {
    const session = await keyringSession();
    const { server, env, configFile, config, account } = await setUp(session.env);
    writeFileSync(
      configFile,
      JSON.stringify({ profiles: { loc: { baseUrl: server.url, keyStorage: 'keyring' } } }),
    );
    session.store('loc', 'older-key-4444');
    expect(await store(['auth', 'token'], { env })).toMatchObject({
      code: 0,
      stdout: 'older-key-4444\n',
    });
    const login = await store(['auth', 'login', '--with-key', '--no-verify'], { env, stdin: KEY });
    expect(login).toMatchObject({
      code: 0,
      stderr: 'Saved key ****5678 for profile loc without checking it\n',
    });
    expect(account()).toMatch(/^loc-[0-9a-f]{16}$/);
    expect(config()).toEqual({
      profiles: { loc: { baseUrl: server.url, keyStorage: 'keyring', keyringAccount: account() } },
    });
    expect(session.secret(account())).toBe(KEY);
    expect(session.secret('loc')).toBeNull();
  });
});

describe.skipIf(process.platform !== 'linux')('no D-Bus session (a server over ssh)', () => {
  it('login saves to config.json with one warning line naming it, every time; commands use it', async () => {
    const runtime = tempDir();
    const { server, env, configFile, config } = await setUp({
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(runtime, 'no-bus')}`,
    });
    const warning = `warning: the system keyring cannot be used (no D-Bus session); the key is stored in plain text in ${configFile}\n`;
    for (let i = 0; i < 2; i++) {
      const login = await store(['auth', 'login', '--with-key', '--no-verify'], {
        env,
        stdin: KEY,
      });
      expect(login).toMatchObject({
        code: 0,
        stdout: '',
        stderr: `${warning}Saved key ****5678 for profile loc without checking it\n`,
      });
    }
    expect(config()).toEqual({ profiles: { loc: { baseUrl: server.url, apiKey: KEY } } });
    const status = await store(['auth', 'status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ keyStorage: 'file', valid: true });
    // --insecure-storage: the file on purpose, without the warning.
    const insecure = await store(
      ['auth', 'login', '--with-key', '--no-verify', '--insecure-storage'],
      {
        env,
        stdin: KEY,
      },
    );
    expect(insecure).toMatchObject({
      code: 0,
      stderr: 'Saved key ****5678 for profile loc without checking it\n',
    });
  });
});

/** A D-Bus address whose socket accepts connections and never answers: a hung bus. */
async function silentBus(): Promise<string> {
  const path = join(tempDir(), 'silent.sock');
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  afterThisTest(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return `unix:path=${path}`;
}

/** bin/store.js as a process, sent `signal` after `afterMs`: how it ended, and when. */
async function interrupted(args: string[], env: NodeJS.ProcessEnv, signal: NodeJS.Signals) {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  afterThisTest(() => child.kill('SIGKILL'));
  setTimeout(() => child.kill(signal), 1000);
  const result = await collect(child);
  return { ...result, ms: Date.now() - started };
}

describe.skipIf(process.platform !== 'linux')('a D-Bus session that never answers', () => {
  const TIMEOUT = `it did not answer within ${KEYRING_TIMEOUT_MS / 1000} s`;

  it('a read gives up at the time limit: exit 4 with its hint, nothing sent', async () => {
    const { server, env, configFile } = await setUp({
      DBUS_SESSION_BUS_ADDRESS: await silentBus(),
    });
    writeFileSync(
      configFile,
      JSON.stringify({ profiles: { loc: { baseUrl: server.url, keyStorage: 'keyring' } } }),
    );
    const started = Date.now();
    expect(await store(['pets', 'list'], { env })).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        `error: cannot read the key of profile loc from the system keyring (${TIMEOUT})\n` +
        'hint: unlock the keyring, or run `store -p loc auth login` to store the key again\n',
    });
    expect(Date.now() - started).toBeLessThan(KEYRING_TIMEOUT_MS + 4000);
    expect(server.seen).toEqual([]);
  }, 30_000);

  it('a login falls back to config.json with its warning; logout changes nothing (exit 1)', async () => {
    const { server, env, configFile, config } = await setUp({
      DBUS_SESSION_BUS_ADDRESS: await silentBus(),
    });
    const login = await store(['auth', 'login', '--with-key', '--no-verify'], { env, stdin: KEY });
    expect(login).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        `warning: the system keyring cannot be used (${TIMEOUT}); the key is stored in plain text in ${configFile}\n` +
        'Saved key ****5678 for profile loc without checking it\n',
    });
    expect(config()).toEqual({ profiles: { loc: { baseUrl: server.url, apiKey: KEY } } });
    writeFileSync(
      configFile,
      JSON.stringify({ profiles: { loc: { baseUrl: server.url, keyStorage: 'keyring' } } }),
    );
    expect(await store(['auth', 'logout'], { env })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: cannot remove the key of profile loc from the system keyring (${TIMEOUT}); nothing was changed\n`,
    });
    expect(config()).toEqual({ profiles: { loc: { baseUrl: server.url, keyStorage: 'keyring' } } });
  }, 30_000);

  it.each([
    ['SIGINT', 'pets list'],
    ['SIGTERM', 'auth logout'],
    ['SIGINT', 'profile remove loc'],
  ] as const)(
    '%s ends %s at once while the keyring says nothing; nothing changed',
    async (signal, args) => {
      const { server, env, configFile, config } = await setUp({
        DBUS_SESSION_BUS_ADDRESS: await silentBus(),
      });
      const stored = { profiles: { loc: { baseUrl: server.url, keyStorage: 'keyring' } } };
      writeFileSync(configFile, JSON.stringify(stored));
      const ended = await interrupted(args.split(' '), env, signal);
      expect(ended).toMatchObject({ code: null, signal, stdout: '', stderr: '' });
      // Sent after 1 s: ended by it, well before the time limit would have.
      expect(ended.ms).toBeLessThan(KEYRING_TIMEOUT_MS - 1000);
      expect(config()).toEqual(stored);
      expect(server.seen).toEqual([]);
    },
    30_000,
  );
});
