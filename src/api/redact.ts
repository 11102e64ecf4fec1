// The API key masked wherever text from or to a server may show it: a server may echo the key
// (a 401's message), and traces show bodies and headers.
import { maskKey } from '../config/profiles.js';

/** Keys shorter than this are not looked for in server text: they are words found in data
 * (the sandbox's own key is `sandbox`: a pet named "sandbox bunny" became "**** bunny"), and
 * no secret. */
const MIN_KEY_SEARCHED = 8;

export class KeyRedactor {
  constructor(private readonly key: string) {}

  /** The text with every occurrence of the key masked. */
  text(text: string): string {
    const { key } = this;
    if (key.length < MIN_KEY_SEARCHED) return text;
    return text.includes(key) ? text.split(key).join(maskKey(key)) : text;
  }

  /** The same for bytes (`store api` prints bodies byte for byte). */
  bytes(body: Buffer): Buffer {
    const { key } = this;
    if (key.length < MIN_KEY_SEARCHED) return body;
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
