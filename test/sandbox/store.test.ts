import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { StorageError, Store } from '../../src/sandbox/store.js';
import { afterThisTest } from '../helpers/cleanup.js';
import { call, cleanup, errorBody, KEY, start, tempDir } from './helpers.js';

afterEach(cleanup);

const dataFile = () => path.join(tempDir(), 'data.db');
const createPet = (sandbox: Awaited<ReturnType<typeof start>>, name: string) =>
  call(sandbox, 'POST', '/v1/pets', { body: JSON.stringify({ name, categoryId: 1 }) });
const ids = (json: unknown) => (json as { id: unknown }[]).map((pet) => pet.id);

/** Reads the database file with a connection of its own, as `sqlite3 FILE` would. */
function query(file: string, sql: string): Record<string, unknown>[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const statement = db.prepare(sql);
    statement.setReadBigInts(true);
    return statement.all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

const startFails = (file: string) =>
  startSandbox({ port: 0, host: '127.0.0.1', apiKey: KEY, dataFile: file, seed: 3 });

describe('data file', () => {
  it('is created on start when missing: an SQLite database with the sandbox’s tables', async () => {
    const file = dataFile();
    await start({ dataFile: file });
    expect(readFileSync(file).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    expect(
      query(file, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"),
    ).toEqual([
      { name: 'messages' },
      { name: 'orders' },
      { name: 'pets' },
      { name: 'sqlite_sequence' },
    ]);
    expect(query(file, 'PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
  });

  it('may be an empty file (`--data "$(mktemp)"`): it becomes the database, as in sqlite3', async () => {
    const file = dataFile();
    writeFileSync(file, '');
    const sandbox = await start({ dataFile: file });
    expect((await createPet(sandbox, 'Rex')).status).toBe(201);
    await sandbox.close();
    expect(readFileSync(file).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    expect(query(file, 'SELECT name FROM pets')).toEqual([{ name: 'Rex' }]);
  });

  it('holds every change, committed, by the time the response arrives', async () => {
    const file = dataFile();
    const sandbox = await start({ dataFile: file });
    const pet = await call(sandbox, 'POST', '/v1/pets', {
      body: '{"name":"Rex","categoryId":9223372036854775807,"status":"sold"}',
    });
    expect(pet.status).toBe(201);
    expect(query(file, 'SELECT * FROM pets')).toEqual([
      { id: 1n, name: 'Rex', category_id: 9223372036854775807n, status: 'sold' },
    ]);
    const message = await call(sandbox, 'POST', '/v1/messages', { body: '{"message":"hi"}' });
    const { id, createdAt } = message.json as { id: string; createdAt: string };
    expect(query(file, 'SELECT id, message, status, created_at FROM messages')).toEqual([
      { id, message: 'hi', status: 'queued', created_at: createdAt },
    ]);
    await call(sandbox, 'PATCH', '/v1/pets/1', { body: '{"status":null}' });
    expect(query(file, 'SELECT status FROM pets')).toEqual([{ status: null }]);
    await call(sandbox, 'DELETE', '/v1/pets/1');
    expect(query(file, 'SELECT * FROM pets')).toEqual([]);
  });

  it('commits concurrent changes in groups: every 201 is stored, ids are distinct', async () => {
    const file = dataFile();
    const sandbox = await start({ dataFile: file });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => createPet(sandbox, `P${i}`)),
    );
    expect(results.map((res) => res.status)).toEqual(Array(200).fill(201));
    const created = results.map((res) => (res.json as { id: number }).id).sort((a, b) => a - b);
    expect(created).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(query(file, 'SELECT count(*) AS n FROM pets')).toEqual([{ n: 200n }]);
  });

  it('survives close and restart', async () => {
    const file = dataFile();
    const first = await start({ dataFile: file, seed: 2 });
    await createPet(first, 'Tom');
    await first.close();

    const second = await start({ dataFile: file });
    expect((await call(second, 'GET', '/v1/pets')).json).toEqual([
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      { id: 2, name: 'Bella', categoryId: 2, status: 'pending' },
      { id: 3, name: 'Tom', categoryId: 1 },
    ]);
    expect((await call(second, 'GET', '/v1/store/orders')).json).toHaveLength(2);
    expect((await createPet(second, 'Next')).json).toEqual({ id: 4, name: 'Next', categoryId: 1 });
  });

  it('closes cleanly with a commit still scheduled, and refuses a change after it', async () => {
    // `store sandbox --data` stopped (Ctrl-C) while a bulk add was writing: its last group's
    // commit ran after close and threw "database is not open", a stack trace and exit 1.
    const file = dataFile();
    const store = await Store.open(file);
    const added = store.addPet({ name: 'Tom', categoryId: 1 });
    store.close();
    await expect(added).resolves.toEqual({ id: 1, name: 'Tom', categoryId: 1 });
    await new Promise((resolve) => setImmediate(resolve)); // the scheduled commit's turn
    await expect(store.addPet({ name: 'Late', categoryId: 1 })).rejects.toThrow(
      new StorageError('the sandbox is stopping'),
    );
    expect(query(file, 'SELECT name FROM pets')).toEqual([{ name: 'Tom' }]);
  });

  it('waits for another process that holds the database, instead of failing the request', async () => {
    // Without SQLite's busy timeout, a second sandbox (or the sqlite3 shell) writing the same
    // file made requests fail: 500 "database is locked".
    const file = dataFile();
    const sandbox = await start({ dataFile: file });
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('node:sqlite').DatabaseSync)(${JSON.stringify(file)});
         db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n');
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
         db.exec('COMMIT'); db.close();`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    afterThisTest(() => holder.kill('SIGKILL'));
    await once(holder.stdout, 'data');
    const res = await createPet(sandbox, 'Patient');
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ id: 1, name: 'Patient', categoryId: 1 });
    await once(holder, 'close');
  });

  it('is seeded only while it has no pets', async () => {
    const file = dataFile();
    await (await start({ dataFile: file, seed: 3 })).close();
    const again = await start({ dataFile: file, seed: 3 });
    expect((await call(again, 'GET', '/v1/pets')).json).toHaveLength(3);
    expect((await call(again, 'GET', '/v1/store/orders')).json).toHaveLength(3);
  });

  it('is seeded again once every pet was deleted, its orders kept as they were', async () => {
    // The seed's orders took the ids of those kept: start failed with "UNIQUE constraint failed".
    const file = dataFile();
    const first = await start({ dataFile: file, seed: 2 });
    const orders = (await call(first, 'GET', '/v1/store/orders')).text;
    for (const id of [1, 2])
      expect((await call(first, 'DELETE', `/v1/pets/${id}`)).status).toBe(204);
    await first.close();
    const again = await start({ dataFile: file, seed: 2 });
    expect((await call(again, 'GET', '/v1/pets')).json).toEqual([
      { id: 3, name: 'Rex', categoryId: 1, status: 'available' },
      { id: 4, name: 'Bella', categoryId: 2, status: 'pending' },
    ]);
    expect((await call(again, 'GET', '/v1/store/orders')).text).toBe(orders);
  });

  it('refuses a change, and stores nothing, once the file is removed; the server stays up', async () => {
    const file = dataFile();
    const lines: string[] = [];
    const sandbox = await start({ dataFile: file, log: (line) => lines.push(line) });
    rmSync(path.dirname(file), { recursive: true });
    const results = await Promise.all([createPet(sandbox, 'A'), createPet(sandbox, 'B')]);
    for (const res of results) {
      expect(res.status).toBe(500);
      expect(res.json).toEqual(
        errorBody(
          500,
          'storage_error',
          `could not store the change: the data file ${file} was removed or replaced; nothing was stored`,
        ),
      );
    }
    // Rolled back: a read after the failure does not see the refused pets.
    expect((await call(sandbox, 'GET', '/v1/pets')).json).toEqual([]);
    expect((await call(sandbox, 'GET', '/v1/store/orders')).status).toBe(200);
    expect(lines.filter((line) => line.startsWith('error: '))).toHaveLength(2);
  });

  it('answers 507 once pet ids reach the int64 maximum, and stores nothing', async () => {
    const file = path.join(tempDir(), 'full.json');
    writeFileSync(
      file,
      '{"pets":[{"id":9223372036854775807,"name":"Last","categoryId":1}],"messages":[],"orders":[]}',
    );
    const sandbox = await start({ dataFile: file });
    const res = await createPet(sandbox, 'One more');
    expect(res.status).toBe(507);
    expect(res.json).toEqual(
      errorBody(507, 'ids_exhausted', 'pet ids are exhausted (int64 maximum)'),
    );
    expect(ids((await call(sandbox, 'GET', '/v1/pets')).json)).toEqual([9223372036854775807n]);
  });

  it('is not needed: without one the data lives in memory only', async () => {
    const first = await start();
    await createPet(first, 'Rex');
    await first.close();
    const second = await start();
    expect((await call(second, 'GET', '/v1/pets')).json).toEqual([]);
  });
});

describe('a JSON data file of earlier versions', () => {
  const BIG =
    '{"pets":[{"id":9007199254740993,"name":"Big","categoryId":9007199254740995,"status":"sold"},' +
    '{"id":2,"name":"Small","categoryId":1}],"messages":[{"id":"msg_1","message":"hi","status":"queued","createdAt":"2026-01-01T00:00:00.000Z"}],' +
    '"orders":[{"id":1,"anything":true}]}';

  it('is imported once, said on the log, and kept as FILE.json-imported', async () => {
    const file = path.join(tempDir(), 'data.json');
    writeFileSync(file, BIG);
    const lines: string[] = [];
    const sandbox = await start({ dataFile: file, log: (line) => lines.push(line) });
    expect(lines).toEqual([
      `Imported the JSON data file ${file} (2 animals, 1 message, 1 order) into an SQLite database; the JSON file is kept as ${file}.json-imported`,
    ]);
    expect(readFileSync(`${file}.json-imported`, 'utf8')).toBe(BIG);
    expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');
    // int64 exact: pets in id order, next id after the highest.
    expect((await call(sandbox, 'GET', '/v1/pets')).text).toBe(
      '[{"id":2,"name":"Small","categoryId":1},{"id":9007199254740993,"name":"Big","categoryId":9007199254740995,"status":"sold"}]',
    );
    expect((await call(sandbox, 'GET', '/v1/store/orders')).json).toEqual([
      { id: 1, anything: true },
    ]);
    const created = await createPet(sandbox, 'Next');
    expect(created.text).toBe('{"id":9007199254740994,"name":"Next","categoryId":1}');
    await sandbox.close();
    expect(query(file, 'SELECT id, typeof(id) AS type FROM pets ORDER BY id')).toEqual([
      { id: 2n, type: 'integer' },
      { id: 9007199254740993n, type: 'integer' },
      { id: 9007199254740994n, type: 'integer' },
    ]);

    lines.length = 0;
    const again = await start({ dataFile: file, log: (line) => lines.push(line) });
    expect(lines).toEqual([]);
    expect((await call(again, 'GET', '/v1/pets/9007199254740994')).status).toBe(200);
    expect(
      readdirSync(path.dirname(file))
        .filter((name) => !name.endsWith('-wal'))
        .sort(),
    ).toEqual(['data.json', 'data.json-shm', 'data.json.json-imported']);
  });

  it('removes what imports cut short by a process now gone left behind, not a running one’s', async () => {
    // kill -9 during an import left .FILE.<pid>.<hex>.importing (as large as the data) for good.
    const dir = tempDir();
    const file = path.join(dir, 'data.json');
    writeFileSync(file, BIG);
    const gone = spawn(process.execPath, ['-e', '0']);
    await once(gone, 'close');
    const abandoned = [
      `.data.json.${gone.pid}.0123456789ab.importing`,
      `.data.json.${gone.pid}.0123456789ab.importing-journal`,
    ];
    const running = `.data.json.${process.pid}.ba9876543210.importing`;
    const other = `.other.json.${gone.pid}.0123456789ab.importing`;
    for (const name of [...abandoned, running, other]) writeFileSync(path.join(dir, name), 'x');
    await start({ dataFile: file });
    const left = readdirSync(dir).filter(
      (name) => name.endsWith('.importing') || name.endsWith('-journal'),
    );
    expect(left.sort()).toEqual([other, running].sort());
  });

  it('never overwrites an earlier copy', async () => {
    const file = path.join(tempDir(), 'data.json');
    writeFileSync(`${file}.json-imported`, 'older');
    writeFileSync(file, BIG);
    const lines: string[] = [];
    await start({ dataFile: file, log: (line) => lines.push(line) });
    expect(lines[0]).toMatch(/kept as .*data\.json\.json-imported\.2$/);
    expect(readFileSync(`${file}.json-imported`, 'utf8')).toBe('older');
    expect(readFileSync(`${file}.json-imported.2`, 'utf8')).toBe(BIG);
  });

  it('behind a symlink: the link stays, the file it points to becomes the database', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'real'));
    const target = path.join(dir, 'real', 'store.json');
    const link = path.join(dir, 'link.json');
    writeFileSync(target, BIG);
    symlinkSync(target, link);
    const sandbox = await start({ dataFile: link });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target).subarray(0, 15).toString()).toBe('SQLite format 3');
    expect(existsSync(`${target}.json-imported`)).toBe(true);
    await createPet(sandbox, 'Via link');
    await sandbox.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(query(target, 'SELECT count(*) AS n FROM pets')).toEqual([{ n: 3n }]);
    // The WAL lives beside the real file, not beside the link.
    expect(readdirSync(dir).sort()).toEqual(['link.json', 'real']);
  });

  it('a dangling symlink: the database is created where it points', async () => {
    const dir = tempDir();
    const link = path.join(dir, 'link.db');
    symlinkSync('target.db', link);
    await (await start({ dataFile: link, seed: 1 })).close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(query(path.join(dir, 'target.db'), 'SELECT name FROM pets')).toEqual([{ name: 'Rex' }]);
  });
});

describe('a data file that cannot be used', () => {
  it.each([
    ['not JSON', '{"pets": [', '(not JSON)'],
    [
      'the wrong shape',
      '{"pets": [{"name": 1}]}',
      '(at pets.0.name: Invalid input: expected string, received number)',
    ],
    [
      'the wrong shape',
      '{"pets": [{"name": "A", "categoryId": 1}]}',
      '(at pets.0.id: must be an integer in the int64 range)',
    ],
    // What POST /pets refuses was imported: a blank name, a lone surrogate (stored as U+FFFD;
    // two message ids differing only by one were refused in SQLite's words), deep nesting.
    [
      'a pet with a blank name',
      '{"pets":[{"id":1,"name":"   ","categoryId":1}]}',
      '(at pets.0.name: must contain a non-whitespace character)',
    ],
    [
      'a lone surrogate',
      '{"pets":[{"id":1,"name":"\\ud800","categoryId":1}]}',
      '(a string holds half of a surrogate pair)',
    ],
    [
      'two message ids that differ by a lone surrogate',
      '{"messages":[{"id":"\\ud800","message":"a","status":"queued","createdAt":"2026-01-01T00:00:00.000Z"},{"id":"\\udc00","message":"b","status":"queued","createdAt":"2026-01-01T00:00:00.000Z"}]}',
      '(a string holds half of a surrogate pair)',
    ],
    // With a number a double cannot hold: read by a reviver, whose recursion ends sooner.
    [
      'an order nested 5000 levels deep beside 1e0',
      `{"orders":[1e0,${'['.repeat(5000)}${']'.repeat(5000)}]}`,
      '(nests more than 1000 levels deep)',
    ],
    [
      'an order nested 1001 levels deep',
      `{"orders":[${'['.repeat(999)}${']'.repeat(999)}]}`,
      '(nests more than 1000 levels deep)',
    ],
    ['not an object', '[]', '(at top level: Invalid input: expected object, received array)'],
    // Any other program's JSON: imported as an empty sandbox, it was replaced by a database.
    [
      'another program’s JSON',
      '{"name":"my-app","version":"1.0.0"}',
      '(a JSON object without pets, messages or orders)',
    ],
    ['an empty object', '{}', '(a JSON object without pets, messages or orders)'],
    [
      'a pet of a status the service does not know',
      '{"pets":[{"id":1,"name":"A","categoryId":1,"status":"adopted"}]}',
      '(at pets.0.status: Invalid option: expected one of "available"|"pending"|"sold")',
    ],
    [
      'a data file with a key of its own',
      '{"pets":[],"profiles":{}}',
      '(at top level: Unrecognized key: "profiles")',
    ],
  ])(
    'that is %s: start rejects with one line, EDATA, and the file is left alone',
    async (_name, content, why) => {
      const file = dataFile();
      writeFileSync(file, content);
      await expect(startFails(file)).rejects.toMatchObject({
        code: 'EDATA',
        message: `data file ${file} is neither a sandbox SQLite database nor a sandbox JSON data file ${why}; it was left untouched`,
      });
      expect(readFileSync(file, 'utf8')).toBe(content);
      expect(readdirSync(path.dirname(file))).toEqual(['data.db']);
    },
  );

  it('that is not UTF-8 (a Latin-1 export): refused, not imported with U+FFFD', async () => {
    const file = dataFile();
    const content = Buffer.from('{"pets":[{"id":1,"name":"Caf\xe9","categoryId":1}]}', 'latin1');
    writeFileSync(file, content);
    await expect(startFails(file)).rejects.toMatchObject({
      code: 'EDATA',
      message: `data file ${file} is neither a sandbox SQLite database nor a sandbox JSON data file (not UTF-8 text); it was left untouched`,
    });
    expect(readFileSync(file)).toEqual(content);
    expect(readdirSync(path.dirname(file))).toEqual(['data.db']);
  });

  const MESSAGE =
    '{"id":"msg_1","message":"hi","status":"queued","createdAt":"2026-01-01T00:00:00.000Z"}';
  it.each([
    ['pets', '{"pets": [{"id":1,"name":"A","categoryId":1},{"id":1,"name":"B","categoryId":1}]}'],
    // It had been the database's own words: "UNIQUE constraint failed: messages.id".
    ['messages', `{"messages": [${MESSAGE},${MESSAGE}]}`],
  ])('with two %s of one id, nothing left beside it', async (kind, content) => {
    const file = dataFile();
    writeFileSync(file, content);
    await expect(startFails(file)).rejects.toMatchObject({
      code: 'EDATA',
      message: `data file ${file} has two ${kind} with the same id; it was left untouched`,
    });
    expect(readFileSync(file, 'utf8')).toBe(content);
    expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('that is another program’s SQLite database', async () => {
    const file = dataFile();
    const other = new DatabaseSync(file);
    other.exec('CREATE TABLE notes (text TEXT)');
    other.close();
    const before = readFileSync(file);
    await expect(startFails(file)).rejects.toMatchObject({
      code: 'EDATA',
      message: `data file ${file} is an SQLite database but not the sandbox's; it was left untouched`,
    });
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(query(file, 'SELECT count(*) AS n FROM notes')).toEqual([{ n: 0n }]);
  });

  it('that is a folder', async () => {
    const dir = tempDir();
    await expect(startFails(dir)).rejects.toMatchObject({
      code: 'EDATA',
      message: `data file ${dir} is a folder, not a file`,
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('in a missing folder', async () => {
    const file = path.join(tempDir(), 'no', 'such', 'data.db');
    await expect(startFails(file)).rejects.toMatchObject({
      code: 'EDATA',
      message: `data file ${file}: folder ${path.dirname(file)} does not exist`,
    });
    expect(existsSync(path.dirname(file))).toBe(false);
  });

  it('under a path that goes through a file', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'plain'), 'x');
    const file = path.join(dir, 'plain', 'data.db');
    await expect(startFails(file)).rejects.toMatchObject({
      code: 'EDATA',
      message: `data file ${file} cannot be used: a part of the path is not a folder`,
    });
  });
});
