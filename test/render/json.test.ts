// --json is exact: a number a double cannot hold is printed as the server wrote it, int64
// digit for digit; characters a terminal would act on are escaped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutText, nestedTooDeep, parseJson, stringifyJson } from '../../src/json.js';
import { sanitize } from '../../src/render/sanitize.js';
import { baseEnv, run } from '../helpers/cli.js';
import { api, KEY } from '../helpers/http.js';

const roundTrip = (text: string) => stringifyJson(parseJson(text));

describe('numbers in --json', () => {
  it.each([
    ['1e400', '1e400'],
    ['-1e400', '-1e400'],
    ['1e-400', '1e-400'],
    ['9007199254740993.0', '9007199254740993.0'],
    ['0.1000000000000000000001', '0.1000000000000000000001'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['-0', '-0'],
    ['-0.0', '-0.0'],
  ])('keeps %s as the server wrote it', (text, expected) => {
    expect(roundTrip(text)).toBe(expected);
    expect(roundTrip(`{"a":[${text}]}`)).toBe(`{"a":[${expected}]}`);
    // After a comma too, with and without spaces: the first element is no guide to the rest.
    expect(roundTrip(`[1,${text}]`)).toBe(`[1,${expected}]`);
    expect(roundTrip(`{"a":1, "b":${text}}`)).toBe(`{"a":1,"b":${expected}}`);
  });

  it.each([
    ['0.1', '0.1'],
    ['1.5', '1.5'],
    ['1.0', '1'],
    ['1e2', '100'],
    ['12345678901234.5', '12345678901234.5'],
    ['0.30000000000000004', '0.30000000000000004'],
  ])('writes %s, which a double holds exactly, as a plain number', (text, expected) => {
    expect(roundTrip(text)).toBe(expected);
    expect(typeof parseJson(text)).toBe('number');
  });

  it('never changes the value of a number (property)', () => {
    const digits = (max: number) => fc.stringMatching(new RegExp(`^[0-9]{1,${max}}$`));
    const numberText = fc
      .tuple(
        fc.constantFrom('', '-'),
        digits(25).map((d) => d.replace(/^0+(?=\d)/, '')),
        fc.option(digits(25)),
        fc.option(fc.tuple(fc.constantFrom('e', 'E', 'e+', 'e-'), digits(3))),
      )
      .map(([sign, whole, fraction, exponent]) => {
        const f = fraction === null ? '' : `.${fraction}`;
        const e = exponent === null ? '' : `${exponent[0]}${exponent[1]}`;
        return `${sign}${whole}${f}${e}`;
      });
    fc.assert(
      fc.property(numberText, (text) => {
        const written = roundTrip(`[${text}]`).slice(1, -1);
        // Either as sent, or a number a double holds whose value is the same.
        if (written !== text) expect(Number(written)).toBe(Number(text));
        if (written !== text) expect(String(Number(text))).toBe(written);
      }),
      { numRuns: 2000 },
    );
  });

  it('prints a pet with such numbers exactly under --json', async () => {
    const body =
      '[{"id":9007199254740993,"name":"Rex","categoryId":1,"weight":1e400,"ratio":9007199254740993.0}]';
    api().get('/v1/pets').reply(200, body);
    const result = await run(['--json', 'pets', 'list'], { env: baseEnv({ STORE_API_KEY: KEY }) });
    expect(result).toEqual({ code: 0, stdout: `${body}\n`, stderr: '', prompts: [] });
  });

  it('shows such a number as sent in a table cell', async () => {
    const body = '[{"id":1,"name":"Rex","categoryId":1,"weight":1e400}]';
    api().get('/v1/store/orders').reply(200, body);
    const result = await run(['orders', 'list'], { env: baseEnv({ STORE_API_KEY: KEY }) });
    expect(result.stdout).toBe('id\tname\tcategoryId\tweight\n1\tRex\t1\t1e400\n');
  });
});

describe('characters a terminal acts on', () => {
  const text = 'a\u007fb\u200fc\u061cd\u200ee\u202ef';

  it('are escaped in --json as \\uXXXX, and parse back to the same text', () => {
    const json = stringifyJson({ name: text });
    expect(json).toBe('{"name":"a\\u007fb\\u200fc\\u061cd\\u200ee\\u202ef"}');
    expect(JSON.parse(json)).toEqual({ name: text });
  });

  it('are shown as visible escapes in terminal text', () => {
    expect(sanitize(text)).toBe('a\\x7fb\\u200fc\\u061cd\\u200ee\\u202ef');
  });

  it('include the line and paragraph separators and every bidi isolate', () => {
    const separators = 'a\u2028b\u2029c\u2066d\u2067e\u2068f\u2069g';
    const escaped = 'a\\u2028b\\u2029c\\u2066d\\u2067e\\u2068f\\u2069g';
    expect(sanitize(separators)).toBe(escaped);
    expect(stringifyJson(separators)).toBe(`"${escaped}"`);
  });
});

describe('cutting and nesting', () => {
  it('cuts text after a whole emoji that ends at the cut, and before one the cut would split', () => {
    expect(cutText('ab🐶c', 4)).toBe('ab🐶');
    expect(cutText('ab🐶c', 3)).toBe('ab');
    expect(cutText('abc', 2)).toBe('ab');
  });

  it('counts a number a double cannot hold as a value, not as a level of nesting', () => {
    // 1,000 levels of arrays are allowed; a raw JSON number at the bottom is no 1,001st.
    const text = `${'['.repeat(1000)}1e400${']'.repeat(1000)}`;
    expect(nestedTooDeep(parseJson(text))).toBe(false);
    expect(nestedTooDeep(parseJson(`[${text}]`))).toBe(true);
  });
});
