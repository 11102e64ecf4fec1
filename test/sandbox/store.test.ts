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
    const file = dataFile();
    await (await start({ dataFile: file })).close();
    const db = new DatabaseSync(file);
    db.exec("INSERT INTO pets (id, name, category_id) VALUES (9223372036854775807, 'Last', 1)");
    db.close();
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

describe('a data file behind a symlink', () => {
  it('the link stays, the file it points to is the database', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'real'));
    const target = path.join(dir, 'real', 'store.db');
    const link = path.join(dir, 'link.db');
    symlinkSync(target, link);
    const sandbox = await start({ dataFile: link });
    await createPet(sandbox, 'Via link');
    await sandbox.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(query(target, 'SELECT name FROM pets')).toEqual([{ name: 'Via link' }]);
    // The WAL lives beside the real file, not beside the link.
    expect(readdirSync(dir).sort()).toEqual(['link.db', 'real']);
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
    ['a JSON data file', '{"pets":[{"id":1,"name":"A","categoryId":1}]}'],
    ['not JSON', '{"pets": ['],
    ['another program’s JSON', '{"name":"my-app","version":"1.0.0"}'],
    ['text that is not UTF-8', Buffer.from('{"name":"Caf\xe9"}', 'latin1')],
  ])(
    'that is %s: start rejects with one line, EDATA, and the file is left alone',
    async (_name, content) => {
      const file = dataFile();
      writeFileSync(file, content);
      await expect(startFails(file)).rejects.toMatchObject({
        code: 'EDATA',
        message: `data file ${file} is not a sandbox SQLite database; it was left untouched`,
      });
      expect(readFileSync(file)).toEqual(Buffer.from(content));
      expect(readdirSync(path.dirname(file))).toEqual(['data.db']);
    },
  );

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
      message: `data file ${file} cannot be used: not a directory`,
    });
  });
});
