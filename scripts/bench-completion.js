// `npm run bench:completion [-- runs]`: the median wall time of `store __complete profiles`,
// which the completion scripts run on each TAB after -p/--profile or `profile use|remove`
// (Node's start, the program, reading config.json). The goal is under 150 ms. A benchmark,
// not a test: timings depend on the machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 31);
const bin = fileURLToPath(new URL('../bin/store.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'store-bench-'));
const profiles = { eu: { baseUrl: 'https://eu.example/v1' }, 'team-b': {} };
writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles }));
const env = { ...process.env, STORE_CONFIG_DIR: dir };
const expected = 'production\nstaging\nsandbox\neu\nteam-b\n';

const once = () => {
  const start = performance.now();
  const result = spawnSync(process.execPath, [bin, '__complete', 'profiles'], {
    env,
    encoding: 'utf8',
  });
  const elapsed = performance.now() - start;
  if (result.status !== 0 || result.stdout !== expected) {
    throw new Error(`unexpected result: exit ${result.status}, ${JSON.stringify(result.stdout)}`);
  }
  return elapsed;
};

try {
  // Warm-up: fills Node's compile cache, as any earlier use of store on the machine has.
  once();
  const times = Array.from({ length: runs }, once).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `store __complete profiles: median ${median.toFixed(1)} ms over ${runs} runs ` +
      `(min ${times[0].toFixed(1)}, max ${times[times.length - 1].toFixed(1)}; Node ${process.version})`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
