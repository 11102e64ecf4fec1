// `npm run demo`: the first five minutes in one command. Starts the sandbox on a free
// port with sample animals, runs a few real `store` commands against it, and stops it.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/store.js', import.meta.url));
const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--seed', '12'], {
  stdio: ['ignore', 'pipe', 'ignore'],
});

try {
  const [chunk] = await once(sandbox.stdout, 'data');
  const url = chunk.toString().trim();
  // The sandbox profile with this run's port: exactly what `--profile sandbox` does on 4010.
  const env = {
    ...process.env,
    STORE_PROFILE: 'sandbox',
    STORE_BASE_URL: url,
    STORE_MESSAGES_URL: url,
  };
  const commands = [
    ['pets', 'list'],
    ['pets', 'list', '--status', 'available', '--limit', '3', '--json'],
    ['pets', 'add', '--name', 'Biscuit', '--category-id', '2', '--status', 'available'],
    ['messages', 'send', 'Hello from the demo'],
  ];
  process.stdout.write(`Sandbox running at ${url}\n`);
  for (const args of commands) {
    process.stdout.write(
      `\n$ store ${args.map((a) => (a.includes(' ') ? `"${a}"` : a)).join(' ')}\n`,
    );
    const result = spawnSync(process.execPath, [bin, ...args], { env, stdio: 'inherit' });
    if (result.status !== 0) process.exitCode = result.status ?? 1;
  }
} finally {
  sandbox.kill('SIGTERM');
}
