import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import {
  AUTH,
  type CallOptions,
  call,
  cleanup,
  errorBody,
  KEY,
  type Response,
  start,
} from './helpers.js';

afterEach(cleanup);

const UNAUTHORIZED = errorBody(
  401,
  'unauthorized',
  'missing or invalid API key (Authorization: Bearer <key>)',
);
const UNSUPPORTED = errorBody(
  415,
  'unsupported_media_type',
  'Content-Type must be application/json',
);
const TOO_LARGE = errorBody(413, 'payload_too_large', 'request body is larger than 1048576 bytes');
const BAD_LIMIT = (got: string) =>
  errorBody(
    400,
    'invalid_query',
    `limit: must be an integer from 1 to 100, got ${JSON.stringify(got)}`,
  );
const BAD_PET_ID = (got: string) =>
  errorBody(
    400,
    'invalid_pet_id',
    `petId: must be an integer in the int64 range, got ${JSON.stringify(got)}`,
  );
const INVALID_JSON = {
  code: 'invalid_json',
  message: expect.stringMatching(/^request body is not valid JSON: /),
  status: 400,
};

const ids = (json: unknown) => (json as { id: unknown }[]).map((pet) => pet.id);
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('startSandbox', () => {
  it('reports the real URL and port when asked for port 0', async () => {
    const sandbox = await start();
    expect(sandbox.port).toBeGreaterThan(0);
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}/v1`);
    expect((await call(sandbox, 'GET', '/v1/pets')).status).toBe(200);
  });

  it('rejects with code EADDRINUSE when the port is taken', async () => {
    const first = await start();
    await expect(
      startSandbox({ port: first.port, host: '127.0.0.1', apiKey: KEY }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect((await call(first, 'GET', '/v1/pets')).status).toBe(200);
  });

  it('close() ends keep-alive connections and refuses new ones', async () => {
    const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', apiKey: KEY });
    expect((await call(sandbox, 'GET', '/v1/pets')).status).toBe(200); // leaves a keep-alive socket
    const started = Date.now();
    await sandbox.close();
    expect(Date.now() - started).toBeLessThan(1000); // not waiting for the keep-alive timeout
    await expect(call(sandbox, 'GET', '/v1/pets')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('GET /v1/pets', () => {
  it('returns 20 pets in id order by default', async () => {
    const res = await call(await start({ seed: 25 }), 'GET', '/v1/pets');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(ids(res.json)).toEqual(range(1, 20));
    expect((res.json as unknown[]).slice(0, 3)).toEqual([
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      { id: 2, name: 'Bella', categoryId: 2, status: 'pending' },
      { id: 3, name: 'Milo', categoryId: 3, status: 'sold' },
    ]);
    // Seed names are reused with a number once the list runs out.
    expect((res.json as unknown[])[9]).toEqual({
      id: 10,
      name: 'Rex 2',
      categoryId: 5,
      status: 'available',
    });
  });

  it('honours limit=1, limit=100, and 20 without a limit', async () => {
    const sandbox = await start({ seed: 150 });
    const one = await call(sandbox, 'GET', '/v1/pets?limit=1');
    expect(one.status).toBe(200);
    expect(one.json).toEqual([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
    const hundred = await call(sandbox, 'GET', '/v1/pets?limit=100');
    expect(hundred.status).toBe(200);
    expect(ids(hundred.json)).toEqual(range(1, 100));
    const fewer = await call(sandbox, 'GET', '/v1/pets?limit=37');
    expect(ids(fewer.json)).toEqual(range(1, 37));
    const byDefault = await call(sandbox, 'GET', '/v1/pets');
    expect(ids(byDefault.json)).toEqual(range(1, 20));
  });

  it('returns an empty array from an empty store', async () => {
    const res = await call(await start(), 'GET', '/v1/pets');
    expect(res.status).toBe(200);
    expect(res.text).toBe('[]');
  });

  it.each(['0', '101', 'abc', '1.5', '', '-1', '1e1', ' 5'])(
    'rejects limit=%j with 400',
    async (limit) => {
      const res = await call(
        await start({ seed: 3 }),
        'GET',
        `/v1/pets?limit=${encodeURIComponent(limit)}`,
      );
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json).toEqual(BAD_LIMIT(limit));
    },
  );

  it('rejects a limit given twice', async () => {
    const res = await call(await start(), 'GET', '/v1/pets?limit=1&limit=2');
    expect(res.status).toBe(400);
    expect(res.json).toEqual(errorBody(400, 'invalid_query', 'limit: given more than once'));
  });

  it('filters by status, combined with limit', async () => {
    const sandbox = await start({ seed: 25 });
    const sold = await call(sandbox, 'GET', '/v1/pets?status=sold');
    expect(sold.status).toBe(200);
    expect(ids(sold.json)).toEqual([3, 6, 9, 12, 15, 18, 21, 24]);
    expect((sold.json as { status: string }[]).every((pet) => pet.status === 'sold')).toBe(true);
    const pending = await call(sandbox, 'GET', '/v1/pets?status=pending&limit=2');
    expect(ids(pending.json)).toEqual([2, 5]);
  });

  it.each(['foo', 'SOLD', ''])('rejects status=%j with 400', async (status) => {
    const res = await call(await start({ seed: 3 }), 'GET', `/v1/pets?status=${status}`);
    expect(res.status).toBe(400);
    expect(res.json).toEqual(
      errorBody(
        400,
        'invalid_query',
        `status: must be one of available, pending, sold, got ${JSON.stringify(status)}`,
      ),
    );
  });

  it('does not carry deprecation headers', async () => {
    const res = await call(await start(), 'GET', '/v1/pets');
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });
});

describe('POST /v1/pets', () => {
  const post = (options: CallOptions) => async () =>
    call(await start(), 'POST', '/v1/pets', options);

  it('creates a pet with the next id and drops unknown fields', async () => {
    const sandbox = await start({ seed: 2 });
    const body = JSON.stringify({ name: 'Tom', categoryId: 4, status: 'pending', colour: 'grey' });
    const res = await call(sandbox, 'POST', '/v1/pets', { body });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json).toEqual({ id: 3, name: 'Tom', categoryId: 4, status: 'pending' });
    const stored = await call(sandbox, 'GET', '/v1/pets/3');
    expect(stored.json).toEqual({ id: 3, name: 'Tom', categoryId: 4, status: 'pending' });
  });

  it('starts ids at 1 and leaves status out when none is given', async () => {
    const sandbox = await start();
    const res = await call(sandbox, 'POST', '/v1/pets', { body: '{"name":"Tom","categoryId":4}' });
    expect(res.status).toBe(201);
    expect(res.text).toBe('{"id":1,"name":"Tom","categoryId":4}');
    expect((await call(sandbox, 'GET', '/v1/pets')).json).toEqual([
      { id: 1, name: 'Tom', categoryId: 4 },
    ]);
  });

  it('accepts Content-Type with a charset and in any case', async () => {
    const sandbox = await start();
    const body = '{"name":"A","categoryId":1}';
    expect(
      (await call(sandbox, 'POST', '/v1/pets', { body, type: 'application/json; charset=utf-8' }))
        .status,
    ).toBe(201);
    expect(
      (await call(sandbox, 'POST', '/v1/pets', { body, type: 'Application/JSON' })).status,
    ).toBe(201);
  });

  it('keeps an int64 categoryId digit for digit', async () => {
    const res = await post({ body: '{"name":"Big","categoryId":9223372036854775807}' })();
    expect(res.status).toBe(201);
    expect(res.text).toBe('{"id":1,"name":"Big","categoryId":9223372036854775807}');
  });

  it.each([
    // A field left out is said so (missing categoryId read as a wrong value).
    ['missing name', { categoryId: 1 }, 'name: is required'],
    ['missing categoryId', { name: 'Rex' }, 'categoryId: is required'],
    ['empty name', { name: '', categoryId: 1 }, 'name: must contain a non-whitespace character'],
    [
      'blank name',
      { name: ' \t\u00a0\u3000', categoryId: 1 },
      'name: must contain a non-whitespace character',
    ],
    [
      'numeric name',
      { name: 5, categoryId: 1 },
      'name: Invalid input: expected string, received number',
    ],
    [
      'string categoryId',
      { name: 'Rex', categoryId: '1' },
      'categoryId: must be an integer in the int64 range',
    ],
    [
      'fractional categoryId',
      { name: 'Rex', categoryId: 1.5 },
      'categoryId: must be an integer in the int64 range',
    ],
    [
      'unknown status',
      { name: 'Rex', categoryId: 1, status: 'lost' },
      'status: Invalid option: expected one of "available"|"pending"|"sold"',
    ],
    ['both fields missing', {}, 'name: is required; categoryId: is required'],
    ['an array', [], 'body: Invalid input: expected object, received array'],
  ])('rejects %s with 400 naming the field', async (_name, input, message) => {
    const res = await post({ body: JSON.stringify(input) })();
    expect(res.status).toBe(400);
    expect(res.json).toEqual(errorBody(400, 'invalid_body', message));
  });

  it.each([
    ['1e16', '10000000000000000'],
    ['1E2', '100'],
    ['9.223372036854775807e18', '9223372036854775807'],
    ['-9223372036854775808e0', '-9223372036854775808'],
    ['12.5e1', '125'],
    ['1.000e3', '1000'],
    ['0e-7', '0'],
    // A zero fraction, one digit before it (a mutation stored 5.0 as 0).
    ['5.0', '5'],
    ['5.00', '5'],
    ['-7.0', '-7'],
  ])('reads categoryId %s as the integer %s', async (written, exact) => {
    const res = await post({ body: `{"name":"Exp","categoryId":${written}}` })();
    expect(res.status).toBe(201);
    expect(res.text).toBe(`{"id":1,"name":"Exp","categoryId":${exact}}`);
  });

  it.each(['1.5e0', '1.0000000000000001', '1e-400', '1e19', '1e999999999', '-1e999999999'])(
    'refuses categoryId %s: not an int64 integer',
    async (written) => {
      const sandbox = await start();
      const res = await call(sandbox, 'POST', '/v1/pets', {
        body: `{"name":"Exp","categoryId":${written}}`,
      });
      expect(res.status).toBe(400);
      expect(res.json).toEqual(
        errorBody(400, 'invalid_body', 'categoryId: must be an integer in the int64 range'),
      );
      expect((await call(sandbox, 'GET', '/v1/pets')).json).toEqual([]);
    },
  );

  it('refuses a body that is not valid UTF-8, and stores nothing', async () => {
    const sandbox = await start();
    const body = Buffer.concat([
      Buffer.from('{"name":"R'),
      Buffer.from([0xff, 0xc3]),
      Buffer.from('x","categoryId":1}'),
    ]);
    const res = await call(sandbox, 'POST', '/v1/pets', { body });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(errorBody(400, 'invalid_encoding', 'request body is not valid UTF-8'));
    expect((await call(sandbox, 'GET', '/v1/pets')).json).toEqual([]);
  });

  it('refuses a lone surrogate, which could not be stored as sent', async () => {
    const res = await post({ body: '{"name":"R\\ud800x","categoryId":1}' })();
    expect(res.status).toBe(400);
    expect(res.json).toEqual(
      errorBody(400, 'invalid_body', 'strings must be well-formed Unicode (no lone surrogate)'),
    );
  });

  it('keeps a name with NUL, emoji and a surrogate pair exactly', async () => {
    const sandbox = await start();
    const name = 'a\u0000b 🐈 \ud83d\udc08';
    const res = await call(sandbox, 'POST', '/v1/pets', {
      body: JSON.stringify({ name, categoryId: 1 }),
    });
    expect(res.status).toBe(201);
    expect(((await call(sandbox, 'GET', '/v1/pets/1')).json as { name: string }).name).toBe(name);
  });

  it('rejects a categoryId beyond int64', async () => {
    const res = await post({ body: '{"name":"Rex","categoryId":9223372036854775808}' })();
    expect(res.status).toBe(400);
    expect(res.json).toEqual(
      errorBody(400, 'invalid_body', 'categoryId: must be an integer in the int64 range'),
    );
  });

  it.each(['{"name":', '', "{'name':'Rex'}", 'null,'])(
    'rejects invalid JSON %j with 400',
    async (body) => {
      const res = await post({ body })();
      expect(res.status).toBe(400);
      expect(res.json).toEqual(INVALID_JSON);
    },
  );

  it.each([10_000, 1000])(
    'answers JSON nested more than 1000 levels deep (%i inside) with 400 invalid_body, not "not valid JSON"',
    async (levels) => {
      const deep = `${'['.repeat(levels)}${']'.repeat(levels)}`;
      const res = await post({ body: `{"name":"A","categoryId":1,"x":${deep}}` })();
      expect(res.status).toBe(400);
      expect(res.json).toEqual(
        errorBody(400, 'invalid_body', 'request body nests more than 1000 levels deep'),
      );
    },
  );

  it('takes a body nested 1000 levels deep', async () => {
    const deep = `${'['.repeat(999)}${']'.repeat(999)}`;
    const res = await post({ body: `{"name":"A","categoryId":1,"x":${deep}}` })();
    expect(res.status).toBe(201);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['application/jsonp', 'application/jsonp'],
    ['form', 'application/x-www-form-urlencoded'],
    ['no Content-Type', null],
  ])('rejects %s with 415', async (_name, type) => {
    const res = await post({ body: '{"name":"Rex","categoryId":1}', type })();
    expect(res.status).toBe(415);
    expect(res.json).toEqual(UNSUPPORTED);
  });

  it('accepts a body of exactly 1 MiB', async () => {
    const prefix = '{"categoryId":1,"name":"';
    const name = 'a'.repeat(1024 * 1024 - prefix.length - 2);
    const res = await post({ body: `${prefix}${name}"}` })();
    expect(res.status).toBe(201);
    expect((res.json as { name: string }).name).toBe(name);
  });

  it('rejects a body over 1 MiB with 413 (declared length)', async () => {
    const sandbox = await start();
    const res = await call(sandbox, 'POST', '/v1/pets', { body: 'x'.repeat(1024 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(TOO_LARGE);
    expect((await call(sandbox, 'GET', '/v1/pets')).json).toEqual([]);
  });

  it('answers 413 to a chunked body over 1 MiB before all of it is sent', async () => {
    let sent = 0;
    async function* chunks() {
      // 64 MiB offered; the 413 must come long before all of it is sent.
      for (let i = 0; i < 1024; i++) {
        sent += 65536;
        yield Buffer.alloc(65536, 0x20);
      }
    }
    const res = await post({ body: Readable.from(chunks()) })();
    expect(res.status).toBe(413);
    expect(res.json).toEqual(TOO_LARGE);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('GET /v1/pets/{petId} (deprecated)', () => {
  const expectDeprecation = (headers: Record<string, unknown>) => {
    expect(headers.deprecation).toBe('@1767225600'); // 2026-01-01T00:00:00Z
    expect(headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(headers.link).toBe('</v1/pets?status=available>; rel="successor-version"');
  };

  it('returns the pet with deprecation headers', async () => {
    const res = await call(await start({ seed: 3 }), 'GET', '/v1/pets/2');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: 2, name: 'Bella', categoryId: 2, status: 'pending' });
    expectDeprecation(res.headers);
  });

  it.each(['999', '0', '-9223372036854775808', '9223372036854775807'])(
    'answers 404 with deprecation headers for missing pet %s',
    async (id) => {
      const res = await call(await start({ seed: 3 }), 'GET', `/v1/pets/${id}`);
      expect(res.status).toBe(404);
      expect(res.json).toEqual(errorBody(404, 'pet_not_found', `no pet with id ${id}`));
      expectDeprecation(res.headers);
    },
  );

  it.each([
    ['abc', 'abc'],
    ['1.5', '1.5'],
    ['9223372036854775808', '9223372036854775808'],
    ['-9223372036854775809', '-9223372036854775809'],
    ['1e3', '1e3'],
    ['%201', ' 1'],
    ['%ZZ', '%ZZ'],
  ])('answers 400 with deprecation headers for petId %j', async (id, read) => {
    const res = await call(await start({ seed: 3 }), 'GET', `/v1/pets/${id}`);
    expect(res.status).toBe(400);
    expect(res.json).toEqual(BAD_PET_ID(read));
    expectDeprecation(res.headers);
  });

  it('answers 401 with deprecation headers too', async () => {
    const res = await call(await start({ seed: 3 }), 'GET', '/v1/pets/1', { auth: null });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(UNAUTHORIZED);
    expectDeprecation(res.headers);
  });
});

describe('the sandbox’s own PUT, PATCH and DELETE on /v1/pets/{petId}', () => {
  const noDeprecation = (headers: Record<string, unknown>) => {
    expect(headers.deprecation).toBeUndefined();
    expect(headers.sunset).toBeUndefined();
    expect(headers.link).toBeUndefined();
  };

  it('PUT replaces the pet (a status left out is removed) and answers 200 with it', async () => {
    const sandbox = await start({ seed: 3 });
    const res = await call(sandbox, 'PUT', '/v1/pets/2', {
      body: '{"name":"Tom","categoryId":9223372036854775807,"extra":1}',
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"id":2,"name":"Tom","categoryId":9223372036854775807}');
    noDeprecation(res.headers);
    expect((await call(sandbox, 'GET', '/v1/pets/2')).text).toBe(res.text);
  });

  it('PATCH changes only the fields given; a null status removes it', async () => {
    const sandbox = await start({ seed: 3 });
    const renamed = await call(sandbox, 'PATCH', '/v1/pets/3', { body: '{"name":"Kit"}' });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toEqual({ id: 3, name: 'Kit', categoryId: 3, status: 'sold' });
    noDeprecation(renamed.headers);
    const cleared = await call(sandbox, 'PATCH', '/v1/pets/3', {
      body: '{"status":null,"categoryId":7}',
      type: 'application/merge-patch+json',
    });
    expect(cleared.status).toBe(200);
    expect(cleared.json).toEqual({ id: 3, name: 'Kit', categoryId: 7 });
    expect((await call(sandbox, 'GET', '/v1/pets/3')).json).toEqual(cleared.json);
  });

  it('DELETE answers 204 with no body, then the pet is gone (404)', async () => {
    const sandbox = await start({ seed: 3 });
    const res = await call(sandbox, 'DELETE', '/v1/pets/2');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    noDeprecation(res.headers);
    expect(ids((await call(sandbox, 'GET', '/v1/pets')).json)).toEqual([1, 3]);
    const again = await call(sandbox, 'DELETE', '/v1/pets/2');
    expect(again.status).toBe(404);
    expect(again.json).toEqual(errorBody(404, 'pet_not_found', 'no pet with id 2'));
    // A deleted id is not given again.
    const created = await call(sandbox, 'POST', '/v1/pets', {
      body: '{"name":"N","categoryId":1}',
    });
    expect((created.json as { id: number }).id).toBe(4);
  });

  it.each([
    ['PUT', '{"name":"A","categoryId":1}'],
    ['PATCH', '{"name":"A"}'],
    ['DELETE', undefined],
  ])('%s answers 404 for a missing pet and 400 for a bad id', async (method, body) => {
    const sandbox = await start({ seed: 1 });
    const missing = await call(sandbox, method, '/v1/pets/9', body ? { body } : {});
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual(errorBody(404, 'pet_not_found', 'no pet with id 9'));
    noDeprecation(missing.headers);
    const bad = await call(sandbox, method, '/v1/pets/x', body ? { body } : {});
    expect(bad.json).toEqual(BAD_PET_ID('x'));
  });

  it.each([
    ['PUT', '{"name":"A"}', 'categoryId: is required'],
    ['PATCH', '{"name":"  "}', 'name: must contain a non-whitespace character'],
    ['PATCH', '{"categoryId":null}', 'categoryId: must be an integer in the int64 range'],
    [
      'PATCH',
      '{"status":"lost"}',
      'status: Invalid option: expected one of "available"|"pending"|"sold"',
    ],
  ])('%s %s answers 400 and changes nothing', async (method, body, message) => {
    const sandbox = await start({ seed: 1 });
    const res = await call(sandbox, method, '/v1/pets/1', { body });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(errorBody(400, 'invalid_body', message));
    expect((await call(sandbox, 'GET', '/v1/pets/1')).json).toEqual({
      id: 1,
      name: 'Rex',
      categoryId: 1,
      status: 'available',
    });
  });

  it('PUT wants application/json (415), PATCH also accepts merge-patch+json', async () => {
    const sandbox = await start({ seed: 1 });
    const put = await call(sandbox, 'PUT', '/v1/pets/1', {
      body: '{"name":"A","categoryId":1}',
      type: 'application/merge-patch+json',
    });
    expect(put.json).toEqual(UNSUPPORTED);
    const patch = await call(sandbox, 'PATCH', '/v1/pets/1', { body: '{}', type: 'text/plain' });
    expect(patch.json).toEqual(
      errorBody(
        415,
        'unsupported_media_type',
        'Content-Type must be application/json or application/merge-patch+json',
      ),
    );
  });

  it('check the Content-Type, then the JSON, then the petId (in that order)', async () => {
    // A mutation checking the petId first answered both with invalid_pet_id.
    const sandbox = await start({ seed: 1 });
    const put = await call(sandbox, 'PUT', '/v1/pets/abc', { body: '{}', type: 'text/plain' });
    expect(put.json).toEqual(UNSUPPORTED);
    const patch = await call(sandbox, 'PATCH', '/v1/pets/abc', { body: '{bad' });
    expect(patch.status).toBe(400);
    expect(patch.json).toEqual(INVALID_JSON);
    const valid = await call(sandbox, 'PATCH', '/v1/pets/abc', { body: '{}' });
    expect(valid.json).toEqual(BAD_PET_ID('abc'));
  });

  it('need the key like every operation', async () => {
    const sandbox = await start({ seed: 1 });
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await call(sandbox, method, '/v1/pets/1', { auth: null, body: '{}' });
      expect(res.json).toEqual(UNAUTHORIZED);
    }
    expect(ids((await call(sandbox, 'GET', '/v1/pets')).json)).toEqual([1]);
  });
});

describe('POST /v1/messages', () => {
  it('queues a message (201)', async () => {
    const sandbox = await start();
    const before = Date.now();
    const res = await call(sandbox, 'POST', '/v1/messages', {
      body: '{"message":"hello","extra":1}',
    });
    expect(res.status).toBe(201);
    const message = res.json as Record<string, string>;
    expect(Object.keys(message)).toEqual(['id', 'message', 'status', 'createdAt']);
    expect(message.message).toBe('hello');
    expect(message.status).toBe('queued');
    expect(message.id).toMatch(/^msg_[0-9a-f]{16}$/);
    expect(message.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const createdAt = Date.parse(message.createdAt as string);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1);
    expect(createdAt).toBeLessThanOrEqual(Date.now());
    const second = await call(sandbox, 'POST', '/v1/messages', { body: '{"message":"again"}' });
    expect((second.json as { id: string }).id).not.toBe(message.id);
  });

  it.each([
    ['missing message', '{}', 'message: is required'],
    [
      'a numeric message',
      '{"message":42}',
      'message: Invalid input: expected string, received number',
    ],
    [
      'a null message',
      '{"message":null}',
      'message: Invalid input: expected string, received null',
    ],
  ])('rejects %s with 400', async (_name, body, message) => {
    const res = await call(await start(), 'POST', '/v1/messages', { body });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(errorBody(400, 'invalid_body', message));
  });

  it('rejects invalid JSON, and a content type that is not JSON, with 400 (spec 4.4)', async () => {
    const sandbox = await start();
    const bad = await call(sandbox, 'POST', '/v1/messages', { body: '{"message":"hi"' });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual(INVALID_JSON);
    const text = await call(sandbox, 'POST', '/v1/messages', { body: 'hi', type: 'text/plain' });
    expect(text.status).toBe(400);
    expect(text.json).toEqual(
      errorBody(400, 'invalid_content_type', 'Content-Type must be application/json'),
    );
  });
});

describe('GET /v1/store/orders', () => {
  it('is an empty array without a seed', async () => {
    const res = await call(await start(), 'GET', '/v1/store/orders');
    expect(res.status).toBe(200);
    expect(res.json).toEqual([]);
  });

  it('lists the seeded orders, which reference seeded pets', async () => {
    const res = await call(await start({ seed: 5 }), 'GET', '/v1/store/orders');
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      {
        id: 1,
        petId: 1,
        quantity: 1,
        status: 'placed',
        shipDate: '2026-01-05T00:00:00.000Z',
        complete: false,
      },
      {
        id: 2,
        petId: 2,
        quantity: 2,
        status: 'approved',
        shipDate: '2026-01-06T00:00:00.000Z',
        complete: false,
      },
      {
        id: 3,
        petId: 3,
        quantity: 3,
        status: 'delivered',
        shipDate: '2026-01-07T00:00:00.000Z',
        complete: true,
      },
    ]);
  });
});

describe('authentication', () => {
  const routes: [string, string, string?][] = [
    ['GET', '/v1/pets'],
    ['POST', '/v1/pets', '{"name":"Rex","categoryId":1}'],
    ['GET', '/v1/pets/1'],
    ['POST', '/v1/messages', '{"message":"hi"}'],
    ['GET', '/v1/store/orders'],
  ];
  const badAuth: (string | null)[] = [
    null,
    'Bearer wrong-key',
    `Bearer ${KEY}x`,
    `Bearer ${KEY.slice(0, -1)}`,
    'Bearer',
    `Basic ${KEY}`,
    `Basic ${Buffer.from(`user:${KEY}`).toString('base64')}`,
    KEY,
  ];

  it.each(routes)('%s %s answers 401 to a missing or wrong key', async (method, urlPath, body) => {
    const sandbox = await start({ seed: 1 });
    for (const auth of badAuth) {
      const res = await call(sandbox, method, urlPath, { auth, ...(body && { body }) });
      expect(res.status, String(auth)).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json).toEqual(UNAUTHORIZED);
    }
    // Nothing was created by the refused requests.
    expect(ids((await call(sandbox, 'GET', '/v1/pets')).json)).toEqual([1]);
    const good = await call(sandbox, method, urlPath, { ...(body && { body }) });
    expect(good.status).toBe(method === 'POST' ? 201 : 200);
  });

  it('accepts the scheme in any case, and more than one space after it (RFC 6750)', async () => {
    const sandbox = await start();
    expect((await call(sandbox, 'GET', '/v1/pets', { auth: `bearer ${KEY}` })).status).toBe(200);
    expect((await call(sandbox, 'GET', '/v1/pets', { auth: `Bearer   ${KEY}` })).status).toBe(200);
  });

  it('checks the key before the method, the content type and the body', async () => {
    const sandbox = await start();
    const results = await Promise.all([
      call(sandbox, 'DELETE', '/v1/pets', { auth: null }),
      call(sandbox, 'POST', '/v1/pets', { auth: null, body: 'hi', type: 'text/plain' }),
      call(sandbox, 'POST', '/v1/pets', { auth: null, body: '{' }),
      call(sandbox, 'POST', '/v1/pets', { auth: null, body: 'x'.repeat(2 * 1024 * 1024) }),
      call(sandbox, 'GET', '/v1/pets?limit=0', { auth: null }),
      call(sandbox, 'GET', '/v1/pets/abc', { auth: null }),
    ]);
    for (const res of results) expect(res.json).toEqual(UNAUTHORIZED);
  });
});

describe('routing', () => {
  it.each([
    '/v1/nope',
    '/',
    '/pets',
    '/v1',
    '/v1/pets/',
    '/v1/pets/1/extra',
    '/v1/store',
    '/v2/pets',
  ])('answers 404 to unknown path %s, with or without a key', async (urlPath) => {
    const sandbox = await start();
    for (const auth of [AUTH, null]) {
      const res = await call(sandbox, 'GET', urlPath, { auth });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json).toEqual(errorBody(404, 'not_found', `no such path: ${urlPath}`));
    }
  });

  it('ignores the query string when matching paths', async () => {
    const res = await call(await start(), 'GET', '/v1/store/orders?x=1');
    expect(res.status).toBe(200);
  });

  it.each([
    ['DELETE', '/v1/pets', 'GET, HEAD, POST'],
    ['PUT', '/v1/pets', 'GET, HEAD, POST'],
    ['OPTIONS', '/v1/pets', 'GET, HEAD, POST'],
    ['POST', '/v1/pets/1', 'GET, HEAD, PUT, PATCH, DELETE'],
    ['OPTIONS', '/v1/pets/1', 'GET, HEAD, PUT, PATCH, DELETE'],
    ['GET', '/v1/messages', 'POST'],
    ['HEAD', '/v1/messages', 'POST'],
    ['POST', '/v1/store/orders', 'GET, HEAD'],
  ])('answers 405 to %s %s with Allow: %s', async (method, urlPath, allow) => {
    const res = await call(await start(), method, urlPath);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.headers.deprecation).toBeUndefined();
    // HEAD responses carry no body.
    if (method === 'HEAD') expect(res.text).toBe('');
    else {
      expect(res.json).toEqual(
        errorBody(405, 'method_not_allowed', `${method} is not allowed on ${urlPath}`),
      );
    }
  });

  it.each([
    ['/v1/pets?limit=2', 200],
    ['/v1/pets?limit=0', 400],
    ['/v1/pets/2', 200],
    ['/v1/pets/99', 404],
    ['/v1/pets/abc', 400],
    ['/v1/store/orders', 200],
  ])('answers HEAD %s like GET, without the body', async (urlPath, status) => {
    const sandbox = await start({ seed: 3 });
    const get = await call(sandbox, 'GET', urlPath);
    const head = await call(sandbox, 'HEAD', urlPath);
    expect(get.status).toBe(status);
    expect(head.status).toBe(status);
    expect(head.text).toBe('');
    // Date changes, and undici closes a connection after HEAD: the rest must be the same.
    const endToEnd = ({ date, connection, 'keep-alive': _, ...rest }: Response['headers']) => rest;
    expect(endToEnd(head.headers)).toEqual(endToEnd(get.headers));
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
  });

  it('answers HEAD without a key with 401 and no body', async () => {
    const res = await call(await start(), 'HEAD', '/v1/pets', { auth: null });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.text).toBe('');
  });

  it('decodes percent-escapes in the pet id', async () => {
    const res = await call(await start({ seed: 3 }), 'GET', '/v1/pets/%31');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
  });

  it('stays up after every kind of bad request', async () => {
    const sandbox = await start({ seed: 2 });
    const bad: [string, string, CallOptions, number][] = [
      ['GET', '/v1/pets', { auth: null }, 401],
      ['GET', '/v1/pets?limit=abc', {}, 400],
      ['GET', '/v1/pets/abc', {}, 400],
      ['GET', '/v1/pets/99', {}, 404],
      ['GET', '/nope', {}, 404],
      ['PATCH', '/v1/pets', {}, 405],
      ['DELETE', '/v1/pets/99', {}, 404],
      ['POST', '/v1/pets', { body: '{"name":' }, 400],
      ['POST', '/v1/pets', { body: '{"name":1}' }, 400],
      ['POST', '/v1/pets', { body: 'x', type: 'text/plain' }, 415],
      ['POST', '/v1/pets', { body: 'x'.repeat(3 * 1024 * 1024) }, 413],
      ['POST', '/v1/messages', { body: '[]' }, 400],
    ];
    for (const [method, urlPath, options, status] of bad) {
      expect((await call(sandbox, method, urlPath, options)).status).toBe(status);
    }
    expect(await rawRequest(sandbox.port, 'NOT HTTP AT ALL\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\n\{"code":"bad_request","message":"malformed or incomplete HTTP request","status":400\}$/,
    );
    // A method node:http does not know: 501 (it was 400, "malformed or incomplete").
    expect(
      await rawRequest(
        sandbox.port,
        `FOO /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\n\r\n`,
      ),
    ).toMatch(
      /^HTTP\/1\.1 501 Not Implemented\r\n[\s\S]*\r\n\r\n\{"code":"not_implemented","message":"FOO is not a method this server implements","status":501\}$/,
    );
    // Headers larger than node:http accepts (16 KiB): 431, with an Error body.
    expect(
      await rawRequest(
        sandbox.port,
        `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
    ).toMatch(
      /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n[\s\S]*\r\n\r\n\{"code":"headers_too_large","message":"the request headers are larger than 16384 bytes","status":431\}$/,
    );
    // The absolute form of a request target is the same request (RFC 9112, 3.2.2).
    expect(
      await rawRequest(
        sandbox.port,
        `GET http://localhost:${sandbox.port}/v1/store/orders HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nAuthorization: ${AUTH}\r\n\r\n`,
      ),
    ).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\[\{"id":1,[\s\S]*\]$/);
    // Node would answer these two itself, with an empty body.
    expect(
      await rawRequest(sandbox.port, `GET /v1/pets HTTP/1.1\r\nAuthorization: ${AUTH}\r\n\r\n`),
    ).toMatch(
      /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\n\{"code":"bad_request","message":"an HTTP\/1\.1 request needs a Host header","status":400\}$/,
    );
    expect(
      await rawRequest(
        sandbox.port,
        `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nAuthorization: ${AUTH}\r\nExpect: foo\r\n` +
          'Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      ),
    ).toMatch(
      /^HTTP\/1\.1 417 Expectation Failed\r\n[\s\S]*\r\n\r\n\{"code":"expectation_failed","message":"Expect: foo is not supported \(only 100-continue\)","status":417\}$/,
    );
    const good = await call(sandbox, 'POST', '/v1/pets', { body: '{"name":"Ok","categoryId":1}' });
    expect(good.status).toBe(201);
    expect(ids((await call(sandbox, 'GET', '/v1/pets')).json)).toEqual([1, 2, 3]);
  });
});

describe('the Host a request names (DNS rebinding)', () => {
  /** The status and body of a GET of /v1/pets with the key and this Host header. */
  const asHost = async (port: number, host: string, target = '/v1/pets') => {
    const answer = await rawRequest(
      port,
      `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${AUTH}\r\nConnection: close\r\n\r\n`,
    );
    return `${answer.split(' ')[1]} ${answer.slice(answer.indexOf('\r\n\r\n') + 4)}`;
  };

  it('answers its own address: 127.0.0.1, localhost and [::1] with its port, in any case', async () => {
    const { port } = await start({ seed: 1 });
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LocalHost:${port}`,
      `[::1]:${port}`,
    ]) {
      expect(await asHost(port, host), host).toMatch(/^200 \[\{"id":1,/);
    }
  });

  it('answers any other name, port or form with 421 and an Error body, before the key is checked', async () => {
    const { port } = await start({ seed: 1 });
    const refused = `421 {"code":"misdirected_request","message":"this sandbox answers only requests addressed to it (Host: 127.0.0.1:${port})","status":421}`;
    for (const host of [
      `rebound.example:${port}`,
      'rebound.example',
      '127.0.0.1',
      `127.0.0.1:${port + 1}`,
      `localhost.:${port}`,
      `127.0.0.2:${port}`,
      `[::2]:${port}`,
      `x@127.0.0.1:${port}`,
    ]) {
      expect(await asHost(port, host), host).toBe(refused);
    }
    // In the absolute form the target's authority is the request's host (RFC 9112, 3.2.2).
    expect(await asHost(port, `127.0.0.1:${port}`, 'http://rebound.example/v1/pets')).toBe(refused);
    expect(await asHost(port, 'rebound.example', `http://127.0.0.1:${port}/v1/pets`)).toMatch(
      /^200 /,
    );
  });

  it('answers the --host it was given', async () => {
    const { port } = await start({ host: '127.0.0.2', seed: 1 });
    const answer = await rawRequest(
      port,
      `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.2:${port}\r\nAuthorization: ${AUTH}\r\n\r\n`,
      '127.0.0.2',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });
});

describe('request log', () => {
  it('gets one line per request and never the key', async () => {
    const lines: string[] = [];
    const sandbox = await start({ log: (line) => lines.push(line), seed: 1 });
    await call(sandbox, 'GET', '/v1/pets?limit=5');
    await call(sandbox, 'GET', '/v1/pets/1');
    await call(sandbox, 'GET', '/v1/pets', { auth: 'Bearer wrong' });
    await call(sandbox, 'POST', '/v1/pets', { body: '{"name":"A","categoryId":1}' });
    await call(sandbox, 'GET', `/v1/nope?api_key=${KEY}`);
    // A client that hangs up in the middle of its body.
    const cutOff = await rawRequest(
      sandbox.port,
      `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nAuthorization: ${AUTH}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"message"',
    );
    expect(cutOff).toMatch(/^HTTP\/1\.1 400 /);
    // An Expect node:http does not know reaches the same handler, and the same log.
    const expectation = await rawRequest(
      sandbox.port,
      `POST /v1/pets?secret=1 HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nAuthorization: ${AUTH}\r\nExpect: foo\r\n` +
        'Content-Length: 0\r\nConnection: close\r\n\r\n',
    );
    expect(expectation).toMatch(/^HTTP\/1\.1 417 /);
    await sandbox.close();
    expect(lines).toHaveLength(7);
    const pattern = /^([A-Z]+) (\S+) (\d{3}|aborted) \d+ms$/;
    expect(lines.map((line) => pattern.exec(line)?.slice(1))).toEqual([
      ['GET', '/v1/pets', '200'],
      ['GET', '/v1/pets/1', '200'],
      ['GET', '/v1/pets', '401'],
      ['POST', '/v1/pets', '201'],
      ['GET', '/v1/nope', '404'],
      ['POST', '/v1/messages', 'aborted'],
      ['POST', '/v1/pets', '417'],
    ]);
    for (const line of lines) expect(line).not.toContain(KEY);
  });
});

/** Sends raw bytes, half-closes, and returns everything the server answers before closing. */
function rawRequest(port: number, text: string, address = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, address, () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}
