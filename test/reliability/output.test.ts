// Output and signals as a shell meets them: real processes, real pipes, real servers.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/store.js';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import {
  BIN,
  collect,
  killAll,
  processEnv,
  resourceProbe,
  startSandbox,
} from '../helpers/process.js';

afterEach(killAll);

// Reads stdin a little at a time with pauses, then prints how many bytes and their hash.
const SLOW_READER = `
const hash = require('node:crypto').createHash('sha256');
let bytes = 0;
process.stdin.on('data', (chunk) => {
  hash.update(chunk);
  bytes += chunk.length;
  process.stdin.pause();
  setTimeout(() => process.stdin.resume(), 2);
});
process.stdin.on('end', () => console.log(bytes + ' ' + hash.digest('hex')));
`;

describe('output to a pipe', () => {
  it('delivers a 20 MB --json result whole to a slow reader', async () => {
    const data = join(tempDir(), 'big.db');
    (await Store.open(data)).close();
    const db = new DatabaseSync(data);
    const add = db.prepare('INSERT INTO pets (id, name, category_id) VALUES (?, ?, 1)');
    const name = 'x'.repeat(200_000);
    for (let i = 0; i < 100; i += 1) add.run(i + 1, `${i}${name}`);
    db.close();
    const sandbox = await startSandbox(['--data', data]);
    const direct = await request(`${sandbox.url}/pets?limit=100`, {
      headers: { authorization: 'Bearer sandbox' },
    });
    const expected = Buffer.from(`${await direct.body.text()}\n`);
    expect(expected.length).toBeGreaterThan(20_000_000);

    const script = `"${process.execPath}" "${BIN}" pets list --limit 100 --json | "${process.execPath}" -e "$READER"`;
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], {
      env: { ...sandbox.env(), READER: SLOW_READER },
    });
    const result = await collect(child);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `${expected.length} ${createHash('sha256').update(expected).digest('hex')}\n`,
    );
  }, 60_000);
});

/** Orders whose objects each have a key of their own: `orders list` makes a row per order
 * and a column per key, so a small answer is a large output (`n` × `n` cells). */
function ordersWithOwnKeys(n: number) {
  const body = JSON.stringify(Array.from({ length: n }, (_, i) => ({ [`k${i}`]: i })));
  const hash = createHash('sha256');
  let bytes = 0;
  const add = (line: string) => {
    hash.update(line);
    bytes += Buffer.byteLength(line);
  };
  add(`${Array.from({ length: n }, (_, i) => `k${i}`).join('\t')}\n`);
  for (let i = 0; i < n; i += 1) add(`${'\t'.repeat(i)}${i}${'\t'.repeat(n - 1 - i)}\n`);
  return { body, expected: `${bytes} ${hash.digest('hex')}\n`, bytes };
}

describe('a large output into a pipe', () => {
  it('reaches a slow reader whole, exit 0, in memory bounded by a buffer, not by its size', async () => {
    // 6,000 orders (88 KB) make 36 MB of tab-separated text. Written all at once, it was held
    // whole in memory (266 MB at the peak); into a pipe that refused so many writes, only its
    // header arrived, with exit 0.
    const { body, expected, bytes } = ordersWithOwnKeys(6000);
    expect(bytes).toBeGreaterThan(36_000_000);
    const server = await faultServer((_req, res) => reply(res, 200, body));
    const peak = resourceProbe();
    const script = `"${process.execPath}" --import "$PEAK" "${BIN}" orders list | "${process.execPath}" -e "$READER"`;
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], {
      env: processEnv({
        STORE_BASE_URL: server.url,
        STORE_API_KEY: 'k-1234',
        READER: SLOW_READER,
        PEAK: peak.url,
      }),
    });
    expect(await collect(child)).toEqual({ code: 0, signal: null, stdout: expected, stderr: '' });
    expect(peak.peakMiB()).toBeLessThan(150);
  }, 60_000);

  it('gives --jq results to a slow reader whole, waiting for room: no listener warning', async () => {
    // Each 64 KB piece added a `drain` listener without waiting: past 700 KB Node warned
    // "MaxListenersExceededWarning: Possible EventEmitter memory leak detected".
    const orders = Array.from({ length: 20_000 }, (_, i) => ({
      id: i,
      petId: i,
      quantity: 1,
      status: 'placed',
      shipDate: '2026-01-05T00:00:00.000Z',
      complete: false,
    }));
    const text = orders.map((order) => `${JSON.stringify(order)}\n`).join('');
    expect(text.length).toBeGreaterThan(2_000_000);
    const server = await faultServer((_req, res) => reply(res, 200, JSON.stringify(orders)));
    const script = `"${process.execPath}" "${BIN}" orders list --jq '.[]' | "${process.execPath}" -e "$READER"`;
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], {
      env: processEnv({
        STORE_BASE_URL: server.url,
        STORE_API_KEY: 'k-1234',
        READER: SLOW_READER,
      }),
    });
    expect(await collect(child)).toEqual({
      code: 0,
      signal: null,
      stdout: `${text.length} ${createHash('sha256').update(text).digest('hex')}\n`,
      stderr: '',
    });
  }, 60_000);

  it('ends quietly, exit 0, when the reader stops early (| head -c): the contract’s EPIPE rule', async () => {
    const { body } = ordersWithOwnKeys(6000);
    const server = await faultServer((_req, res) => reply(res, 200, body));
    const script = `"${process.execPath}" "${BIN}" orders list | head -c 100000 | wc -c; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const child = spawn('bash', ['-c', script], {
      env: processEnv({ STORE_BASE_URL: server.url, STORE_API_KEY: 'k-1234' }),
    });
    expect(await collect(child)).toEqual({
      code: 0,
      signal: null,
      stdout: '100000\n',
      stderr: 'exit=0\n',
    });
  }, 60_000);
});

describe('signals and secrets', () => {
  it('ends by SIGINT on Ctrl-C with a request in flight (exit status 130), with no stack trace', async () => {
    const server = await faultServer(() => {}); // never answers
    const child = spawn(process.execPath, [BIN, 'pets', 'list'], {
      env: processEnv({ STORE_API_KEY: 'k-1234', STORE_BASE_URL: server.url }),
    });
    const ended = collect(child);
    while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    expect(await ended).toEqual({ code: null, signal: 'SIGINT', stdout: '', stderr: '' });
  });

  it('never shows the key under --debug, not even when the server echoes it; no stack trace for an API error', async () => {
    const key = 'super-secret-key-0000';
    const server = await faultServer((_req, res) =>
      reply(res, 401, `{"code":"unauthorized","message":"bad key","status":401,"key":"${key}"}`),
    );
    const child = spawn(process.execPath, [BIN, 'pets', 'list', '--debug'], {
      env: processEnv({ STORE_API_KEY: key, STORE_BASE_URL: server.url }),
    });
    const result = await collect(child);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('> authorization: Bearer ****0000\n');
    expect(result.stderr).toContain(
      'error: bad key (unauthorized, HTTP 401)\nhint: the key came from STORE_API_KEY\n',
    );
    expect(result.stderr).toContain('"key":"****0000"}\n'); // the body, the key masked
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toContain(key);
    expect(server.seen[0]?.authorization).toBe(`Bearer ${key}`);
  });
});
