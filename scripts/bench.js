// `npm run bench`: start-up and bulk-add figures for `store`, against the sandbox on
// loopback, in one run on one machine. Commands are interleaved (A B A B …) so that noise
// from a shared machine hits both sides of a ratio alike; medians are reported, and a ratio
// is the median of the pairs' ratios.
// Not a test: it prints figures and the targets beside them, and asserts nothing.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { benchSandboxData, printSandboxData } from './bench-sandbox-data.js';
import { injectBlob, scriptBlob } from './sea.js';
import { missingTools, startSecretService } from './secret-service-session.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const BULK = Number(process.env.BENCH_BULK ?? 10_000);
const LOOP = Number(process.env.BENCH_LOOP ?? 200);
const CONCURRENCY = 8;

const node = process.execPath;
const bin = fileURLToPath(new URL('../bin/store.js', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'store-bench-'));

function median(values) {
  return quantile(values, 0.5);
}

/** The q-quantile of `values`, interpolated between the two nearest (q = 0.5: the median). */
function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  return sorted[below] + (sorted[Math.ceil(at)] - sorted[below]) * (at - below);
}

/** Wall time of one process, in ms; fails loudly if the command fails. `env`: the
 * environment, or a function that makes one for each run (a fresh cache folder). */
function time(argv, env) {
  if (typeof env === 'function') env = env();
  const started = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), {
    env,
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return ms;
}

/**
 * Runs the pairs interleaved RUNS times; returns the median of each side, and the ratio b/a of
 * each pair as its median and quartiles. Each pair ran back to back, under the same load: on a
 * shared machine whose speed changes within a run, the median of the pairs' ratios follows the
 * comparison, where the ratio of the two sides' medians can mix a fast moment with a slow one.
 */
function compare(a, b, env, envB = env) {
  time(a, env); // warm the disk cache and the code caches once
  time(b, envB);
  const as = [];
  const bs = [];
  for (let i = 0; i < RUNS; i += 1) {
    as.push(time(a, env));
    bs.push(time(b, envB));
  }
  const ratios = bs.map((ms, i) => ms / as[i]);
  return {
    a: median(as),
    b: median(bs),
    ratio: median(ratios),
    spread: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
  };
}

/** Elapsed seconds and peak resident memory (KiB) of one `node …` process (`program …` when
 * given), from GNU time. */
function timeAndPeak(args, env, program = node) {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %M', program, ...args], {
    env,
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const [seconds, peakKb] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { seconds, peakKb };
}

/** Under a pseudo-terminal, so that `store` draws its table as a person would see it. */
const inTerminal = (argv) => ['script', '-qec', argv.map((w) => `'${w}'`).join(' '), '/dev/null'];

