import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { call, cleanup, KEY, start, tempDir } from './helpers.js';

afterEach(cleanup);

const dataFile = () => path.join(tempDir(), 'data.json');
const readData = (file: string) =>
  parseJson(readFileSync(file, 'utf8')) as Record<string, unknown[]>;
const createPet = (sandbox: Awaited<ReturnType<typeof start>>, name: string) =>
  call(sandbox, 'POST', '/v1/pets', { body: JSON.stringify({ name, categoryId: 1 }) });

describe('data file', () => {
  it('is created on start when missing', async () => {
    const file = dataFile();
    await start({ dataFile: file });
    expect(readData(file)).toEqual({ pets: [], messages: [], orders: [] });
  });

  it('holds every change by the time the response arrives', async () => {
    const file = dataFile();
    const sandbox = await start({ dataFile: file });
    const pet = await createPet(sandbox, 'Rex');
    expect(readData(file).pets).toEqual([pet.json]);
    const message = await call(sandbox, 'POST', '/v1/messages', { body: '{"message":"hi"}' });
    expect(readData(file).messages).toEqual([message.json]);
  });

  it('survives close and restart', async () => {
    const file = dataFile();
    const first = await start({ dataFile: file, seed: 2 });
    await createPet(first, 'Tom');
    const message = await call(first, 'POST', '/v1/messages', { body: '{"message":"hi"}' });
    await first.close();

    const second = await start({ dataFile: file });
    expect((await call(second, 'GET', '/v1/pets')).json).toEqual([
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      { id: 2, name: 'Bella', categoryId: 2, status: 'pending' },
      { id: 3, name: 'Tom', categoryId: 1 },
    ]);
    expect((await call(second, 'GET', '/v1/store/orders')).json).toHaveLength(2);
    expect((await createPet(second, 'Next')).json).toEqual({ id: 4, name: 'Next', categoryId: 1 });
    await second.close();
    expect(readData(file).messages).toEqual([message.json]);
  });

  it('is seeded only while it has no pets', async () => {
    const file = dataFile();
    await (await start({ dataFile: file, seed: 3 })).close();
    const again = await start({ dataFile: file, seed: 3 });
    expect((await call(again, 'GET', '/v1/pets')).json).toHaveLength(3);
    expect((await call(again, 'GET', '/v1/store/orders')).json).toHaveLength(3);
  });

  it('keeps int64 ids beyond 2^53 exact', async () => {
    const file = dataFile();
    writeFileSync(
      file,
      '{"pets":[{"id":9007199254740993,"name":"Big","categoryId":9007199254740995}],"messages":[],"orders":[]}',
    );
    const sandbox = await start({ dataFile: file });
    const got = await call(sandbox, 'GET', '/v1/pets/9007199254740993');
    expect(got.status).toBe(200);
    expect(got.text).toBe('{"id":9007199254740993,"name":"Big","categoryId":9007199254740995}');

    const created = await createPet(sandbox, 'Next');
    expect(created.status).toBe(201);
    expect(created.text).toBe('{"id":9007199254740994,"name":"Next","categoryId":1}');
    expect((created.json as { id: unknown }).id).toBe(9007199254740994n);
    expect((await call(sandbox, 'GET', '/v1/pets/9007199254740994')).json).toEqual(created.json);
    expect((await call(sandbox, 'GET', '/v1/pets/9007199254740992')).status).toBe(404);

    await sandbox.close();
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"id": 9007199254740993');
    expect(text).toContain('"id": 9007199254740994');
    expect(text).toContain('"categoryId": 9007199254740995');
  });

  it('serves loaded pets in id order and continues after the highest id', async () => {
    const file = dataFile();
    writeFileSync(
      file,
      JSON.stringify({
        pets: [
          { id: 7, name: 'B', categoryId: 1 },
          { id: 2, name: 'A', categoryId: 1 },
        ],
      }),
    );
    const sandbox = await start({ dataFile: file });
    expect((await call(sandbox, 'GET', '/v1/pets')).json).toEqual([
      { id: 2, name: 'A', categoryId: 1 },
      { id: 7, name: 'B', categoryId: 1 },
    ]);
    expect(((await createPet(sandbox, 'C')).json as { id: number }).id).toBe(8);
  });

  it('is written one change at a time, always complete, with no temp files left', async () => {
    const file = dataFile();
    const sandbox = await start({ dataFile: file });
    let reads = 0;
    let writing = true;
    const reader = (async () => {
      // Every read while writes run must see a whole document, and writes run one at a time
      // (so there is never more than one temp file next to the data file).
      while (writing) {
        expect(() => readData(file)).not.toThrow();
        expect(readdirSync(path.dirname(file)).length).toBeLessThanOrEqual(2);
        reads++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createPet(sandbox, `P${i}`)),
    );
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(results.map((res) => res.status)).toEqual(Array(40).fill(201));
    const created = results.map((res) => (res.json as { id: number }).id).sort((a, b) => a - b);
    expect(created).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    await sandbox.close();
    expect(readData(file).pets).toHaveLength(40);
    expect(readdirSync(path.dirname(file))).toEqual(['data.json']);
  });

  it.each([
    ['not JSON', '{"pets": ['],
    ['empty', ''],
    ['the wrong shape', '{"pets": [{"name": 1}]}'],
    ['not an object', '[]'],
    [
      'two pets with one id',
      '{"pets": [{"id":1,"name":"A","categoryId":1},{"id":1,"name":"B","categoryId":1}]}',
    ],
  ])('that is %s makes start reject with EDATA and is left alone', async (_name, content) => {
    const file = dataFile();
    writeFileSync(file, content);
    const failure = startSandbox({
      port: 0,
      host: '127.0.0.1',
      apiKey: KEY,
      dataFile: file,
      seed: 3,
    });
    await expect(failure).rejects.toMatchObject({
      code: 'EDATA',
      message: expect.stringContaining(file),
    });
    expect(readFileSync(file, 'utf8')).toBe(content);
    expect(readdirSync(path.dirname(file))).toEqual(['data.json']);
  });

  it('in a missing folder makes start reject', async () => {
    const file = path.join(tempDir(), 'no', 'such', 'data.json');
    await expect(
      startSandbox({ port: 0, host: '127.0.0.1', apiKey: KEY, dataFile: file }),
    ).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(existsSync(file)).toBe(false);
  });

  it('that cannot be written makes the change answer 500, and the server stays up', async () => {
    const file = dataFile();
    const lines: string[] = [];
    const sandbox = await start({ dataFile: file, log: (line) => lines.push(line) });
    rmSync(path.dirname(file), { recursive: true });
    const res = await createPet(sandbox, 'Rex');
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      code: 'internal_error',
      message: expect.stringMatching(/^internal error: ENOENT/),
      status: 500,
    });
    expect((await call(sandbox, 'GET', '/v1/store/orders')).status).toBe(200);
    await sandbox.close();
    expect(lines.filter((line) => line.startsWith('error: '))).toHaveLength(1);
  });

  it('is not needed: without one the data lives in memory only', async () => {
    const first = await start();
    await createPet(first, 'Rex');
    await first.close();
    const second = await start();
    expect((await call(second, 'GET', '/v1/pets')).json).toEqual([]);
  });
});
