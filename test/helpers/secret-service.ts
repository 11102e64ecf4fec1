// A real Secret Service for end-to-end tests: gnome-keyring in a D-Bus session of its own
// (scripts/secret-service-session.js, with HOME and XDG_RUNTIME_DIR in temporary folders: the
// user's own keyring is never touched), and `secret-tool`/`dbus-send` to look at it and change
// it by hand. Linux only; .ci/run installs the packages, and under CI a missing one fails the
// tests that need them instead of skipping them.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { missingTools, startSecretService } from '../../scripts/secret-service-session.js';
import { afterThisTest } from './cleanup.js';
import { tempDir } from './cli.js';

const TOOLS = ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'];
const MISSING = process.platform === 'linux' ? missingTools(TOOLS) : [];
if (MISSING.length > 0 && process.env.CI) {
  throw new Error(`these tests need ${MISSING.join(', ')} installed (see .ci/run)`);
}
/** Whether the Secret Service tests cannot run here (said once, on stderr). */
export const SKIP = process.platform !== 'linux' || MISSING.length > 0;
if (SKIP) {
  console.warn(
    `skipping the Secret Service tests: ${process.platform === 'linux' ? `${MISSING.join(', ')} not installed` : 'not Linux'}`,
  );
}

export interface Session {
  /** What a process needs to reach this session's keyring. */
  env: Record<string, string>;
  /** `secret-tool lookup` for an entry (by its account): the key, or null when there is none. */
  secret(account: string): string | null;
  /** `secret-tool clear`: the entry removed by hand. */
  clear(account: string): void;
  /** `secret-tool store`: an entry made as an older store made it. */
  store(account: string, key: string): void;
  /** Locks the login keyring, as a screen lock or a timeout does. */
  lock(): void;
}

/** A D-Bus session with an unlocked gnome-keyring (scripts/secret-service-session.js); it lasts
 * until the test ends. */
export async function keyringSession(): Promise<Session> {
  const home = tempDir();
  const runtime = join(tempDir(), 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const { address, stop } = await startSecretService({ home, runtime });
  afterThisTest(stop);
  const env = { HOME: home, XDG_RUNTIME_DIR: runtime, DBUS_SESSION_BUS_ADDRESS: address };
  const tool = (args: string[], name = 'secret-tool') =>
    spawnSync(name, args, { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return {
    env,
    secret: (account) => {
      const found = tool(['lookup', 'service', 'store', 'username', account]);
      return found.status === 0 ? found.stdout : null;
    },
    clear: (account) => {
      expect(tool(['clear', 'service', 'store', 'username', account]).status).toBe(0);
    },
    store: (account, key) => {
      const args = ['store', '--label', 'store', 'service', 'store', 'username', account];
      const stored = spawnSync('secret-tool', args, {
        env: { PATH: process.env.PATH, ...env },
        input: key,
      });
      expect(stored.status).toBe(0);
    },
    lock: () => {
      const login = '/org/freedesktop/secrets/collection/login';
      const call = (...args: string[]) =>
        tool(
          ['--session', '--print-reply', '--dest=org.freedesktop.secrets', ...args],
          'dbus-send',
        );
      const locked = () =>
        call(
          login,
          'org.freedesktop.DBus.Properties.Get',
          'string:org.freedesktop.Secret.Collection',
          'string:Locked',
        ).stdout.includes('boolean true');
      // Said locked before the test goes on: a read right after must meet a locked item (it
      // once met an open one on a busy machine).
      let reply = '';
      for (let attempt = 0; attempt < 5 && !locked(); attempt += 1) {
        const lock = call(
          '/org/freedesktop/secrets',
          'org.freedesktop.Secret.Service.Lock',
          `array:objpath:${login}`,
        );
        expect(lock.status).toBe(0);
        reply = lock.stdout;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      }
      expect(locked(), `the login keyring stays open after Lock: ${reply}`).toBe(true);
    },
  };
}
