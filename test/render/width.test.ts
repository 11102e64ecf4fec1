import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textWidth, truncate, truncateMiddle, wrapText } from '../../src/render/width.js';

describe('textWidth', () => {
  it.each([
    ['ASCII', 'Rex the dog', 11],
    ['empty', '', 0],
    ['CJK ideographs', '小狗', 4],
    ['Hangul syllables', '강아지', 6],
    ['fullwidth letters', 'ＡＢ', 4],
    ['emoji', '🐶', 2],
    ['an emoji ZWJ sequence (one glyph)', '🐕\u200d🦺', 2],
    ['an emoji with a skin tone', '👍🏽', 2],
    ['a flag (two regional indicators)', '🇫🇷', 2],
    ['a keycap', '1\ufe0f\u20e3', 2],
    ['a text symbol made emoji by VS16', '\u2764\ufe0f', 2],
    ['a text symbol without VS16', '\u2764', 1],
    ['combining accents', 'e\u0301te\u0301', 3],
    ['Hebrew with points', 'שָׁלוֹם', 4],
    ['Arabic with harakat', 'مَرْحَبًا', 5],
    ['Devanagari with vowel signs', 'नमस्ते', 4],
    ['zero-width joiner and marks alone', '\u200d\u200e', 0],
    // Counted 0, a name of soft hyphens made table rows wrap in tmux and xterm.
    ['soft hyphens (a cell each, as wcwidth says)', 'Rex\u00adthe\u00addog', 11],
    ['mixed', 'Rex 小狗 🐶', 11],
    // The first wide code point (a Hangul initial jamo).
    ['U+1100, the first of the wide range', '\u1100', 2],
    // The last of a range, and a range of one code point.
    ['U+115F, the last of that range', '\u115f', 2],
    ['a star (a range of one)', 'Luna \u2b50', 7],
    ['U+D7A3, the last Hangul syllable', '\ud7a3', 2],
    // The last range: CJK Extension B and beyond.
    ['a supplementary-plane ideograph', '\u{20bb7}野家', 6],
    // Decomposed forms: the marks join the letter before them (they counted 2 cells each).
    ['Japanese kana with combining voicing marks (NFD)', 'ホ\u309aチか\u3099', 6],
    ['an ideographic tone mark', '中\u302a', 2],
    ['Hangul in jamo (NFD)', '\u1112\u1161\u11ab', 2],
    // An emoji that has text presentation by default: wide only with VS16.
    ['a thermometer without VS16', '\u{1f321}', 1],
    ['a thermometer with VS16', '\u{1f321}\ufe0f', 2],
  ])('%s', (_what, text, width) => {
    expect(textWidth(text)).toBe(width);
  });
});

describe('truncateMiddle', () => {
  it('leaves text that fits, and keeps both ends of what does not', () => {
    expect(truncateMiddle('http://127.0.0.1:4010/v1', 24)).toBe('http://127.0.0.1:4010/v1');
    expect(truncateMiddle('http://127.0.0.1:4010/v1', 13)).toBe('http:/…010/v1');
    // The start gets the odd cell.
    expect(truncateMiddle('abcdefghij', 6)).toBe('abc…ij');
  });

  it('never splits a wide character, and gives the end what the start could not use', () => {
    // One cell is left empty where a wide character would not fit.
    expect(truncateMiddle('小狗小狗ab', 6)).toBe('小…ab');
    // The start may take 3 of the 5 cells but can use 2: the end gets 3.
    expect(truncateMiddle('小狗abcdef', 6)).toBe('小…def');
    expect(truncateMiddle('ab小狗小狗', 6)).toBe('ab…狗');
  });

  it('keeps combining marks with their letter, and emoji sequences whole', () => {
    expect(truncateMiddle('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301…e\u0301');
    expect(truncateMiddle('ae\u0301e\u0301e\u0301b', 4)).toBe('ae\u0301…b');
    expect(truncateMiddle('🐕\u200d🦺xy🐕\u200d🦺', 5)).toBe('🐕\u200d🦺…🐕\u200d🦺');
  });

  it('gives an ellipsis alone at width 1 and nothing at 0', () => {
    expect(truncateMiddle('Rex', 1)).toBe('…');
    expect(truncateMiddle('Rex', 0)).toBe('');
  });

  it('never exceeds the width, and keeps the start and the end (property)', () => {
    // (Text without an ellipsis of its own: the cut's ellipsis tells its two ends apart.)
    const texts = fc.string({ unit: 'grapheme' }).filter((text) => !text.includes('…'));
    fc.assert(
      fc.property(texts, fc.nat(30), (text, width) => {
        const cut = truncateMiddle(text, width);
        expect(textWidth(cut)).toBeLessThanOrEqual(Math.max(width, 0));
        if (textWidth(text) <= width) expect(cut).toBe(text);
        else if (width > 1) {
          const [head = '', tail = ''] = cut.split('…');
          expect(text.startsWith(head)).toBe(true);
          expect(text.endsWith(tail)).toBe(true);
        }
      }),
    );
  });
});

describe('truncate', () => {
  it('leaves text that fits', () => {
    expect(truncate('Rex', 3)).toBe('Rex');
  });

  it('cuts ASCII with an ellipsis within the width', () => {
    expect(truncate('Rexford', 5)).toBe('Rexf…');
    // No space before the ellipsis.
    expect(truncate('abc defgh', 5)).toBe('abc…');
  });

  it('never splits a wide character: one cell is left empty instead', () => {
    expect(truncate('小狗小狗', 4)).toBe('小…');
    expect(textWidth(truncate('小狗小狗', 4))).toBe(3);
  });

  it('keeps combining marks with their letter and emoji sequences whole', () => {
    expect(truncate('e\u0301e\u0301e\u0301', 2)).toBe('e\u0301…');
    expect(truncate('🐕\u200d🦺🐕\u200d🦺', 3)).toBe('🐕\u200d🦺…');
  });

  it('gives an ellipsis alone at width 1 and nothing at 0', () => {
    expect(truncate('Rex', 1)).toBe('…');
    expect(truncate('Rex', 0)).toBe('');
  });

  it('never exceeds the width (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(30), (text, width) => {
        const cut = truncate(text, width);
        expect(textWidth(cut)).toBeLessThanOrEqual(Math.max(width, 0));
        if (textWidth(text) <= width) expect(cut).toBe(text);
      }),
    );
  });
});

