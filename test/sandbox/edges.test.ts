// The sandbox's edges a mutation audit found untested: each test fails when the rule it names
// is taken out of src/sandbox (the comment above it says which).
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { Store } from '../../src/sandbox/store.js';
import { AUTH, call, cleanup, KEY, start, tempDir } from './helpers.js';

afterEach(cleanup);

// server.ts:253 `.trim()` removed: RFC 9110 allows OWS before ";" in a media type.
it('accepts "application/json ; charset=utf-8" (space before the parameter)', async () => {
  const res = await call(await start(), 'POST', '/v1/pets', {
    body: '{"name":"Rex","categoryId":1}',
    type: 'application/json ; charset=utf-8',
  });
  expect(res.status).toBe(201);
});

// body.ts:38 `cut > 0 ? digits.slice(cut) : digits` -> `digits.slice(cut)`: 10e-3 (= 0.01) became 0.
it('refuses categoryId 10e-3 (0.01), not stored as 0', async () => {
  const res = await call(await start(), 'POST', '/v1/pets', {
    body: '{"name":"Rex","categoryId":10e-3}',
  });
  expect(res.status).toBe(400);
  expect((res.json as { code: string }).code).toBe('invalid_body');
});

// body.ts:15 ignoreBOM true -> false: a body starting with a UTF-8 BOM is refused as not JSON.
it('answers a body with a UTF-8 BOM 400 invalid_json', async () => {
  const res = await call(await start(), 'POST', '/v1/pets', {
    body: Buffer.from('\uFEFF{"name":"Rex","categoryId":1}'),
  });
  expect(res.status).toBe(400);
  expect((res.json as { code: string }).code).toBe('invalid_json');
});

// store.ts:407 user_version check removed: a data file of a newer layout must be left alone.
it('refuses a data file of an unknown layout version', async () => {
  const file = join(tempDir(), 'data.db');
  (await Store.open(file)).close();
  const db = new DatabaseSync(file);
  db.exec('PRAGMA user_version = 2');
  db.close();
  await expect(Store.open(file)).rejects.toThrow(/has layout version 2, which this version/);
});

// store.ts:200 / store.ts:209 `this.settle()` removed from listPets / getPet: a read must not
// show a change that is then refused (here: the data file was removed before the commit).
for (const read of ['listPets', 'getPet'] as const) {
  it(`${read} does not show a pending change that is then refused`, async () => {
    const file = join(tempDir(), 'data.db');
    const store = await Store.open(file);
    const refused = expect(store.addPet({ name: 'Rex', categoryId: 1 })).rejects.toThrow(
      /removed or replaced/,
    );
    rmSync(file);
    if (read === 'listPets') expect(store.listPets(10)).toEqual([]);
    else expect(store.getPet(1n)).toBeUndefined();
    await refused;
    store.close();
  });
}

// data-file.ts:49 `!info.isFile()` check removed: --data on a FIFO hangs in open().
it('refuses a FIFO as data file at once', async () => {
  const fifo = join(tempDir(), 'fifo');
  execFileSync('mkfifo', [fifo]);
  const opening = Store.open(fifo).then(
    () => 'opened',
    (error: Error) => error.message,
  );
  const result = await Promise.race([
    opening,
    new Promise((resolve) => setTimeout(() => resolve('hung'), 2000)),
  ]);
  if (result === 'hung') {
    // Unblock the reader stuck in the thread pool so that the worker can end.
    closeSync(openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK));
    await opening;
  }
  expect(result).toMatch(/is not a regular file/);
});

// server.ts:307 Content-Length pre-check: a declared body over 1 MiB is answered 413 before
// any of it is sent (a client waiting to send gets its answer).
it('answers 413 on a Content-Length over 1 MiB before the body comes', async () => {
  const sandbox = await start();
  const socket = connect(sandbox.port, '127.0.0.1');
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nAuthorization: ${AUTH}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n',
  );
  const head = await Promise.race([
    new Promise<string>((resolve) => socket.once('data', (d) => resolve(d.toString('latin1')))),
    new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), 2000)),
  ]);
  socket.destroy();
  expect(head).toMatch(/^HTTP\/1\.1 413 /);
});

