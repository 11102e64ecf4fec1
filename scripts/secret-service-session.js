// A private D-Bus session with gnome-keyring's Secret Service in it, unlocked with a password
// typed on its stdin (as a log-in does), and which tools it needs are missing: for the keyring's
// end-to-end tests (test/helpers/secret-service.ts) and its row in `npm run bench`. No user's
// keyring is touched: HOME and XDG_RUNTIME_DIR are the folders given.
import { spawn, spawnSync } from 'node:child_process';

/** The tools of `tools` that are not on PATH. */
export function missingTools(tools) {
  return tools.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
}

/**
 * Starts the session; resolves with its bus address and `stop()` (which resolves once it has
 * ended), or rejects if it ends before saying its address (gnome-keyring failing to start).
 */
export function startSecretService({ home, runtime }) {
  const start = 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null';
  // The session's address on stdout, then it waits for its stdin to close (stop()).
  const child = spawn(
    'dbus-run-session',
    ['--', 'sh', '-c', `${start} && echo "$DBUS_SESSION_BUS_ADDRESS" && cat >/dev/null`],
    {
      env: { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: runtime },
      stdio: ['pipe', 'pipe', 'ignore'],
    },
  );
  const closed = new Promise((resolve) => child.once('close', resolve));
  const stop = async () => {
    child.stdin.end();
    await closed;
  };
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes('\n')) resolve({ address: seen.split('\n')[0], stop });
    });
    child.once('error', reject);
    closed.then((code) => reject(new Error(`dbus-run-session ended early (${code})`)));
  });
}