describe('wrapText', () => {
  it('wraps at word boundaries', () => {
    expect(wrapText('the quick brown fox jumps over the lazy dog', 15)).toBe(
      'the quick brown\nfox jumps over\nthe lazy dog',
    );
  });

  it('breaks a word longer than the width', () => {
    expect(wrapText('see https://example.com/a/very/long/path now', 12)).toBe(
      'see\nhttps://exam\nple.com/a/ve\nry/long/path\nnow',
    );
  });

  it('keeps line breaks and the indentation of each line on its continuations', () => {
    expect(wrapText('Options:\n  -p, --profile <name>  the profile to use', 24)).toBe(
      'Options:\n  -p, --profile <name>\n  the profile to use',
    );
  });

  it('measures wide characters in cells', () => {
    expect(wrapText('小狗 小狗 小狗', 10)).toBe('小狗 小狗\n小狗');
    expect(wrapText('小狗小狗小狗', 5)).toBe('小狗\n小狗\n小狗');
  });

  it('leaves text that fits as it is, but for trailing spaces', () => {
    expect(wrapText('short line', 80)).toBe('short line');
    expect(wrapText('short line   ', 80)).toBe('short line');
  });

  it('does not keep an indentation of more than half the width for the continuation lines', () => {
    expect(wrapText('          one two three', 14)).toBe('          one\ntwo three');
  });

  it('puts a word that fits a line only without the indentation at its start, whole', () => {
    expect(wrapText('      print machine-readable JSON', 20)).toBe(
      '      print\nmachine-readable\n      JSON',
    );
  });

  it('never breaks a word that fits in the width, however indented (property)', () => {
    const word = fc.stringMatching(/^[a-z-]{1,20}$/);
    fc.assert(
      fc.property(
        fc.nat(19),
        fc.array(word, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 20, max: 40 }),
        (indent, words, width) => {
          const wrapped = wrapText(`${' '.repeat(indent)}${words.join(' ')}`, width);
          expect(wrapped.split(/\s+/).filter(Boolean)).toEqual(words);
        },
      ),
    );
  });

  it('no line is wider than the width unless one grapheme is (property)', () => {
    const words = fc.array(
      fc.oneof(fc.constantFrom('a', 'word', '小狗', '🐶', 'e\u0301'), fc.string({ maxLength: 12 })),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(words, fc.integer({ min: 2, max: 40 }), (parts, width) => {
        const text = parts.join(' ').replace(/[\s\p{C}]/gu, 'x');
        for (const line of wrapText(text, width).split('\n')) {
          expect(textWidth(line)).toBeLessThanOrEqual(width);
        }
        // Nothing is lost: the same non-space characters, in order.
        expect(wrapText(text, width).replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
      }),
    );
  });
});
