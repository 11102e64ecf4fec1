// Bulk add into the sandbox kept in an SQLite file (--data) against the in-memory sandbox, in
// the same run, with the peak memory (RSS) of both processes: `store pets add --file` and
// `store sandbox`. Imported by bench.js; `node scripts/bench-sandbox-data.js` runs it alone.
// Linux only: peak RSS comes from GNU time (client) and /proc/<pid>/status VmHWM (sandbox).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONCURRENCY = 8;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Peak resident memory of a running process, in KiB. */
function peakRssKb(pid) {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

/** One bulk add of `file` into a fresh sandbox (in memory, or with a new --data file). */
async function bulkAdd({ node, bin, work, file, count, data }) {
  const args = [bin, 'sandbox', '--port', '0'];
  const dataFile = join(work, `bench-${process.hrtime.bigint()}.db`);
  if (data) args.push('--data', dataFile);
  const sandbox = spawn(node, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const [chunk] = await once(sandbox.stdout, 'data');
    const url = chunk.toString().split('\n')[0];
    const env = {
      ...process.env,
      STORE_CONFIG_DIR: join(work, 'config'),
      STORE_PROFILE: 'sandbox',
      STORE_BASE_URL: url,
      STORE_MESSAGES_URL: url,
    };
    const addArgs = [bin, 'pets', 'add', '--file', file, '--json', '--concurrency'];
    const output = join(work, 'bulk-output.ndjson');
    const fd = openSync(output, 'w');
    const result = spawnSync('/usr/bin/time', ['-f', '%e %M', node, ...addArgs, `${CONCURRENCY}`], {
      env,
      stdio: ['ignore', fd, 'pipe'],
      encoding: 'utf8',
    });
    closeSync(fd);
    if (result.status !== 0) {
      const failure = readFileSync(output, 'utf8')
        .split('\n')
        .find((line) => line.startsWith('{"input"'));
      throw new Error(`bulk add exited ${result.status}: ${result.stderr} ${failure}`);
    }
    const [seconds, clientKb] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
    return { rate: count / seconds, clientKb, sandboxKb: peakRssKb(sandbox.pid) };
  } finally {
    sandbox.kill('SIGTERM');
    await once(sandbox, 'close');
    rmSync(dataFile, { force: true });
    rmSync(`${dataFile}-wal`, { force: true });
    rmSync(`${dataFile}-shm`, { force: true });
  }
}

/**
 * Bulk add at each size, in memory and with --data, interleaved (`rounds` times at the
 * smaller sizes, once at 100,000 and above); returns one row per size.
 */
export async function benchSandboxData({ node, bin, work, sizes = [10_000, 100_000], rounds = 3 }) {
  const rows = [];
  for (const count of sizes) {
    const file = join(work, `sandbox-data-${count}.ndjson`);
    const lines = Array.from(
      { length: count },
      (_, i) => `{"name":"bench-${i}","categoryId":${(i % 5) + 1},"status":"available"}`,
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const runs = { memory: [], data: [] };
    for (let i = 0; i < (count >= 100_000 ? 1 : rounds); i += 1) {
      runs.memory.push(await bulkAdd({ node, bin, work, file, count, data: false }));
      runs.data.push(await bulkAdd({ node, bin, work, file, count, data: true }));
    }
    const summary = (list) => ({
      rate: median(list.map((run) => run.rate)),
      clientKb: Math.max(...list.map((run) => run.clientKb)),
      sandboxKb: Math.max(...list.map((run) => run.sandboxKb)),
    });
    const memory = summary(runs.memory);
    const data = summary(runs.data);
    rows.push({ count, memory, data, ratio: data.rate / memory.rate });
  }
  return rows;
}

export function printSandboxData(rows) {
  const mib = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
  console.log('\n| sandbox bulk add | in memory | --data (SQLite) | ratio | target | met |');
  console.log('|---|---|---|---|---|---|');
  for (const { count, memory, data, ratio } of rows) {
    console.log(
      `| ${count} animals | ${memory.rate.toFixed(0)}/s | ${data.rate.toFixed(0)}/s | ${(ratio * 100).toFixed(0)}% | ≥ 50% | ${ratio >= 0.5 ? 'yes' : 'NO'} |`,
    );
  }
  console.log(
    '\n| peak RSS | client, in memory | sandbox, in memory | client, --data | sandbox, --data |',
  );
  console.log('|---|---|---|---|---|');
  for (const { count, memory, data } of rows) {
    console.log(
      `| ${count} animals | ${mib(memory.clientKb)} | ${mib(memory.sandboxKb)} | ${mib(data.clientKb)} | ${mib(data.sandboxKb)} |`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const work = mkdtempSync(join(tmpdir(), 'store-bench-data-'));
  try {
    const sizes = process.env.BENCH_SIZES?.split(',').map(Number);
    printSandboxData(
      await benchSandboxData({
        node: process.execPath,
        bin: fileURLToPath(new URL('../bin/store.js', import.meta.url)),
        work,
        ...(sizes && { sizes }),
      }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
