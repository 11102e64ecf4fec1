import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/store.js';
import { tempDir } from '../helpers/cli.js';
import {
  killAll,
  processEnv,
  type SandboxProcess,
  startSandbox,
  store,
} from '../helpers/process.js';

afterEach(killAll);

const DEPRECATED =
  "warning: 'store pets get' is deprecated and will be removed on 2030-12-05; use 'store pets list --status <status>' instead\n";

describe('store against the sandbox', () => {
  let sandbox: SandboxProcess;

  it('lists seeded animals as tab-separated rows through a pipe, and as JSON', async () => {
    sandbox = await startSandbox(['--seed', '4']);
    const tsv = await store(['pets', 'list'], { env: sandbox.env() });
    expect(tsv).toEqual({
      code: 0,
      signal: null,
      stdout:
        'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t1\tavailable\n2\tBella\t2\tpending\n3\tMilo\t3\tsold\n4\tLuna\t4\tavailable\n',
      stderr: '',
    });
    const json = await store(['pets', 'list', '--status', 'available', '--limit', '1', '--json'], {
      env: sandbox.env(),
    });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(json.stdout).toBe('[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]\n');
  });

  it('prints a bulk import through a real pipe whole and in input order', async () => {
    sandbox = await startSandbox();
    const file = join(tempDir(), 'animals.ndjson');
    const names = Array.from({ length: 300 }, (_, i) => `pet-${String(i).padStart(3, '0')}`);
    writeFileSync(file, names.map((name) => `{"name":"${name}","categoryId":1}\n`).join(''));
    const result = await store(['pets', 'add', '--file', file, '--json'], { env: sandbox.env() });
    expect(result).toMatchObject({
      code: 0,
      stderr: '{"summary":{"created":300,"failed":0,"uncertain":0,"notSent":0}}\n',
    });
    expect(Buffer.byteLength(result.stdout)).toBeGreaterThan(3 * 4096);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { name: string }).name)).toEqual(names);
    expect(result.stdout.endsWith('}\n')).toBe(true);
  });

  it('adds animals from flags and from NDJSON on stdin, then finds them', async () => {
    sandbox = await startSandbox();
    const one = await store(['pets', 'add', '--name', 'Rex', '--category-id', '2', '--json'], {
      env: sandbox.env(),
    });
    expect(one).toMatchObject({
      code: 0,
      stdout: '{"id":1,"name":"Rex","categoryId":2}\n',
      stderr: '',
    });
    const many = await store(['pets', 'add', '--file', '-', '--json'], {
      env: sandbox.env(),
      stdin:
        '{"name":"A","categoryId":1,"status":"sold"}\n{"name":"B"}\n{"name":"C","categoryId":3}\n',
    });
    // A and C are sent at once (8 in flight): the sandbox numbers them in the order they
    // arrive, which need not be input order. The rows are in input order all the same.
    const ids = many.stdout
      .split('\n')
      .filter((line) => line.startsWith('{"id"'))
      .map((line) => (JSON.parse(line) as { id: number }).id);
    expect([...ids].sort()).toEqual([2, 3]);
    const [idA, idC] = ids;
    expect(many).toEqual({
      code: 3,
      signal: null,
      stdout:
        `{"id":${idA},"name":"A","categoryId":1,"status":"sold"}\n` +
        '{"input":2,"line":2,"error":{"code":"invalid_input","message":"categoryId is required","status":null}}\n' +
        `{"id":${idC},"name":"C","categoryId":3}\n`,
      stderr: '{"summary":{"created":2,"failed":1,"uncertain":0,"notSent":0}}\n',
    });
    const sold = await store(['pets', 'list', '--status', 'sold'], { env: sandbox.env() });
    expect(sold).toEqual({
      code: 0,
      signal: null,
      stdout: `ID\tNAME\tCATEGORY\tSTATUS\n${idA}\tA\t1\tsold\n`,
      stderr: '',
    });
  });

  it('keeps int64 ids exact end to end, and warns about the deprecated get', async () => {
    const dir = tempDir();
    const data = join(dir, 'data.db');
    (await Store.open(data)).close();
    const db = new DatabaseSync(data);
    db.exec(
      "INSERT INTO pets (id, name, category_id, status) VALUES (9007199254740993, 'Big', 9007199254740993, 'pending')",
    );
    db.close();
    sandbox = await startSandbox(['--data', data]);
    const got = await store(['pets', 'get', '9007199254740993', '--json'], { env: sandbox.env() });
    expect(got).toEqual({
      code: 0,
      signal: null,
      stdout:
        '{"id":9007199254740993,"name":"Big","categoryId":9007199254740993,"status":"pending"}\n',
      stderr: DEPRECATED,
    });
    const added = await store(
      ['pets', 'add', '--name', 'Next', '--category-id', '9223372036854775807', '--json'],
      {
        env: sandbox.env(),
      },
    );
    expect(added).toEqual({
      code: 0,
      signal: null,
      stdout: '{"id":9007199254740994,"name":"Next","categoryId":9223372036854775807}\n',
      stderr: '',
    });
  });

  it('maps the sandbox’s failures to exit codes', async () => {
    sandbox = await startSandbox();
    const missing = await store(['pets', 'get', '5'], { env: sandbox.env() });
    expect(missing).toEqual({
      code: 5,
      signal: null,
      stdout: '',
      stderr: `${DEPRECATED}error: no pet with id 5 (pet_not_found, HTTP 404)\n`,
    });
    const wrongKey = await store(['pets', 'list', '--json'], {
      env: sandbox.env({ STORE_API_KEY: 'nope-1234' }),
    });
    expect(wrongKey).toMatchObject({ code: 4, stdout: '' });
    expect(JSON.parse(wrongKey.stderr)).toMatchObject({
      error: { code: 'unauthorized', status: 401 },
    });
    expect(wrongKey.stderr).not.toContain('nope-1234');
  });

  it('sends a message from stdin and lists orders', async () => {
    sandbox = await startSandbox(['--seed', '3']);
    const sent = await store(['messages', 'send', '--json'], {
      env: sandbox.env(),
      stdin: 'Restock done\n',
    });
    expect(sent.code).toBe(0);
    const message = JSON.parse(sent.stdout);
    expect(message).toMatchObject({ message: 'Restock done', status: 'queued' });
    expect(new Date(message.createdAt).toISOString()).toBe(message.createdAt);
    const orders = await store(['orders', 'list'], { env: sandbox.env() });
    expect(orders.code).toBe(0);
    expect(orders.stdout.split('\n')[0]).toBe('id\tpetId\tquantity\tstatus\tshipDate\tcomplete');
    expect(orders.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('logs in with a key from stdin, checking it against the API first', async () => {
    sandbox = await startSandbox(['--api-key', 'right-key-7890']);
    const env = processEnv({ STORE_BASE_URL: sandbox.url, STORE_PROFILE: 'sandbox' });
    const rejected = await store(['auth', 'login', '--with-key'], {
      env,
      stdin: 'wrong-key-0000\n',
    });
    expect(rejected).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        'error: missing or invalid API key (Authorization: Bearer <key>) (unauthorized, HTTP 401)\n' +
        'hint: the API rejected this key; nothing was saved\n',
    });
    // In config.json on purpose: the keyring is test/e2e/keyring.test.ts's.
    const accepted = await store(['auth', 'login', '--with-key', '--insecure-storage'], {
      env,
      stdin: 'right-key-7890\n',
    });
    expect(accepted).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Logged in to profile sandbox with key ****7890\n',
    });
    const status = await store(['auth', 'status', '--json'], { env });
    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(status.stdout)).toEqual({
      profile: 'sandbox',
      baseUrl: sandbox.url,
      baseUrlSource: 'env',
      keySource: 'config',
      keyStorage: 'file',
      key: '****7890',
      valid: true,
    });
    const config = readFileSync(join(env.STORE_CONFIG_DIR as string, 'config.json'), 'utf8');
    expect(JSON.parse(config)).toEqual({ profiles: { sandbox: { apiKey: 'right-key-7890' } } });
  });
});
