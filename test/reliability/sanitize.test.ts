import { describe, expect, it } from 'vitest';
import { sanitize } from '../../src/render/sanitize.js';

describe('sanitize', () => {
  it.each([
    ['CSI colour', 'a\u001b[31mred', 'a\\x1b[31mred'],
    ['CSI clear screen', '\u001b[2J\u001b[H', '\\x1b[2J\\x1b[H'],
    ['OSC 52 clipboard write', '\u001b]52;c;ZWNobyBoaQ==\u0007', '\\x1b]52;c;ZWNobyBoaQ==\\x07'],
    [
      'OSC 8 hyperlink',
      '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\',
      '\\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\',
    ],
    ['C1 CSI', '\u009b31m', '\\x9b31m'],
    ['bare carriage return', 'safe\roverwritten', 'safe\\roverwritten'],
    ['backspaces', 'rm -rf\b\b\b\b\b\bls', 'rm -rf\\x08\\x08\\x08\\x08\\x08\\x08ls'],
    ['tab and newline', 'a\tb\nc', 'a\\tb\\nc'],
    ['bidi override', 'abc\u202Efed', 'abc\\u202efed'],
    ['DEL', 'x\u007f', 'x\\x7f'],
    ['plain text with accents and emoji', 'Chloé 🐈', 'Chloé 🐈'],
  ])('neutralises %s', (_name, input, shown) => {
    expect(sanitize(input)).toBe(shown);
  });
});
