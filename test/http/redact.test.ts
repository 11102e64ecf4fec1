// The key masked in what a server sends back, however its JSON writes it (src/api/redact.ts).
import { describe, expect, it } from 'vitest';
import { KeyRedactor } from '../../src/api/redact.js';

const KEY = 'sk_live/Ab3+xYz9/QwErTy12';

describe('a key a server echoes', () => {
  it('is masked as it stands, and where JSON escaped its characters', () => {
    const redactor = new KeyRedactor(KEY);
    const forms = [
      KEY,
      'sk_live\\/Ab3+xYz9\\/QwErTy12', // PHP's json_encode
      'sk\\u005flive\\u002fAb3\\u002BxYz9/QwErTy12', // \u escapes, either case
      '\\u0073\\u006b_live/Ab3+xYz9/QwErTy12',
    ];
    for (const form of forms) {
      expect(redactor.text(`{"note":"used ${form}."}`)).toBe('{"note":"used ****Ty12."}');
      expect(redactor.bytes(Buffer.from(`["${form}", "é"]`)).toString()).toBe('["****Ty12", "é"]');
    }
  });

  it('leaves a different key alone: an escape stands for one character only', () => {
    const redactor = new KeyRedactor(KEY);
    const other = 'sk_live\\/Ab3+xYz9\\/QwErTy13 and sk_live\\\\/Ab3+xYz9/QwErTy12';
    expect(redactor.text(other)).toBe(other);
    expect(redactor.bytes(Buffer.from(other)).toString()).toBe(other);
  });

  it('is masked when it holds a quote or a backslash, written escaped', () => {
    const redactor = new KeyRedactor('ab"cd\\ef/gh');
    expect(redactor.text('{"k":"ab\\"cd\\\\ef\\/gh"}')).toBe('{"k":"****f/gh"}');
    expect(redactor.text('{"k":"ab\\u0022cd\\u005Cef/gh"}')).toBe('{"k":"****f/gh"}');
  });

  it('holding a quote or a backslash, is masked as it stands too, in text with other escapes', () => {
    const backslash = new KeyRedactor('sk_live_ab\\cdefghijklmnop');
    expect(backslash.text('invalid key sk_live_ab\\cdefghijklmnop')).toBe('invalid key ****mnop');
    expect(backslash.bytes(Buffer.from('{"m":"sk_live_ab\\\\cdefghijklmnop"}')).toString()).toBe(
      '{"m":"****mnop"}',
    );
    const quote = new KeyRedactor('ab"cdefghij');
    expect(quote.text('a\\b ab"cdefghij')).toBe('a\\b ****ghij');
  });

  it('short, after a JSON escape, stands alone', () => {
    const redactor = new KeyRedactor('abc123');
    expect(redactor.text('{"message":"bad key:\\nabc123 or\\u0020abc123"}')).toBe(
      '{"message":"bad key:\\n**** or\\u0020****"}',
    );
  });

  it('short, only where it stands alone, escaped or not', () => {
    const redactor = new KeyRedactor('k/1');
    expect(redactor.text('"k\\/1" and "xk\\/1" and "k\\/12"')).toBe(
      '"****" and "xk\\/1" and "k\\/12"',
    );
  });
});
