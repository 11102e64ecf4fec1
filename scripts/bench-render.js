// `node scripts/bench-render.js`: how long tables and tab-separated output take to build, by
// number of rows and of distinct keys, for the renderer in src/render and for cli-table3 as
// it was used before (borderless). Not a test: it prints figures and asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { build } from 'esbuild';

const work = mkdtempSync(join(tmpdir(), 'store-bench-render-'));
await build({
  entryPoints: {
    output: new URL('../src/render/output.ts', import.meta.url).pathname,
    io: new URL('../src/io.ts', import.meta.url).pathname,
  },
  outdir: work,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  logLevel: 'warning',
});
const { renderRows, renderAny } = await import(join(work, 'output.js'));
const { createIO } = await import(join(work, 'io.js'));
const Table = (await import('cli-table3')).default;

class Sink extends Writable {
  bytes = 0;
  _write(chunk, _enc, done) {
    this.bytes += chunk.length;
    done();
  }
}

function io(tty) {
  return createIO({
    stdin: process.stdin,
    stdout: new Sink(),
    stderr: new Sink(),
    stdinIsTTY: false,
    stdoutIsTTY: tty,
    stderrIsTTY: false,
    colorOut: tty,
    colorErr: false,
    columns: () => 120,
    stderrColumns: () => 120,
    readStdin: async () => '',
    promptSecret: async () => '',
  });
}

const COLUMNS = [
  { header: 'ID', value: (p) => p.id, fixed: true },
  { header: 'NAME', value: (p) => p.name },
  { header: 'CATEGORY', value: (p) => p.categoryId },
  { header: 'STATUS', value: (p) => p.status, color: (t, chalk) => chalk.green(t) },
];
const pets = (n) =>
  Array.from({ length: n }, (_, i) => ({
    id: 9007199254740993n + BigInt(i),
    name: i % 7 === 0 ? `小狗 ${i} 🐶` : `Pet number ${i} with a longish name`,
    categoryId: i % 13,
    status: 'available',
  }));

async function time(what, fn) {
  const started = performance.now();
  let outcome = '';
  try {
    await fn();
  } catch (error) {
    outcome = ` (${error.constructor.name}: ${error.message})`;
  }
  const ms = performance.now() - started;
  console.log(`${what.padEnd(58)} ${ms.toFixed(0).padStart(7)} ms${outcome}`);
}

const BORDERLESS = Object.fromEntries(
  [
    'top',
    'top-mid',
    'top-left',
    'top-right',
    'bottom',
    'bottom-mid',
    'bottom-left',
    'bottom-right',
    'left',
    'left-mid',
    'mid',
    'mid-mid',
    'right',
    'right-mid',
    'middle',
  ].map((k) => [k, '']),
);

function cliTable3(rows) {
  const table = new Table({
    head: COLUMNS.map((c) => c.header),
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
  });
  for (const row of rows) table.push(COLUMNS.map((c) => String(c.value(row))));
  return table.toString().length;
}

console.log(`node ${process.version}, figures are one run each\n`);
for (const n of [1_000, 5_000, 10_000]) {
  const rows = pets(n);
  await time(`cli-table3 (before), terminal table, ${n} rows`, () => cliTable3(rows));
}
await time('cli-table3 (before), terminal table, 140,000 rows', () => cliTable3(pets(140_000)));
for (const n of [10_000, 50_000, 140_000, 500_000]) {
  const rows = pets(n);
  await time(`renderRows, terminal table, ${n} rows`, () =>
    renderRows(io(true), rows, COLUMNS, { json: false }),
  );
  await time(`renderRows, tab-separated, ${n} rows`, () =>
    renderRows(io(false), rows, COLUMNS, { json: false }),
  );
}

// orders list where every row has keys of its own: the output is rows × keys cells.
for (const n of [1_000, 5_000]) {
  const rows = Array.from({ length: n }, (_, i) => ({ id: i, [`note${i}`]: 'x' }));
  await time(`keys.includes union (before), ${n} distinct keys`, () => {
    const keys = [];
    for (const row of rows)
      for (const key of Object.keys(row)) if (!keys.includes(key)) keys.push(key);
  });
  await time(`renderAny, terminal table, ${n} rows × ${n} distinct keys`, () =>
    renderAny(io(true), rows, { json: false }),
  );
  await time(`renderAny, tab-separated, ${n} rows × ${n} distinct keys`, () =>
    renderAny(io(false), rows, { json: false }),
  );
}
rmSync(work, { recursive: true, force: true });
