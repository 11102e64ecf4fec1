// Tables on a terminal fit its width: text columns cut with …, widest first, the ID never;
// tab-separated and JSON output are never cut.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PET_COLUMNS } from '../../src/commands/pets/columns.js';
import { fitColumns } from '../../src/render/layout.js';
import { loadTable, renderAny, renderRows, rowWriter } from '../../src/render/output.js';
import { textWidth } from '../../src/render/width.js';
import type { Pet } from '../../src/schemas.js';
import { terminalColumns } from '../../src/terminal.js';
import { baseEnv, run, testIO } from '../helpers/cli.js';
import { api, KEY } from '../helpers/http.js';

const LONG = 'Bartholomew the Magnificent, Destroyer of Slippers';
const CJK = '小狗小狗小狗小狗小狗小狗';
const EMOJI = '🐶🐕\u200d🦺 party 🎉🎉🎉🎉';
const RTL = 'שלום עולם מה נשמע';
const BODY = JSON.stringify([
  { id: 1, name: LONG, categoryId: 12, status: 'available' },
  { id: 2, name: CJK, categoryId: 3, status: 'pending' },
  { id: 3, name: EMOJI, categoryId: 4, status: 'sold' },
  { id: 4, name: RTL, categoryId: 5, status: 'available' },
]).replace('"id":1,', '"id":9007199254740993,');
const LRM = '\u200e';
const NO_COLOR = { NO_COLOR: '1' };

const env = (extra = {}) => baseEnv({ STORE_API_KEY: KEY, NO_COLOR: '1', ...extra });

async function petsList(columns: number, options: { tty?: boolean; json?: boolean } = {}) {
  api().get('/v1/pets').reply(200, BODY);
  const argv = options.json ? ['--json', 'pets', 'list'] : ['pets', 'list'];
  return run(argv, { env: env(), tty: options.tty ?? true, columns });
}

