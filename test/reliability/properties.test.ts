// Property-based tests: whatever the server sends, the terminal is safe; whatever a user
// types, the CLI runs or exits 2 with one line, and never sends an invalid value.
import fc from 'fast-check';
import nock from 'nock';
import { beforeEach, describe, expect, it } from 'vitest';
import { PET_COLUMNS } from '../../src/commands/pets/columns.js';
import { parseJson, stringifyJson } from '../../src/json.js';
import { renderRows, writeJson } from '../../src/render/output.js';
import { INT64_MAX, PET_STATUSES, type Pet } from '../../src/schemas.js';
import { baseEnv, run, testIO } from '../helpers/cli.js';

const API = 'https://api.animal-store.example';

/** Any text a server could put in a field: every code point, control characters included. */
const anyText = fc.string({ unit: 'binary', maxLength: 40 });
const int64 = fc.oneof(fc.maxSafeInteger(), fc.bigInt({ min: 2n ** 53n, max: INT64_MAX }));
const pet = fc.record({
  id: int64,
  name: anyText,
  categoryId: int64,
  status: fc.constantFrom(...PET_STATUSES),
});

// Our own colour codes are SGR sequences; anything else starting with ESC came from the data.
const OWN_SGR = /\u001b\[\d+m/g;
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

async function render(pets: Pet[], tty: boolean, color: boolean): Promise<string> {
  const { io, out } = testIO({ tty: { stdout: tty } }, {});
  io.colorOut = color;
  await renderRows(io, pets, PET_COLUMNS, { json: false });
  return out.text;
}

describe('rendering server text', () => {
  it('never lets a control character or escape sequence through, in any mode', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(pet, { maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        async (pets, tty, color) => {
          const text = (await render(pets, tty, color)).replace(OWN_SGR, '');
          expect(text).not.toMatch(FORBIDDEN);
          expect(text).not.toContain('\u001b');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the tab-separated layout: one line per row, one tab between columns', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pet, { maxLength: 5 }), async (pets) => {
        const lines = (await render(pets, false, false)).split('\n');
        expect(lines.pop()).toBe('');
        expect(lines).toHaveLength(pets.length + 1);
        for (const line of lines) expect(line.split('\t')).toHaveLength(PET_COLUMNS.length);
      }),
      { numRuns: 300 },
    );
  });

  it('writes --json that parses back to the same value, int64 ids included', async () => {
    const value = fc.array(fc.record({ pet, extra: fc.jsonValue() }), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(value, fc.boolean(), async (generated, tty) => {
        // What the server sent, as the client parsed it (integers beyond 2^53 become BigInt).
        const data = parseJson(stringifyJson(generated));
        const { io, out } = testIO({ tty: { stdout: tty } }, {});
        await writeJson(io, data);
        expect(parseJson(out.text)).toEqual(data);
      }),
      { numRuns: 300 },
    );
  });
});

/** nock 15 passes a fetch Request here, though its README shows a path string. */
function requestUrl(uri: unknown): URL {
  return new URL(typeof uri === 'string' ? uri : (uri as { url: string }).url, API);
}

describe('parsing what users type', () => {
  const requests: string[] = [];

  // Stands in for the API for whatever a valid command sends; optional, as a run of random
  // arguments may send no GET or no POST at all (test/setup.ts fails on unused interceptors).
  beforeEach(() => {
    nock(API)
      .persist()
      .get(/.*/)
      .optionally()
      .reply(200, (uri: unknown) => {
        const url = requestUrl(uri);
        requests.push(url.pathname + url.search);
        return url.pathname.startsWith('/v1/pets/') ? '{"id":1,"name":"x","categoryId":1}' : '[]';
      })
      .post(/.*/)
      .optionally()
      .reply(201, (uri: unknown) => {
        requests.push(requestUrl(uri).pathname);
        return '{"id":1,"name":"x","categoryId":1}';
      });
  });

  const word = fc.oneof(
    anyText,
    fc.constantFrom(
      '--json',
      '--status',
      '--limit',
      '--name',
      '--category-id',
      '--bogus',
      '-p',
      '--',
      '-',
    ),
    fc.integer({ min: -5, max: 300 }).map(String),
    fc.constantFrom(...PET_STATUSES),
  );
  const argv = fc.tuple(
    fc.constantFrom(['pets', 'list'], ['pets', 'add'], ['pets', 'get'], ['orders', 'list']),
    fc.array(word, { maxLength: 6 }),
  );

  it('either runs with valid values or exits 2 with one line, sending nothing, never a stack trace', async () => {
    await fc.assert(
      fc.asyncProperty(argv, async ([command, rest]) => {
        requests.length = 0;
        const result = await run([...command, ...rest], { env: baseEnv({ STORE_API_KEY: 'k' }) });
        expect(result.stderr).not.toMatch(/\n\s+at /);
        if (result.code === 2) {
          // One line (`error: …` and perhaps its `hint: …`, or its JSON form under --json), or
          // the help of an incomplete command.
          expect(result.stderr).toMatch(
            /^(error: [^\n]*\n(hint: [^\n]*\n)?|\{"error":[^\n]*\}\n|Usage: store [\s\S]*)$/,
          );
          expect(requests).toEqual([]);
          return;
        }
        expect(result.code).toBe(0);
        for (const request of requests) {
          const url = new URL(request.split(' ')[0] as string, API);
          const limit = url.searchParams.get('limit');
          if (limit !== null) expect(Number(limit)).toBeGreaterThanOrEqual(1);
          if (limit !== null) expect(Number(limit)).toBeLessThanOrEqual(100);
          const status = url.searchParams.get('status');
          if (status !== null) expect(PET_STATUSES).toContain(status);
          if (url.pathname.startsWith('/v1/pets/'))
            expect(url.pathname).toMatch(/^\/v1\/pets\/-?\d+$/);
        }
      }),
      { numRuns: 400 },
    );
  });
});
