// A key that another store (an npm install) put in the keyring, read and removed by this one:
// bin/store.js, and the single executable under `npm run test:binary`, which stores its own keys
// in the file (scripts/smoke-binary.js) but reads and removes them in the Secret Service, in
// process, on Linux.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { faultServer, reply } from '../helpers/fault-server.js';
import { processEnv, store } from '../helpers/process.js';
import { keyringSession, SKIP } from '../helpers/secret-service.js';

const KEY = 'stored-elsewhere-4321';
const ACCOUNT = 'loc-0123456789abcdef';

describe.skipIf(SKIP)('a key another store put in the keyring', () => {
  it('is read (auth status says where, auth token prints it, pets list sends it) and removed by logout', async () => {
    const session = await keyringSession();
    session.store(ACCOUNT, KEY);
    const server = await faultServer((_req, res) => reply(res, 200, '[]'));
    const env = processEnv({ ...session.env, STORE_PROFILE: 'loc' });
    const profile = { baseUrl: server.url, keyStorage: 'keyring', keyringAccount: ACCOUNT };
    const configFile = join(env.STORE_CONFIG_DIR as string, 'config.json');
    writeFileSync(configFile, JSON.stringify({ profiles: { loc: profile } }), { mode: 0o600 });

    const status = await store(['auth', 'status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ keyStorage: 'keyring', key: '****4321' });
    expect(await store(['auth', 'token'], { env })).toMatchObject({
      code: 0,
      stdout: `${KEY}\n`,
      stderr: '',
    });
    expect(await store(['pets', 'list', '--json'], { env })).toMatchObject({
      code: 0,
      stdout: '[]\n',
      stderr: '',
    });
    expect(await store(['auth', 'logout'], { env })).toMatchObject({
      code: 0,
      stderr: 'Logged out of profile loc\n',
    });
    expect(session.secret(ACCOUNT)).toBeNull();
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({
      profiles: { loc: { baseUrl: server.url } },
    });
    // auth status's check, then the list: each with the key from the keyring.
    expect(server.seen.map((r) => `${r.method} ${r.url} ${r.authorization}`)).toEqual([
      `GET /v1/pets?limit=1 Bearer ${KEY}`,
      `GET /v1/pets Bearer ${KEY}`,
    ]);
  });

  it('a login over it: the binary keeps the new key in the file and removes the entry; an npm install replaces it', async () => {
    const session = await keyringSession();
    session.store(ACCOUNT, KEY);
    const env = processEnv({ ...session.env, STORE_PROFILE: 'loc' });
    const profile = {
      baseUrl: 'http://127.0.0.1:9/v1',
      keyStorage: 'keyring',
      keyringAccount: ACCOUNT,
    };
    const configFile = join(env.STORE_CONFIG_DIR as string, 'config.json');
    writeFileSync(configFile, JSON.stringify({ profiles: { loc: profile } }), { mode: 0o600 });
    const login = ['auth', 'login', '--with-key', '--no-verify'];
    const saved = await store(login, { env, stdin: 'new-key-98765' });
    const config = JSON.parse(readFileSync(configFile, 'utf8'));
    if (process.env.STORE_TEST_BINARY) {
      expect(saved).toMatchObject({
        code: 0,
        stderr:
          `warning: the system keyring cannot be used (this single executable cannot load the keyring library); the key is stored in plain text in ${configFile}\n` +
          'Saved key ****8765 for profile loc without checking it\n',
      });
      expect(session.secret(ACCOUNT)).toBeNull();
      expect(config).toEqual({
        profiles: { loc: { baseUrl: profile.baseUrl, apiKey: 'new-key-98765' } },
      });
    } else {
      expect(saved).toMatchObject({
        code: 0,
        stderr: 'Saved key ****8765 for profile loc without checking it\n',
      });
      expect(session.secret(ACCOUNT)).toBe('new-key-98765');
      expect(config).toEqual({ profiles: { loc: profile } });
    }
  });

  it('removed by hand: exit 4 with a hint to log in again, nothing sent', async () => {
    const session = await keyringSession();
    session.store(ACCOUNT, KEY);
    session.clear(ACCOUNT);
    const server = await faultServer((_req, res) => reply(res, 200, '[]'));
    const env = processEnv({ ...session.env, STORE_PROFILE: 'loc' });
    const profile = { baseUrl: server.url, keyStorage: 'keyring', keyringAccount: ACCOUNT };
    const configFile = join(env.STORE_CONFIG_DIR as string, 'config.json');
    writeFileSync(configFile, JSON.stringify({ profiles: { loc: profile } }), { mode: 0o600 });
    expect(await store(['pets', 'list'], { env })).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        'error: the key of profile loc is no longer in the system keyring\n' +
        'hint: run `store -p loc auth login` to store it again (or unlock the keyring, if it is locked)\n',
    });
    expect(server.seen).toEqual([]);
  });
});
