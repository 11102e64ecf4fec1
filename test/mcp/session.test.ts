// What `store mcp` settles at its start (src/mcp/session.ts), for every call: the profile as it
// was, the key read once.
import { describe, expect, it } from 'vitest';
import type { KeyringLoader } from '../../src/config/key-store.js';
import { createContext } from '../../src/context.js';
import { openSession } from '../../src/mcp/session.js';
import { configSetup, testIO, writeConfigFile } from '../helpers/cli.js';
import { memoryKeyring } from '../helpers/keyring.js';

const KEY = 'kr-key-0a1b2c3d4e5f';

/** The server's own context (`store mcp`'s), over `env`, with `keyring` for the system's. */
function serverContext(env: Record<string, string | undefined>, keyring: KeyringLoader) {
  const { io } = testIO({}, env);
  const options = { json: false, color: false, debug: false, timeoutMs: 30_000 };
  const signal = new AbortController().signal;
  return createContext(io, env, options, signal, { keyring });
}

/** A call's context, as the server makes one. */
function callContext(session: Awaited<ReturnType<typeof openSession>>) {
  const { io } = testIO({}, {});
  return session.callContext(io, new AbortController().signal);
}

describe('an MCP session', () => {
  it('reads the key from the keyring once, for calls one after another and at once', async () => {
    const { env, file } = configSetup();
    writeConfigFile(file, JSON.stringify({ profiles: { production: { keyStorage: 'keyring' } } }));
    const keyring = memoryKeyring({ production: KEY });
    const session = await openSession(serverContext(env, keyring.load));
    expect(keyring.calls).toEqual([]);
    expect(await callContext(session).apiKey()).toBe(KEY);
    const keys = await Promise.all(Array.from({ length: 5 }, () => callContext(session).apiKey()));
    expect(keys).toEqual([KEY, KEY, KEY, KEY, KEY]);
    expect(keyring.calls).toEqual(['get production']);
    await session.close();
  });

  it('reads it again after a failure, not after a success', async () => {
    const { env, file } = configSetup();
    writeConfigFile(file, JSON.stringify({ profiles: { production: { keyStorage: 'keyring' } } }));
    const keyring = memoryKeyring({ production: KEY });
    let failures = 1;
    const flaky: KeyringLoader = async () => {
      const inner = await keyring.load();
      return {
        ...inner,
        get: async (account, limit) => {
          if (failures-- > 0) {
            keyring.calls.push(`get ${account} (failed)`);
            throw new Error('Access denied');
          }
          return inner.get(account, limit);
        },
      };
    };
    const session = await openSession(serverContext(env, flaky));
    await expect(callContext(session).apiKey()).rejects.toThrow(
      'cannot read the key of profile production from the system keyring (Access denied)',
    );
    expect(await callContext(session).apiKey()).toBe(KEY);
    expect(await callContext(session).apiKey()).toBe(KEY);
    expect(keyring.calls).toEqual(['get production (failed)', 'get production']);
    await session.close();
  });

  it('keeps the profile it opened with when config.json changes', async () => {
    const { env, file } = configSetup();
    const config = (current: string, alphaUrl: string) =>
      JSON.stringify({
        currentProfile: current,
        profiles: {
          alpha: { baseUrl: alphaUrl, apiKey: 'alpha-key-1234' },
          beta: { baseUrl: 'https://beta.example/v1', apiKey: 'beta-key-5678' },
        },
      });
    writeConfigFile(file, config('alpha', 'https://alpha.example/v1'));
    const session = await openSession(serverContext(env, memoryKeyring().load));
    // `store profile use beta` and `profile set alpha --base-url …` in another terminal.
    writeConfigFile(file, config('beta', 'https://elsewhere.example/v1'));
    const call = callContext(session);
    expect(await call.profile()).toMatchObject({
      name: 'alpha',
      baseUrl: 'https://alpha.example/v1',
    });
    expect(await call.apiKey()).toBe('alpha-key-1234');
    await session.close();
  });
});