describe('a table on a terminal', () => {
  it('is drawn whole when it fits (200 columns)', async () => {
    const result = await petsList(200);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        'ID                NAME                                                CATEGORY  STATUS',
        `9007199254740993  ${LONG}  12        available`,
        `2                 ${CJK}                            3         pending`,
        `3                 ${EMOJI}                                 4         sold`,
        `4                 ${LRM}${RTL}${LRM}                                   5         available`,
        '',
      ].join('\n'),
    );
  });

  it('cuts the widest text column first at 80 columns', async () => {
    const result = await petsList(80);
    expect(result.stdout).toBe(
      [
        'ID                NAME                                       CATEGORY  STATUS',
        '9007199254740993  Bartholomew the Magnificent, Destroyer o…  12        available',
        `2                 ${CJK}                   3         pending`,
        `3                 ${EMOJI}                        4         sold`,
        `4                 ${LRM}${RTL}${LRM}                          5         available`,
        '',
      ].join('\n'),
    );
  });

  it('cuts wide characters whole at 60 columns', async () => {
    const result = await petsList(60);
    expect(result.stdout).toBe(
      [
        'ID                NAME                   CATEGORY  STATUS',
        '9007199254740993  Bartholomew the Magn…  12        available',
        '2                 小狗小狗小狗小狗小狗…  3         pending',
        `3                 ${EMOJI}    4         sold`,
        `4                 ${LRM}${RTL}${LRM}      5         available`,
        '',
      ].join('\n'),
    );
  });

  it('cuts every text column to the same width at 40 columns, never the ID or the category id', async () => {
    // The category id was cut too: `922337203685477…` names no category.
    const result = await petsList(40);
    expect(result.stdout).toBe(
      [
        'ID                NAME   CATEGORY  STAT…',
        '9007199254740993  Bart…  12        avai…',
        '2                 小狗…  3         pend…',
        '3                 🐶🐕\u200d🦺…  4         sold',
        `4                 ${LRM}שלום…${LRM}  5         avai…`,
        '',
      ].join('\n'),
    );
  });

  it('colours a cut status by its full value', async () => {
    api().get('/v1/pets').reply(200, BODY);
    const result = await run(['pets', 'list'], {
      env: env({ NO_COLOR: undefined }),
      tty: true,
      columns: 40,
    });
    expect(result.stdout.split('\n')[1]).toBe(
      '9007199254740993  Bart…  12        \u001b[32mavai…\u001b[39m',
    );
  });

  it.each([40, 60, 80, 200])(
    'gives no line wider than %i cells, and one line per row',
    async (width) => {
      const lines = (await petsList(width)).stdout.split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(5);
      for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(width);
    },
  );

  it('never cuts when stdout is a pipe, whatever the width', async () => {
    const result = await petsList(40, { tty: false });
    expect(result.stdout).toBe(
      [
        'ID\tNAME\tCATEGORY\tSTATUS',
        `9007199254740993\t${LONG}\t12\tavailable`,
        `2\t${CJK}\t3\tpending`,
        `3\t${EMOJI}\t4\tsold`,
        `4\t${RTL}\t5\tavailable`,
        '',
      ].join('\n'),
    );
  });

  it('never cuts --json, on a terminal either', async () => {
    const result = await petsList(40, { json: true });
    expect(JSON.parse(result.stdout.replace('9007199254740993', '"big"'))).toEqual(
      JSON.parse(BODY.replace('9007199254740993', '"big"')),
    );
    expect(result.stdout).toContain(LONG);
  });

  it('keeps the rows of any data within any width (property)', async () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.constantFrom(LONG, CJK, EMOJI, RTL, 'e\u0301'.repeat(20), '\u202egnp.exe'),
      fc.string({ unit: 'binary', maxLength: 30 }),
    );
    const pet = fc.record({
      id: fc.nat(),
      name: text,
      categoryId: fc.nat(),
      status: text,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(pet, { maxLength: 6 }),
        fc.integer({ min: 30, max: 200 }),
        async (pets, width) => {
          const { io, out } = testIO({ tty: { stdout: true }, columns: width }, NO_COLOR);
          await renderRows(io, pets as Pet[], PET_COLUMNS, { json: false });
          const lines = out.text.split('\n');
          expect(lines.pop()).toBe('');
          expect(lines).toHaveLength(pets.length + 1);
          for (const [i, line] of lines.entries()) {
            expect(textWidth(line)).toBeLessThanOrEqual(width);
            if (i > 0)
              expect(line.startsWith(`${pets[i - 1]?.id} `) || line === `${pets[i - 1]?.id}`).toBe(
                true,
              );
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('fitColumns', () => {
  it('keeps natural widths when they fit', () => {
    expect(fitColumns([2, 4, 8], [true, false, false], 20)).toEqual({
      shown: 3,
      widths: [2, 4, 8],
    });
  });

  it('cuts the widest first and gives the rest of the width to the leftmost', () => {
    // budget 30 - 4 gaps... 3 columns: 30 - 2*2 - 2 = 24 for 10, 30 → 10 + 14
    expect(fitColumns([2, 10, 30], [true, false, false], 30)).toEqual({
      shown: 3,
      widths: [2, 10, 14],
    });
    // 3 cut columns at 6 or 7: 6 + 7 + 7 = 20 → the leftmost ones get the extra cells
    expect(fitColumns([20, 20, 20], [false, false, false], 24)).toEqual({
      shown: 3,
      widths: [7, 7, 6],
    });
  });

  it('leaves out columns that cannot get their minimum, never a fixed first one', () => {
    expect(fitColumns([19, 10, 10, 10], [true, false, false, false], 30)).toEqual({
      shown: 2,
      widths: [19, 9],
    });
    expect(fitColumns([19, 10], [true, false], 10)).toEqual({ shown: 1, widths: [19] });
  });
});

describe('the terminal width', () => {
  it.each([
    ['the terminal', {}, { isTTY: true, columns: 132 }, 132],
    ['COLUMNS over the terminal', { COLUMNS: '50' }, { isTTY: true, columns: 132 }, 50],
    ['COLUMNS off a terminal', { COLUMNS: '50' }, {}, 50],
    ['80 off a terminal', {}, {}, 80],
    ['80 when the terminal says 0', {}, { isTTY: true, columns: 0 }, 80],
    [
      'the terminal when COLUMNS is not a positive integer',
      { COLUMNS: 'wide' },
      { isTTY: true, columns: 100 },
      100,
    ],
    ['the terminal when COLUMNS is 0', { COLUMNS: '0' }, { isTTY: true, columns: 100 }, 100],
    ['the terminal when COLUMNS is empty', { COLUMNS: '' }, { isTTY: true, columns: 100 }, 100],
  ])('is %s', (_what, envVars, stream, expected) => {
    expect(terminalColumns(envVars, stream)).toBe(expected);
  });
});

describe('orders list: any JSON as a table', () => {
  it('builds the union of thousands of distinct keys in one pass; the terminal shows what fits', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ id: i, [`k${i}`]: 'v' }));
    const { io, out, err } = testIO({ tty: { stdout: true }, columns: 40 }, NO_COLOR);
    await renderAny(io, rows, { json: false });
    const lines = out.text.split('\n');
    expect(lines[0]).toBe('id    k0  k1  k2  k3  k4  k5  k6  k7  k8');
    expect(lines[1]).toBe('0     v');
    expect(lines[2]).toBe('1         v');
    expect(lines).toHaveLength(3002);
    expect(err.text).toBe(
      '2991 more columns not shown for lack of width; pipe the output or use --json to see all\n',
    );
  });

  it('never cuts an identifier: id, petId, pet_id', async () => {
    const { io, out } = testIO({ tty: { stdout: true }, columns: 68 }, NO_COLOR);
    const long = 9223372036854775807n;
    const row = { id: long, petId: long, pet_id: long, paid: 'yes, in full', note: 'x'.repeat(40) };
    await renderAny(io, [row], { json: false });
    expect(out.text).toBe(
      [
        'id                   petId                pet_id               paid',
        `${long}  ${long}  ${long}  yes,…`,
        '',
      ].join('\n'),
    );
  });

  it('cuts URLs in the middle (url, photoUrl, base_url) and other text at the end; headers at the end', async () => {
    const { io, out } = testIO({ tty: { stdout: true }, columns: 60 }, NO_COLOR);
    const url = 'https://photos.example/animals/rex-2026.jpg';
    const row = { url, photoUrl: url, base_url: url, note: url };
    await renderAny(io, [row], { json: false });
    expect(out.text).toBe(
      [
        'url             photoUrl        base_url       note',
        'https:/…26.jpg  https:/…26.jpg  https:…26.jpg  https://phot…',
        '',
      ].join('\n'),
    );
    // A header is a word: cut at its end.
    const narrow = testIO({ tty: { stdout: true }, columns: 24 }, NO_COLOR);
    await renderAny(narrow.io, [{ id: 1, thumbnail_url: url, photo_url: url }], { json: false });
    expect(narrow.out.text).toBe('id  thumbnai…  photo_url\n1   http….jpg  http….jpg\n');
    // `baseURL` too; `curl` is no URL key.
    const more = testIO({ tty: { stdout: true }, columns: 24 }, NO_COLOR);
    await renderAny(more.io, [{ id: 1, baseURL: url, curl: url }], { json: false });
    expect(more.out.text).toBe('id  baseURL    curl\n1   http….jpg  https://…\n');
  });

  it('says "1 more column" for one', async () => {
    const { io, err } = testIO({ tty: { stdout: true }, columns: 12 }, NO_COLOR);
    await renderAny(io, [{ id: 1, first: 'a'.repeat(8), second: 'b'.repeat(8) }], { json: false });
    expect(err.text).toBe(
      '1 more column not shown for lack of width; pipe the output or use --json to see all\n',
    );
  });

  it('keeps every column in tab-separated output', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ id: i, [`k${i}`]: 'v' }));
    const { io, out, err } = testIO({}, {});
    await renderAny(io, rows, { json: false });
    const lines = out.text.split('\n');
    expect(lines[0]).toBe(['id', ...rows.map((_, i) => `k${i}`)].join('\t'));
    expect(lines[2]).toBe(['1', '', 'v', ...Array(298).fill('')].join('\t'));
    expect(err.text).toBe('');
  });

  it.each([false, true])(
    'never crashes on keys such as __proto__ or toString (tty: %s)',
    async (tty) => {
      const hostile = fc.constantFrom(
        '__proto__',
        'constructor',
        'toString',
        'valueOf',
        'hasOwnProperty',
        '__defineGetter__',
        'prototype',
        'length',
      );
      const value = fc.oneof(
        fc.string(),
        fc.integer(),
        fc.constant(null),
        fc.constantFrom('__proto__', 'toString'),
      );
      const row = fc.dictionary(fc.oneof(hostile, fc.string({ maxLength: 4 })), value, {
        maxKeys: 6,
      });
      await fc.assert(
        fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 5 }), async (generated) => {
          // As the client parses a response: JSON.parse makes `__proto__` an own key.
          const data = JSON.parse(
            JSON.stringify(generated).replaceAll('"x__proto__"', '"__proto__"'),
          );
          const { io, out } = testIO({ tty: { stdout: tty } }, {});
          await renderAny(io, data, { json: false });
          const keys = new Set(data.flatMap((r: object) => Object.keys(r)));
          const lines = out.text.split('\n');
          expect(lines).toHaveLength(data.length + 2);
          if (!tty) expect(lines[0]?.split('\t')).toHaveLength(Math.max(keys.size, 1));
        }),
        { numRuns: 200 },
      );
    },
  );

  it('writes a backslash as \\\\ in tab-separated rows of any keys, in keys and values', async () => {
    const { io, out } = testIO({}, {});
    await renderAny(io, [{ 'a\\b': 'C:\\dogs', tab: '\t' }], { json: false });
    expect(out.text).toBe('a\\\\b\ttab\nC:\\\\dogs\t\\t\n');
  });

  it('shows an own __proto__ key and its value, and nothing for keys a row lacks', async () => {
    const data = JSON.parse('[{"__proto__":"p","id":1},{"toString":"t","id":2}]');
    const { io, out } = testIO({}, {});
    await renderAny(io, data, { json: false });
    expect(out.text).toBe('__proto__\tid\ttoString\np\t1\t\n\t2\tt\n');
  });
});

