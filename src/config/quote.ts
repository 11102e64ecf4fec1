// A value the user typed, quoted for an error line so that whatever is invisible in it
// shows: JSON quoting, and every control, format (bidi, zero-width) and space character
// other than the plain space as \uXXXX.
import { lazyPattern, PRINTABLE_ASCII } from '../lazy-pattern.js';

const INVISIBLE = lazyPattern(() => /[\p{Cc}\p{Cf}\p{Z}]/gu);
// Nothing in printable ASCII is invisible but the plain space, which stays: such a value (a
// profile name, a URL: nearly all of them) needs no Unicode class.

export function quote(value: string): string {
  const json = JSON.stringify(value);
  if (PRINTABLE_ASCII.test(value)) return json;
  return json.replace(INVISIBLE(), (ch) => (ch === ' ' ? ch : escaped(ch)));
}

/** As JSON writes it: one \uXXXX per UTF-16 unit, so a character past U+FFFF (the tag
 * characters, U+E0001…) is its surrogate pair, which reads back as the same character. */
function escaped(ch: string): string {
  let text = '';
  for (let i = 0; i < ch.length; i += 1) {
    text += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return text;
}

/** `text` as one word of a POSIX shell command line, to be pasted as it is: quoted only when
 * it holds anything the shell would read otherwise. */
export const shellWord = (text: string) =>
  /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
