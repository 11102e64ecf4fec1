// Property-based: valid, boundary and hostile requests to every operation of the sandbox
// (methods, paths, query strings, headers, bodies). Only what the spec promises is asserted:
// no 5xx for any of them, an Error body whose status is the HTTP status on every failure,
// limit 1–100, 401 without the key, 421 for a Host that is not the sandbox's own (DNS
// rebinding), and int64 values exact from request to response.
import { METHODS } from 'node:http';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { AUTH, KEY, start } from './helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await start({ seed: 30 });
});
afterAll(async () => {
  await sandbox.close();
});

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const int64 = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.constantFrom(INT64_MIN, INT64_MAX, 0n, -1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n),
);
const outOfRange = fc.constantFrom(INT64_MAX + 1n, INT64_MIN - 1n, 10n ** 30n);
const petIdText = fc.oneof(
  fc.integer({ min: -3, max: 40 }).map(String),
  int64.map(String),
  outOfRange.map(String),
  fc.constantFrom('abc', '1.5', '1e3', '%31', '%2F', '%ZZ', '%00', '-0', '+1', '0x10', ''),
  fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/),
);
const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{0,10}$/),
  fc.constantFrom('%20', '%2e%2e', '..', '.', '%F0%9F%90%88', '%ff', '%'),
);
const path = fc.oneof(
  fc.constantFrom('/v1/pets', '/v1/messages', '/v1/store/orders', '/v1/pets/'),
  petIdText.map((id) => `/v1/pets/${id}`),
  fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
  fc.array(segment, { maxLength: 3 }).map((parts) => `/v1/${parts.join('/')}`),
);
const queryValue = fc.oneof(
  fc.integer({ min: -5, max: 205 }).map(String),
  fc.constantFrom('available', 'pending', 'sold', 'SOLD', '', '1e1', ' 5', '%ff'),
  fc.stringMatching(/^[A-Za-z0-9%._~-]{0,8}$/),
);
const query = fc
  .array(fc.tuple(fc.constantFrom('limit', 'status', 'x', 'limit[]', ''), queryValue), {
    maxLength: 3,
  })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));
const method = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
  },
  fc.stringMatching(/^[A-Z]{3,8}$/).filter((name) => name !== 'CONNECT'),
);
const auth = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | undefined>(AUTH) },
  fc.constantFrom(undefined, 'Bearer', `Bearer ${KEY}x`, `Basic ${KEY}`, KEY, `bearer  ${KEY}`),
);
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | undefined>('application/json') },
  fc.constantFrom(
    undefined,
    'application/merge-patch+json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/jsonx',
  ),
);
const name = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '\t\n', 'Rex', 'a\u0000b', '\ud800', '🐈'),
);
const status = fc.constantFrom('available', 'pending', 'sold', 'lost', null, 5);
// JSON text for a NewPet-like body, with int64 values written exactly (as digits).
const petBody = fc
  .record(
    { name, categoryId: fc.oneof(int64, outOfRange), status },
    { requiredKeys: ['name', 'categoryId'] },
  )
  .map(({ categoryId, ...rest }) =>
    JSON.stringify(rest).replace(
      /^\{/,
      `{"categoryId":${categoryId}${Object.keys(rest).length ? ',' : ''}`,
    ),
  );
const body = fc.oneof(
  { weight: 4, arbitrary: petBody },
  fc.json(),
  fc.constantFrom(
    '{"message":"hi"}',
    '{"message":5}',
    '{',
    '',
    'null',
    '[]',
    '{"name":"R","categoryId":1e16}',
  ),
  fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
);

// The sandbox's own names (with its port, filled in when sent: `PORT`) and others'.
const OWN_HOSTS = ['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT', '[::1]:PORT'];
const host = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...OWN_HOSTS) },
  fc.constantFrom(
    'rebound.example:PORT',
    'rebound.example',
    '127.0.0.1',
    '127.0.0.1:1',
    '127.0.0.2:PORT',
    '[::2]:PORT',
    'localhost.:PORT',
  ),
  fc.stringMatching(/^[a-z0-9.-]{1,20}(:[0-9]{1,5})?$/),
);

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const KNOWN_PATH = /^\/v1\/(pets|pets\/[^/]+|messages|store\/orders)$/;