describe('big outputs', () => {
  it('draws a terminal table of 140,000 rows without overflowing the stack', async () => {
    const pets = Array.from({ length: 140_000 }, (_, i) => ({
      id: i,
      name: `Pet ${i}`,
      categoryId: 1,
      status: 'sold',
    }));
    const { io, out } = testIO({ tty: { stdout: true }, columns: 80 }, NO_COLOR);
    await renderRows(io, pets, PET_COLUMNS, { json: false });
    const lines = out.text.split('\n');
    expect(lines).toHaveLength(140_002);
    expect(lines[0]).toBe('ID      NAME        CATEGORY  STATUS');
    expect(lines[140_000]).toBe('139999  Pet 139999  1         sold');
  });
});

describe('rows ended at once (a second Ctrl-C, the process about to end)', () => {
  const PET = { id: 7, name: 'Rex', categoryId: 1, status: 'sold' } as const;

  it('draws a terminal table at once once its renderer is loaded, and only once', async () => {
    // (Before it is loaded nothing can be drawn without waiting: a bulk import loads it when
    // it starts, see test/e2e/terminal.test.ts.)
    await loadTable();
    const { io, out } = testIO({ tty: { stdout: true }, columns: 80 }, NO_COLOR);
    const writer = rowWriter(io, PET_COLUMNS);
    writer.write(PET);
    writer.endAtOnce();
    expect(out.text).toBe('ID  NAME  CATEGORY  STATUS\n7   Rex   1         sold\n');
    writer.endAtOnce();
    await writer.end();
    expect(out.text).toBe('ID  NAME  CATEGORY  STATUS\n7   Rex   1         sold\n');
  });

  it('writes rows held for chalk (FORCE_COLOR into a pipe) uncoloured, once', async () => {
    const { io, out } = testIO({}, { FORCE_COLOR: '1' });
    const writer = rowWriter(io, PET_COLUMNS);
    writer.write(PET);
    expect(out.text).toBe('');
    writer.endAtOnce();
    expect(out.text).toBe('ID\tNAME\tCATEGORY\tSTATUS\n7\tRex\t1\tsold\n');
    await writer.end();
    expect(out.text).toBe('ID\tNAME\tCATEGORY\tSTATUS\n7\tRex\t1\tsold\n');
  });
});
