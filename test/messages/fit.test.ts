// Every line fits (contract: Third wave: trust): on a terminal, what store writes to stderr is
// wrapped between words to the terminal's width, a word too long for a line cut with `…`;
// never a word broken across lines. A pipe gets every line whole.
import { describe, expect, it } from 'vitest';
import { fitLines, textWidth } from '../../src/render/width.js';
import { baseEnv, run } from '../helpers/cli.js';
import { api, KEY } from '../helpers/http.js';
import { tooWide, words } from '../helpers/wrap.js';

const WIDTHS = [40, 60, 80] as const;
const widest = (text: string) => Math.max(...text.split('\n').map(textWidth));

describe('stderr on a terminal', () => {
  it.each([20, ...WIDTHS])(
    'an error and its hint at %i columns: every word whole, no line wider',
    async (columns) => {
      const argv = ['-p', 'stagin', 'pets', 'list'];
      const piped = await run(argv, { env: baseEnv() });
      const screen = await run(argv, { env: baseEnv(), tty: true, columns });
      expect(piped.code).toBe(2);
      expect(screen.code).toBe(2);
      // An error line and a hint line in a pipe, each whole.
      expect(piped.stderr.split('\n')).toHaveLength(3);
      expect(widest(screen.stderr)).toBeLessThanOrEqual(columns);
      expect(tooWide(screen.stderr, columns)).toEqual([]);
      expect(words(screen.stderr)).toEqual(words(piped.stderr));
    },
  );

  /** stderr of a `pets add` (it says which profile it writes to) on a terminal this wide. */
  const addOnScreen = async (columns: number) => {
    const env = baseEnv({
      STORE_API_KEY: KEY,
      STORE_BASE_URL: 'https://api.animal-store.example/v1',
      NO_COLOR: '1',
    });
    const scope = api().post('/v1/pets').reply(201, '{"id":1,"name":"Rex","categoryId":1}');
    const result = await run(['pets', 'add', '--name', 'Rex', '--category-id', '1'], {
      env,
      tty: true,
      columns,
    });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
    return result.stderr;
  };

  it.each(WIDTHS)('the dim "Using profile" line at %i columns', async (columns) => {
    // It wrapped at 60 columns, by the terminal, mid-word.
    const stderr = await addOnScreen(columns);
    const notice =
      'Using profile production (https://api.animal-store.example/v1, from STORE_BASE_URL)';
    expect(words(stderr)).toEqual(words(notice));
    expect(widest(stderr)).toBeLessThanOrEqual(columns);
  });

  it('the notice at 60 columns, exactly', async () => {
    expect(await addOnScreen(60)).toBe(
      'Using profile production\n(https://api.animal-store.example/v1, from STORE_BASE_URL)\n',
    );
  });

  it('a pipe gets the same lines whole, however long', async () => {
    const result = await run(['-p', 'stagin', 'pets', 'list'], { env: baseEnv(), columns: 40 });
    expect(result.stderr).toBe(
      'error: unknown profile "stagin" (did you mean "staging"?)\nhint: see `store profile list`, or create it with `store profile set stagin --base-url <url>`\n',
    );
  });
});

describe('fitLines', () => {
  it('wraps between words, and cuts a word too long for any line in its middle', () => {
    const url = `https://example.test/${'a'.repeat(60)}/pets`;
    const fitted = fitLines(`error: cannot reach ${url}: connection refused\n`, 40);
    expect(fitted).toBe(
      'error: cannot reach\nhttps://example.test…aaaaaaaaaaaaa/pets:\nconnection refused\n',
    );
    expect(widest(fitted)).toBe(40);
  });

  it('keeps a style around a whole line on each of its pieces', () => {
    const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;
    expect(fitLines(`${dim('one two three four')}\n`, 9)).toBe(
      `${dim('one two')}\n${dim('three')}\n${dim('four')}\n`,
    );
  });

  it('leaves a line without its newline yet (a prompt), and text that fits, as they are', () => {
    expect(fitLines('API key for profile production with a long name: ', 10)).toBe(
      'API key for profile production with a long name: ',
    );
    expect(fitLines('short\nlines\n', 10)).toBe('short\nlines\n');
  });

  it('measures wide, combining, joined and flag characters as a terminal draws them', () => {
    // 12 cells each: 6 CJK characters; 12 letters with a combining accent; 6 family emoji
    // (joined with ZWJ); 6 flags.
    const wide = '漢字漢字漢字';
    const combining = 'e\u0301'.repeat(12);
    const family = '👨‍👩‍👧'.repeat(6);
    const flags = '🇫🇷'.repeat(6);
    for (const word of [wide, combining, family, flags]) {
      expect(textWidth(word)).toBe(12);
      const text = `${word} ${word} ${word}\n`;
      expect(fitLines(text, 25)).toBe(`${word} ${word}\n${word}\n`);
    }
  });
});

describe('a table on a terminal, with text of every kind', () => {
  const NAMES = [
    'שלום עולם חתול גדול',
    'مرحبا بالعالم قطة كبيرة',
    '👨‍👩‍👧 family of three cats',
    `${'e\u0301'.repeat(3)} combining name here long`,
    '🇫🇷🇩🇪 flags of two dogs here',
    'plain ascii name that is long',
  ];
  const pets = NAMES.map((name, i) => ({ id: i + 1, name, categoryId: 1, status: 'available' }));

  it.each(WIDTHS)(
    'at %i columns: every row as wide as the next, none wider, STATUS whole',
    async (columns) => {
      const scope = api().get('/v1/pets').reply(200, pets);
      const result = await run(['pets', 'list'], {
        env: baseEnv({ STORE_API_KEY: KEY, NO_COLOR: '1' }),
        tty: true,
        columns,
      });
      expect(scope.isDone()).toBe(true);
      expect(result.code).toBe(0);
      const rows = result.stdout.trimEnd().split('\n');
      expect(rows).toHaveLength(NAMES.length + 1);
      const widths = rows.slice(1).map(textWidth);
      expect(new Set(widths).size).toBe(1);
      expect(Math.max(...rows.map(textWidth))).toBeLessThanOrEqual(columns);
      // The columns after NAME start at the same cell in every row.
      const statusAt = (row: string) => textWidth(row.slice(0, row.lastIndexOf('available')));
      expect(new Set(rows.slice(1).map(statusAt)).size).toBe(1);
      for (const row of rows.slice(1)) expect(row.endsWith('available')).toBe(true);
    },
  );
});

describe('a --debug trace on a terminal', () => {
  it('is written whole: a body is read, not fitted to 40 columns', async () => {
    const body = `[{"id":1,"name":"${'R'.repeat(60)}","categoryId":1}]`;
    const scope = api().get('/v1/pets').reply(200, body);
    const result = await run(['pets', 'list', '--debug', '--json'], {
      env: baseEnv({ STORE_API_KEY: KEY, NO_COLOR: '1' }),
      tty: true,
      columns: 40,
    });
    expect(scope.isDone()).toBe(true);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`< ${body}\n`);
  });
});
