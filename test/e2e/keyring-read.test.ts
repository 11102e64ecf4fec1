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
});
