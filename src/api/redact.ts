// The API key masked wherever text from or to a server may show it: a server may echo the key
// (a 401's message), and traces show bodies and headers.
import { BUILTIN_PROFILES, maskKey } from '../config/profiles.js';

/** Keys shorter than this are masked only where they stand alone (`Bearer s3cr3t7`, `"k"`),
 * not inside a longer word: `auth login` takes none that short, but STORE_API_KEY may hold
 * one, and it must not be printed in clear either. */
export const MIN_KEY_SEARCHED = 8;

/** The built-in sandbox's key is published (the README, `store profile list`), and a word
 * found in data ("sandbox bunny"): nothing to hide. */
export const PUBLIC_KEY = BUILTIN_PROFILES.sandbox?.apiKey;

/** Characters a key may be made of: an occurrence next to one is part of a longer word. */
const KEY_CHAR = /[A-Za-z0-9_.~+/=-]/;

const REGEXP_SPECIAL = /[\\^$.*+?()[\]{}|/-]/g;

/**
 * The key as a JSON string may write it: any of its characters as `\uXXXX` (either case), `/`
 * as `\/`, `"` and `\` escaped (PHP escapes every `/` by default; others `<`, `+`, `=`…), or as
 * itself. A short key only where it stands alone, as `standingAlone` says; an escape before it
 * (`\n`, `\u0020`) is no part of its word.
 */
function keyAsJsonMayWriteIt(key: string): RegExp {
  const hex = (digit: string) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit);
  const forms = [...key].map((char) => {
    const code = [...char.charCodeAt(0).toString(16).padStart(4, '0')].map(hex).join('');
    const escaped = [`\\\\u${code}`];
    if (char === '/' || char === '"' || char === '\\') escaped.push(`\\\\\\${char}`);
    return `(?:${[...escaped, char.replace(REGEXP_SPECIAL, '\\$&')].join('|')})`;
  });
  const word = forms.join('');
  if (key.length >= MIN_KEY_SEARCHED) return new RegExp(word, 'g');
  const before = `(?:(?<!${KEY_CHAR.source})|(?<=\\\\[nrtbf"/\\\\])|(?<=\\\\u[0-9a-fA-F]{4}))`;
  return new RegExp(`${before}${word}(?!${KEY_CHAR.source})`, 'g');
}

export class KeyRedactor {
  private escaped?: RegExp;

  constructor(private readonly key: string) {}

  /** The text with every occurrence of the key masked, also where JSON escaped some of its
   * characters (only text with a backslash can hold such a form). */
  text(text: string): string {
    const { key } = this;
    if (key === PUBLIC_KEY || key === '') return text;
    if (text.includes('\\')) {
      this.escaped ??= keyAsJsonMayWriteIt(key);
      const masked = maskKey(key);
      return text.replace(this.escaped, () => masked);
    }
    if (!text.includes(key)) return text;
    if (key.length < MIN_KEY_SEARCHED) return this.standingAlone(text);
    return text.split(key).join(maskKey(key));
  }

  /** A short key masked where it is a word of its own, not where it is part of one. */
  private standingAlone(text: string): string {
    const { key } = this;
    let out = '';
    let from = 0;
    for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
      const before = text[at - 1] ?? '';
      const after = text[at + key.length] ?? '';
      if (at < from || KEY_CHAR.test(before) || KEY_CHAR.test(after)) continue;
      out += `${text.slice(from, at)}${maskKey(key)}`;
      from = at + key.length;
    }
    return out + text.slice(from);
  }

  /** The same for bytes (`store api` prints bodies byte for byte). */
  bytes(body: Buffer): Buffer {
    const { key } = this;
    if (key === PUBLIC_KEY || key === '') return body;
    // A key is visible ASCII (auth login, and a header, take nothing else): as latin1, each
    // byte is one character and comes back the same.
    if (body.indexOf(0x5c) !== -1) {
      const text = body.toString('latin1');
      const masked = this.text(text);
      return masked === text ? body : Buffer.from(masked, 'latin1');
    }
    if (key.length < MIN_KEY_SEARCHED) {
      if (body.indexOf(key) === -1) return body;
      return Buffer.from(this.standingAlone(body.toString('latin1')), 'latin1');
    }
    const needle = Buffer.from(key);
    const mask = Buffer.from(maskKey(key));
    const parts: Buffer[] = [];
    let from = 0;
    for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, from)) {
      parts.push(body.subarray(from, at), mask);
      from = at + needle.length;
    }
    return from === 0 ? body : Buffer.concat([...parts, body.subarray(from)]);
  }

  /** The Authorization header as a trace shows it. */
  authorization(): string {
    return `Bearer ${maskKey(this.key)}`;
  }
}