async function startSandbox() {
  const child = spawn(node, [bin, 'sandbox', '--port', '0', '--seed', '20'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [chunk] = await once(child.stdout, 'data');
  return { child, url: chunk.toString().trim() };
}

/**
 * A private Secret Service (scripts/secret-service-session.js) for the row of a key read from
 * the keyring, or why there is none: not Linux, a tool missing, the session failing to start.
 */
async function keyringSession() {
  if (process.platform !== 'linux') return { missing: 'not Linux' };
  const missing = missingTools(['dbus-run-session', 'gnome-keyring-daemon']);
  if (missing.length > 0) return { missing: `${missing.join(' and ')} not installed` };
  const home = mkdtempSync(join(work, 'keyring-home-'));
  try {
    return await startSecretService({ home, runtime: home });
  } catch (error) {
    return { missing: error.message };
  }
}

const rows = [];
/** A row of the table; `spread`, when given: the quartiles of the ratio within the run. */
function row(what, figure, against, ratio, target, ok, spread) {
  rows.push({ what, figure, against, ratio, target, ok: ok ? 'yes' : 'NO', spread });
}

/** Times `argv` against `floor` (named `floorName`), interleaved, and adds their row: the
 * ratio is met at `max` or below (no `max`: a figure for reference). */
function compareRow(what, floorName, floor, argv, max, env, envB = env) {
  const { a, b, ratio, spread } = compare(floor, argv, env, envB);
  const target = max === undefined ? '—' : `≤ ${max}×`;
  row(
    what,
    b,
    `${floorName}: ${a.toFixed(1)} ms`,
    ratio,
    target,
    max === undefined || ratio <= max,
    spread,
  );
}

/** The single executable (npm run build:binary, rebuilt below from the dist/ just built): it
 * carries its own Node, so `node -e 0` is what its start cannot beat. */
const binary = join(root, 'dist-bin', process.platform === 'win32' ? 'store.exe' : 'store');

const sandbox = await startSandbox();
const env = {
  ...process.env,
  STORE_CONFIG_DIR: join(work, 'config'),
  STORE_PROFILE: 'sandbox',
  STORE_BASE_URL: sandbox.url,
  STORE_MESSAGES_URL: sandbox.url,
  NO_COLOR: '1',
};
// The floor of any Node program that makes this request: the same GET with node:http (loaded
// with require, as a one-liner would), printing the body.
const oneLiner = [
  node,
  '-e',
  // Double quotes only: the pseudo-terminal row passes it through `script -c '…'`.
  'require("node:http").get(process.env.STORE_BASE_URL + "/pets", { headers: { authorization: "Bearer sandbox" } }, (r) => { let b = ""; r.setEncoding("utf8"); r.on("data", (c) => { b += c; }); r.on("end", () => process.stdout.write(b + "\\n")); });',
];

try {
  const e0 = [node, '-e', '0'];
  compareRow('store --version', 'node -e 0', e0, [node, bin, '--version'], 1.25, env);
  // The binary with a V8 start-up snapshot of the program instead of code caches, for
  // comparison (scripts/build-binary.js --snapshot), kept aside; then the binary as built.
  const buildBinary = join(root, 'scripts', 'build-binary.js');
  execFileSync(node, [buildBinary, '--snapshot'], { stdio: 'ignore' });
  const snapshotBinary = join(work, 'store-snapshot');
  copyFileSync(binary, snapshotBinary);
  execFileSync(node, [buildBinary], { stdio: 'ignore' });
  const binaryVersion = 'dist-bin/store --version (single executable)';
  compareRow(binaryVersion, 'node -e 0', e0, [binary, '--version'], 1, env);
  const snapshotVersion = 'the same, from a start-up snapshot (--snapshot, for comparison)';
  compareRow(snapshotVersion, 'node -e 0', e0, [snapshotBinary, '--version'], undefined, env);

  const http = 'node:http one-liner';
  const list = ['pets', 'list', '--json'];
  compareRow('store pets list --json', http, oneLiner, [node, bin, ...list], 1.4, env);
  const binaryList = 'dist-bin/store pets list --json (single executable)';
  compareRow(binaryList, http, oneLiner, [binary, ...list], 1, env);
  const snapshotList = 'the same, from a start-up snapshot (--snapshot, for comparison)';
  compareRow(snapshotList, http, oneLiner, [snapshotBinary, ...list], undefined, env);
  // The one-liner itself as a single executable of the same Node: the floor of any binary
  // that makes this request, whatever it holds (#35 asks for store's at ≤ 1.0×).
  const floorWork = mkdtempSync(join(work, 'one-liner-sea-'));
  const floorBinary = join(floorWork, 'one-liner');
  copyFileSync(node, floorBinary);
  await injectBlob(floorBinary, scriptBlob(oneLiner[2], floorWork), process.platform);
  const floorList = 'the one-liner as a single executable (the floor of any binary)';
  compareRow(floorList, http, oneLiner, [floorBinary], undefined, env);
  // The first run after an install (a cache folder of its own, empty, each time) against the
  // next ones: the binary carries its common commands' code caches; the npm install makes
  // them at that first run.
  const fresh = () => ({ ...env, XDG_CACHE_HOME: mkdtempSync(join(work, 'cache-')) });
  const cold = 'cold (a fresh cache folder)';
  const binaryCold = `dist-bin/store pets list --json, ${cold}`;
  compareRow(binaryCold, 'warm', [binary, ...list], [binary, ...list], 1.1, env, fresh);
  const npmCold = `store pets list --json, ${cold}`;
  compareRow(npmCold, 'warm', [node, bin, ...list], [node, bin, ...list], undefined, env, fresh);
  // The key in the system keyring (#32), read at each run from a Secret Service of the
  // bench's own, with a cache folder of its own (made by keyring runs, as a user's would be).
  const keyring = await keyringSession();
  const keyringList = 'store pets list --json, key in the keyring';
  if (keyring.address) {
    const keyringEnv = {
      ...env,
      // production's key, its URLs the sandbox's (STORE_BASE_URL, as for every row).
      STORE_PROFILE: 'production',
      STORE_CONFIG_DIR: join(work, 'keyring-config'),
      XDG_CACHE_HOME: mkdtempSync(join(work, 'keyring-cache-')),
      DBUS_SESSION_BUS_ADDRESS: keyring.address,
    };
    try {
      const login = spawnSync(node, [bin, 'auth', 'login', '--with-key', '--no-verify'], {
        env: keyringEnv,
        input: 'sandbox\n',
        encoding: 'utf8',
      });
      const status = spawnSync(node, [bin, 'auth', 'status', '--json'], {
        env: keyringEnv,
        encoding: 'utf8',
      });
      if (JSON.parse(status.stdout || '{}').keyStorage === 'keyring') {
        compareRow(keyringList, http, oneLiner, [node, bin, ...list], 1.4, env, keyringEnv);
      } else {
        console.error(
          `no row "${keyringList}": the login did not use the keyring: ${login.stderr}`,
        );
      }
    } finally {
      await keyring.stop();
    }
  } else {
    console.error(`no row "${keyringList}": no Secret Service here (${keyring.missing})`);
  }
  const table = [inTerminal(oneLiner), inTerminal([node, bin, 'pets', 'list'])];
  compareRow('store pets list (table, in a pty)', 'one-liner in a pty', ...table, 1.4, env);

  // Bulk add: one process for BULK animals, against one process per animal.
  const ndjson = join(work, 'animals.ndjson');
  const body = (i) =>
    JSON.stringify({ name: `bench-${i}`, categoryId: (i % 5) + 1, status: 'available' });
  writeFileSync(ndjson, `${Array.from({ length: BULK }, (_, i) => body(i)).join('\n')}\n`);
  // Bulk add and autocannon interleaved three times against the same sandbox; medians.
  const bulkRuns = [];
  const cannonRates = [];
  for (let i = 0; i < 3; i += 1) {
    bulkRuns.push(
      timeAndPeak(
        [bin, 'pets', 'add', '--file', ndjson, '--json', '--concurrency', String(CONCURRENCY)],
        env,
      ),
    );
    // Timed by the wall clock like everything else: autocannon's own duration is coarse.
    const cannonStarted = process.hrtime.bigint();
    const cannon = await autocannon({
      url: `${sandbox.url}/pets`,
      method: 'POST',
      headers: { authorization: 'Bearer sandbox', 'content-type': 'application/json' },
      body: body(0),
      connections: CONCURRENCY,
      amount: BULK,
    });
    cannonRates.push(
      cannon.requests.total / (Number(process.hrtime.bigint() - cannonStarted) / 1e9),
    );
  }
  const seconds = median(bulkRuns.map((run) => run.seconds));
  const peakKb = Math.max(...bulkRuns.map((run) => run.peakKb));
  const bulkRate = BULK / seconds;
  const cannonRate = median(cannonRates);

  let loopMs = 0;
  for (let i = 0; i < LOOP; i += 1) {
    loopMs += time([node, bin, 'pets', 'add', '--name', `loop-${i}`, '--category-id', '1'], env);
  }
  const loopRate = 1000 / (loopMs / LOOP);
  row(
    `pets add --file, ${BULK} animals`,
    (seconds * 1000) / BULK,
    `a process per animal: ${loopRate.toFixed(1)}/s`,
    bulkRate / loopRate,
    '≥ 100×',
    bulkRate / loopRate >= 100,
  );

  row(
    `pets add --file vs autocannon (${CONCURRENCY} connections)`,
    bulkRate,
    `autocannon: ${cannonRate.toFixed(0)}/s`,
    bulkRate / cannonRate,
    '≥ 60%',
    bulkRate / cannonRate >= 0.6,
  );

  // Peak memory against the size of the input: the same import at a tenth and at five times.
  const peakFor = (count) => {
    const file = join(work, `animals-${count}.ndjson`);
    writeFileSync(file, `${Array.from({ length: count }, (_, i) => body(i)).join('\n')}\n`);
    return timeAndPeak([bin, 'pets', 'add', '--file', file, '--json'], env).peakKb;
  };
  const smallPeakKb = peakFor(BULK / 10);
  const largePeakKb = peakFor(BULK * 5);
  // The same import by the single executables (which cannot restart under Node's flags).
  const bulkArgs = [
    'pets',
    'add',
    '--file',
    ndjson,
    '--json',
    '--concurrency',
    String(CONCURRENCY),
  ];
  const binaryPeakKb = timeAndPeak(bulkArgs, env, binary).peakKb;
  const snapshotPeakKb = timeAndPeak(bulkArgs, env, snapshotBinary).peakKb;

  console.log(
    `store benchmark — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB; medians of ${RUNS} interleaved runs; a ratio is the median of the pairs' ratios, their quartiles in brackets\n`,
  );
  console.log('| what | store | against | ratio | target | met |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    let figure = `${r.figure.toFixed(r.figure < 10 ? 2 : 1)} ms`;
    if (r.what.startsWith('pets add --file vs')) figure = `${r.figure.toFixed(0)}/s`;
    else if (r.what.startsWith('pets add --file,')) figure += ' per animal';
    let ratio = r.target.includes('%')
      ? `${(r.ratio * 100).toFixed(0)}%`
      : `${r.ratio.toFixed(2)}×`;
    if (r.spread) ratio += ` (${r.spread.map((x) => x.toFixed(2)).join('–')})`;
    const met = r.target === '—' ? '—' : r.ok;
    console.log(`| ${r.what} | ${figure} | ${r.against} | ${ratio} | ${r.target} | ${met} |`);
  }
  const mib = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
  console.log(
    `\nbulk add: ${bulkRate.toFixed(0)} animals/s; peak RSS ${mib(smallPeakKb)} for ${BULK / 10} animals, ${mib(peakKb)} for ${BULK}, ${mib(largePeakKb)} for ${BULK * 5}`,
  );
  console.log(
    `single executable, ${BULK} animals: peak RSS ${mib(binaryPeakKb)}; from a start-up snapshot: ${mib(snapshotPeakKb)}`,
  );

  // The sandbox with --data (SQLite) against in memory, with both processes' peak RSS.
  printSandboxData(await benchSandboxData({ node, bin, work }));
} finally {
  sandbox.child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