// server.ts:401 the empty-key guard: an empty key would make every request 401.
it('refuses to start with an empty API key', async () => {
  await expect(startSandbox({ port: 0, host: '127.0.0.1', apiKey: '' })).rejects.toThrow(
    /must not be empty/,
  );
  expect(KEY).not.toBe('');
});

// server.ts:313 `req.socket.destroy()` after DRAIN_LIMIT_BYTES removed: after a 413 the sandbox
// would read an endless body forever; it must cut the connection past 8 MiB.
it('cuts a refused body off after 8 MiB of it were drained', async () => {
  const sandbox = await start();
  const socket = connect(sandbox.port, '127.0.0.1');
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nAuthorization: ${AUTH}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 104857600\r\n\r\n',
  );
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  let isClosed = false;
  void closed.then(() => (isClosed = true));
  while (!isClosed && sent < 32 * 1024 * 1024) {
    if (!socket.write(chunk)) {
      await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
    }
    sent += chunk.length;
  }
  const result = await Promise.race([
    closed.then(() => 'closed'),
    new Promise((resolve) => setTimeout(() => resolve('open'), 2000)),
  ]);
  socket.destroy();
  expect(result).toBe('closed');
  expect(sent).toBeLessThan(32 * 1024 * 1024);
});

// server.ts:453 `&& req.httpVersion !== '1.0'` removed: an HTTP/1.0 request has no Host to give.
it('answers an HTTP/1.0 request without Host', async () => {
  const sandbox = await start();
  const socket = connect(sandbox.port, '127.0.0.1');
  let got = '';
  socket.on('data', (d) => (got += d.toString('latin1')));
  const ended = new Promise((resolve) => socket.once('close', resolve));
  socket.write(`GET /v1/pets HTTP/1.0\r\nAuthorization: ${AUTH}\r\n\r\n`);
  await ended;
  expect(got).toMatch(/^HTTP\/1\.1 200 /);
});

// server.ts:458 `.toLowerCase()` removed: Expect is case-insensitive (RFC 9110 10.1.1).
it('takes "Expect: 100-Continue" as 100-continue', async () => {
  const sandbox = await start();
  const socket = connect(sandbox.port, '127.0.0.1');
  let got = '';
  socket.on('data', (d) => (got += d.toString('latin1')));
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nAuthorization: ${AUTH}\r\nExpect: 100-Continue\r\n` +
      'Content-Type: application/json\r\nContent-Length: 29\r\nConnection: close\r\n\r\n',
  );
  socket.write('{"name":"Rex","categoryId":1}');
  await new Promise((resolve) => socket.once('close', resolve));
  expect(got).toMatch(/HTTP\/1\.1 201 /);
});

// server.ts:489 `'::': '::1'` mapping: bound to every IPv6 interface, the URL printed (and
// recorded for `store -p sandbox`) is the loopback one.
it('prints the loopback URL when bound to ::', async () => {
  const sandbox = await start({ host: '::' });
  expect(sandbox.url).toBe(`http://[::1]:${sandbox.port}/v1`);
});

// server.ts:499 `server.closeAllConnections()` removed: stopping the sandbox (Ctrl-C) waited
// for a client in the middle of a request.
it('close() does not wait for a request still arriving', async () => {
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', apiKey: KEY });
  const socket = connect(sandbox.port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nAuthorization: ${AUTH}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  const result = await Promise.race([
    sandbox.close().then(() => 'closed'),
    new Promise((resolve) => setTimeout(() => resolve('still open'), 2000)),
  ]);
  socket.destroy();
  await sandbox.close();
  expect(result).toBe('closed');
});

// server.ts:375 `err.code !== 'HPE_INVALID_METHOD'` check removed: a known method with a
// malformed header line was answered 501 "GET is not a method this server implements".
it('answers a malformed header line 400, not 501', async () => {
  const sandbox = await start();
  const socket = connect(sandbox.port, '127.0.0.1');
  let got = '';
  socket.on('data', (d) => (got += d.toString('latin1')));
  const ended = new Promise((resolve) => socket.once('close', resolve));
  socket.write(`GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nBad Header\r\n\r\n`);
  await ended;
  expect(got).toMatch(/^HTTP\/1\.1 400 /);
  expect(got).toContain('"code":"bad_request"');
});