interface Exchange {
  method: string;
  /** The Host header, `PORT` standing for the sandbox's port. */
  host?: string;
  path: string;
  query: string;
  auth: string | undefined;
  type: string | undefined;
  body: string | Buffer | undefined;
}

const exchange = fc.record({
  method,
  host,
  path,
  query,
  auth,
  type: contentType,
  body: fc.option(body, { nil: undefined }),
});

async function send(ex: Exchange) {
  const headers: Record<string, string> = {};
  if (ex.host !== undefined) headers.host = ex.host.replace('PORT', String(sandbox.port));
  if (ex.auth !== undefined) headers.authorization = ex.auth;
  if (ex.type !== undefined) headers['content-type'] = ex.type;
  const hasBody = ex.body !== undefined && ex.method !== 'GET' && ex.method !== 'HEAD';
  const res = await request(`${new URL(sandbox.url).origin}${ex.path}${ex.query}`, {
    method: ex.method as 'GET',
    headers,
    ...(hasBody ? { body: ex.body } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

describe('the sandbox, under any request', () => {
  it('answers every request without a 5xx (but 501 to a method it does not know), and every failure with a matching Error body', async () => {
    await fc.assert(
      fc.asyncProperty(exchange, async (ex) => {
        const res = await send(ex);
        // A method node:http does not know (AAA) is refused by its parser: 501 not_implemented.
        if (METHODS.includes(ex.method)) {
          expect(res.status, `${ex.method} ${ex.path}${ex.query}`).toBeLessThan(500);
        } else expect(res.status, `${ex.method} ${ex.path}${ex.query}`).toBe(501);
        // The path as sent: the URL parser drops dot segments (/v1/pets/. is /v1/pets/).
        const sent = new URL(`${new URL(sandbox.url).origin}${ex.path}${ex.query}`).pathname;
        const known = KNOWN_PATH.test(sent) && HTTP_METHODS.includes(ex.method);
        const own = ex.host === undefined || OWN_HOSTS.includes(ex.host);
        if (!own && METHODS.includes(ex.method)) expect(res.status, ex.host).toBe(421);
        if (own && known && ex.auth !== AUTH && !/^bearer +\S+ *$/i.test(ex.auth ?? '')) {
          expect(res.status).toBe(401);
        }
        if (res.status >= 400 && ex.method !== 'HEAD') {
          expect(res.headers['content-type']).toBe('application/json');
          const error = parseJson(res.text) as Record<string, unknown>;
          expect(error).toEqual({
            code: expect.any(String),
            message: expect.any(String),
            status: res.status,
          });
        }
        if (ex.method === 'HEAD') expect(res.text).toBe('');
      }),
      {
        numRuns: 500,
        // Found by a CI run: the test took /v1/pets/. for a pet's path (the parser drops the dot).
        examples: [
          [
            {
              method: 'GET',
              host: '127.0.0.1:PORT',
              path: '/v1/pets/.',
              query: '',
              auth: undefined,
              type: 'application/json',
              body: undefined,
            },
          ],
        ],
      },
    );
  });

  it('enforces limit 1–100 on GET /v1/pets', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -20, max: 220 }), async (limit) => {
        const res = await send({
          method: 'GET',
          path: '/v1/pets',
          query: `?limit=${limit}`,
          auth: AUTH,
          type: undefined,
          body: undefined,
        });
        if (limit < 1 || limit > 100) {
          expect(res.status).toBe(400);
          return;
        }
        expect(res.status).toBe(200);
        const pets = parseJson(res.text) as unknown[];
        expect(pets.length).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps every int64 exact from POST to the response and to GET', async () => {
    await fc.assert(
      fc.asyncProperty(int64, async (categoryId) => {
        const created = await send({
          method: 'POST',
          path: '/v1/pets',
          query: '',
          auth: AUTH,
          type: 'application/json',
          body: `{"name":"Big","categoryId":${categoryId}}`,
        });
        expect(created.status).toBe(201);
        const pet = parseJson(created.text) as { id: number | bigint; categoryId: number | bigint };
        expect(BigInt(pet.categoryId)).toBe(categoryId);
        const got = await send({
          method: 'GET',
          path: `/v1/pets/${pet.id}`,
          query: '',
          auth: AUTH,
          type: undefined,
          body: undefined,
        });
        expect(got.text).toBe(created.text);
      }),
      { numRuns: 100 },
    );
  });
});
